package service

import (
	"bytes"
	"context"
	"encoding/json"
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

// TestSnapshotEncodingFromView: the snapshot encoded off the engine lock —
// the jobs from the read view's chunks (each encoded once), the decision
// feed extended from the previous snapshot's encoding — is byte for byte
// the plain encoding of the engine's state, at every instant of random
// workloads (with cancellations of waiting jobs, feed trimming forced by
// a small feed, and restarts).
func TestSnapshotEncodingFromView(t *testing.T) {
	r := rand.New(rand.NewPCG(18, 3))
	for _, spec := range []string{"conservative", "easy"} {
		s := testgen.Random(r)
		s.Jobs = 150
		s.Overrun = 0.2
		jobs := testgen.Jobs(r, s)
		env := newEnv(t, spec, s.Procs)
		env.clock.Set(0)
		checked := 0
		rr := rand.New(rand.NewPCG(5, 6))
		_, err := replay(context.Background(), env.admin, jobs, func(int64) *Client {
			if rr.IntN(20) == 0 {
				env.restart()
			}
			svc := env.svc
			svc.mu.Lock()
			defer svc.mu.Unlock()
			e := svc.eng
			if rr.IntN(10) == 0 && len(e.decisions) > 4 {
				// a trimmed feed: a new backing array
				e.decisions = append(e.decisions[:0:0], e.decisions[len(e.decisions)/2:]...)
			}
			c, err := e.capture(svc.readView())
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.encode(&svc.feedEnc)
			if err != nil {
				t.Fatal(err)
			}
			want := plainSnapshot(t, e)
			if string(got) != string(want) {
				t.Fatalf("%s at %d: the snapshot from the view\n%s\ndiffers from the plain encoding\n%s", spec, e.cur, got, want)
			}
			checked++
			return env.admin
		})
		if err != nil {
			t.Fatal(err)
		}
		if checked < 50 {
			t.Fatalf("%s: %d instants checked", spec, checked)
		}
		env.stop()
	}
}

// plainSnapshot is the engine's state encoded in one json.Marshal of
// engineSnapshot (the encoding before snapshots were taken off the lock).
func plainSnapshot(t *testing.T, e *Engine) []byte {
	core, err := e.core.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	s := engineSnapshot{V: 1, Policy: e.Policy(), Procs: e.procs, Core: core, Jobs: e.jobs.Len(), Cur: e.cur, Dirty: e.dirty, Wake: e.wake, Seq: e.seq, Pass: e.Passes,
		Outstanding: e.outstanding, UserIDs: e.userIDs, Live: []*Job{}, Decisions: make([][4]int64, len(e.decisions))}
	for _, j := range e.jobs.Slice() {
		if j != nil {
			c := *j
			c.Req.PP = finitePP(c.Req.PP)
			s.Live = append(s.Live, &c)
		}
	}
	for i, d := range e.decisions {
		a := int64(0)
		if d.Action == "stop" {
			a = 1
		}
		s.Decisions[i] = [4]int64{d.Seq, a, d.ID, d.T}
	}
	b, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
