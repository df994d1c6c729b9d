package conservative

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
)

// TestSettleAheadChangesNothing drives two conservative policies with the
// same random events — at each instant, submissions, cancellations of
// waiting jobs (random, oldest and newest) and early ends of running jobs
// interleaved in any order, as a live service receives them, then the
// pass — one of them also asked to compress ahead (SettleAhead, as the
// service does at the end of every request) after random events, and
// sometimes restored from its own snapshot (taken while a compression made
// ahead may still be undone). Every guarantee, every start, every
// reservation after each pass, and every snapshot must be the same as
// without SettleAhead.
func TestSettleAheadChangesNothing(t *testing.T) {
	n := 200
	if longtest.Short() {
		n = 40
	}
	ahead := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 29))
		procs := 1 + r.IntN(32)
		ref, ah := New(procs, Config{}), New(procs, Config{})
		var reqs, reqsAh []*job.Request
		var waiting []int // job IDs, in submission order
		type run struct {
			id  int
			end int64
		}
		var running []run
		for now := int64(0); now < 60; now++ {
			// ends first in time, but the service may get them in any order
			// among the instant's other requests
			var ends []int
			for i := 0; i < len(running); {
				if running[i].end == now {
					ends = append(ends, running[i].id)
					running = slices.Delete(running, i, i+1)
					continue
				}
				i++
			}
			for k := r.IntN(6); k > 0 || len(ends) > 0; k-- {
				switch {
				case len(ends) > 0 && r.IntN(2) == 0:
					id := ends[0]
					ends = ends[1:]
					ref.Remove(now, reqs[id])
					ah.Remove(now, reqsAh[id])
				case r.IntN(3) == 0 && len(waiting) > 0:
					i := r.IntN(len(waiting))
					switch r.IntN(3) {
					case 0:
						i = 0
					case 1:
						i = len(waiting) - 1
					}
					id := waiting[i]
					waiting = slices.Delete(waiting, i, i+1)
					ref.Remove(now, reqs[id])
					ah.Remove(now, reqsAh[id])
				default:
					j := &job.Request{ID: len(reqs), SWFID: int64(len(reqs) + 1), Submit: now, Procs: 1 + r.IntN(procs), Estimate: int64(1 + r.IntN(30))}
					jj := *j
					reqs, reqsAh = append(reqs, j), append(reqsAh, &jj)
					ref.Insert(now, j)
					ah.Insert(now, &jj)
					if g, w := ah.Guarantee(&jj), ref.Guarantee(j); g != w {
						t.Fatalf("seed %d at %d: job %d guaranteed %d with SettleAhead, %d without", seed, now, j.ID, g, w)
					}
					waiting = append(waiting, j.ID)
				}
				if r.IntN(3) > 0 {
					ah.SettleAhead(now)
					if _, _, _, _, _, ok := ah.book.Unsettled(); ok {
						ahead++
					}
				}
				if r.IntN(8) == 0 {
					a, err := ah.Snapshot()
					if err != nil {
						t.Fatal(err)
					}
					b, err := ref.Snapshot()
					if err != nil {
						t.Fatal(err)
					}
					if !bytes.Equal(a, b) {
						t.Fatalf("seed %d at %d: snapshots differ:\n%s\n%s", seed, now, a, b)
					}
					fresh := New(procs, Config{})
					if err := fresh.Restore(now, a, func(id int) *job.Request {
						if id < 0 || id >= len(reqsAh) {
							return nil
						}
						return reqsAh[id]
					}); err != nil {
						t.Fatalf("seed %d: %v", seed, err)
					}
					ah = fresh
				}
				if k <= 0 && len(ends) > 0 && r.IntN(2) == 0 {
					k = 1 // the rest of the ends later in the instant
				}
			}
			var got, want []int
			ref.Tick(now, func(j *job.Request) { want = append(want, j.ID) })
			ah.Tick(now, func(j *job.Request) { got = append(got, j.ID) })
			if !slices.Equal(got, want) {
				t.Fatalf("seed %d at %d: started %v with SettleAhead, %v without", seed, now, got, want)
			}
			for _, id := range want {
				waiting = slices.DeleteFunc(waiting, func(x int) bool { return x == id })
				running = append(running, run{id, now + 1 + r.Int64N(reqs[id].Estimate)})
			}
			wa, wb := ah.book.Wait(), ref.book.Wait()
			if len(wa) != len(wb) {
				t.Fatalf("seed %d at %d: %d vs %d waiting", seed, now, len(wa), len(wb))
			}
			for i := range wa {
				if wa[i].J.ID != wb[i].J.ID || wa[i].Start != wb[i].Start {
					t.Fatalf("seed %d at %d: job %d at %d with SettleAhead, job %d at %d without", seed, now, wa[i].J.ID, wa[i].Start, wb[i].J.ID, wb[i].Start)
				}
			}
		}
	}
	if ahead == 0 {
		t.Fatal("no compression was made ahead")
	}
}
