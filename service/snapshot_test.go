package service

import (
	"bytes"
	"context"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	bolt "go.etcd.io/bbolt"
)

// TestDamagedSnapshotFallsBack restarts a service whose latest snapshot
// was damaged on disk (its data no longer matches its checksum) at random
// instants: the restart falls back to the older snapshot and the log
// after it, and the schedule still equals the simulator's job by job.
func TestDamagedSnapshotFallsBack(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 2))
	s := testgen.Random(r)
	s.Jobs = 120
	jobs := testgen.Jobs(r, s)
	for _, spec := range []string{"conservative", "easy"} {
		sched, err := policy.New(spec, s.Procs)
		if err != nil {
			t.Fatal(err)
		}
		want, err := sim.Run(jobs, sched, sim.Options{Procs: s.Procs})
		if err != nil {
			t.Fatal(err)
		}
		env := newEnv(t, spec, s.Procs)
		env.cfg.SnapshotEvery = 7
		env.restart()
		env.clock.Set(0)
		rr := rand.New(rand.NewPCG(3, 4))
		damaged := 0
		got, err := replay(context.Background(), env.admin, jobs, func(int64) *Client {
			if rr.IntN(6) != 0 {
				return env.admin
			}
			before := engineView(env.svc)
			now := env.clock.Now()
			env.stop()
			tamper(t, env.dir, func(tx *bolt.Tx) error {
				// damage the latest of two snapshots
				b := tx.Bucket([]byte("snapshots"))
				if b.Stats().KeyN != 2 {
					return nil
				}
				k, v := b.Cursor().Last()
				v = bytes.Clone(v)
				v[len(v)-1] ^= 1
				return b.Put(bytes.Clone(k), v)
			})
			env.start(now)
			if after := engineView(env.svc); after != before {
				t.Fatalf("%s: the state before a restart\n%s\ndiffers from the state after it\n%s", spec, before, after)
			}
			if env.svc.st.Notes != nil {
				damaged++
			}
			return env.admin
		})
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if damaged == 0 {
			t.Fatalf("%s: no restart met a damaged snapshot", spec)
		}
		for i := range jobs {
			w, g := want.Outcomes[i], got[i]
			if w.Start != g.Start || w.End != g.End || w.Bound != g.Bound {
				t.Fatalf("%s, job %d: simulator start %d end %d bound %d; service start %d end %d bound %d",
					spec, jobs[i].SWFID, w.Start, w.End, w.Bound, g.Start, g.End, g.Bound)
			}
		}
		env.stop()
	}
}
