package deadline

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
)

// TestCancellationsEqualFullSearch drives each scheduler twice — with
// compress's freed bound and with the search from now (fullSearch) — by
// random submissions with deadlines, passes, early ends and cancellations
// of waiting jobs (the live service's cancels; the simulator makes none),
// and compares decisions and every reservation after every event. It also
// checks the property the bound rests on: after every event no
// reservation could move earlier.
func TestCancellationsEqualFullSearch(t *testing.T) {
	n := 120
	if longtest.Short() {
		n = 30
	}
	for _, kind := range []string{"qops", "msb", "mrt"} {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			r := rand.New(rand.NewPCG(seed, 91))
			procs := 1 + r.IntN(32)
			fast, full := mustNew(t, kind, procs, Defaults(kind)), mustNew(t, kind, procs, Defaults(kind))
			full.book.FullSearch = true
			type run struct {
				j   *job.Request
				end int64
			}
			var running []run
			var now int64
			nextID := 0
			check := func(what string) {
				fast.book.Settle(now) // the releases of the instant are compressed at the next call
				full.book.Settle(now)
				if a, b := schedule(fast), schedule(full); a != b {
					t.Fatalf("%s seed %d after %s at %d:\n bound: %s\n full:  %s", kind, seed, what, now, a, b)
				}
				for _, x := range fast.book.Wait() {
					if e := fast.run.Prof.EarliestFitMoving(now, x.J.Estimate, x.J.Procs, x.Start); e < x.Start {
						t.Fatalf("%s seed %d after %s: job %d could move from %d to %d", kind, seed, what, x.J.ID, x.Start, e)
					}
				}
			}
			for step := 0; step < 150; step++ {
				switch k := r.IntN(10); {
				case k < 4: // a submission, with a deadline most of the time
					est := int64(1 + r.IntN(100))
					j := &job.Request{ID: nextID, SWFID: int64(nextID), Submit: now, Procs: 1 + r.IntN(procs), Estimate: est}
					if r.IntN(4) > 0 {
						j.Deadline = now + est + int64(r.IntN(400))
					}
					nextID++
					fast.Insert(now, j)
					full.Insert(now, j)
					a, _ := fast.Admitted(j)
					b, _ := full.Admitted(j)
					if a != b {
						t.Fatalf("%s seed %d: job %d admitted %v (bound) vs %v (full)", kind, seed, j.ID, a, b)
					}
					check("insert")
				case k < 6 && len(fast.book.Wait()) > 0: // cancel waiting jobs
					// one to three at one instant (the live service's
					// concurrent clients): the releases apart (relSpans)
					for c := 1 + r.IntN(3); c > 0 && len(fast.book.Wait()) > 0; c-- {
						x := fast.book.Wait()[r.IntN(len(fast.book.Wait()))]
						fast.Remove(now, x.J)
						full.Remove(now, x.J)
					}
					check("cancel")
				case k < 7 && len(running) > 0: // an early end
					i := r.IntN(len(running))
					if x := running[i]; x.end > now {
						fast.Remove(now, x.j)
						full.Remove(now, x.j)
						running = slices.Delete(running, i, i+1)
						check("early end")
					}
				default: // time passes: ends at the estimate, then a pass
					next := now + int64(r.IntN(30))
					if len(fast.book.Wait()) > 0 {
						next = min(next, max(now, fast.book.Wait()[0].Start))
					}
					for _, x := range running {
						next = min(next, x.end)
					}
					now = next
					kept := running[:0]
					for _, x := range running {
						if x.end == now {
							fast.Remove(now, x.j)
							full.Remove(now, x.j)
						} else {
							kept = append(kept, x)
						}
					}
					running = kept
					var sa, sb []int
					fast.Tick(now, func(j *job.Request) {
						sa = append(sa, j.ID)
						running = append(running, run{j, now + j.Estimate})
					})
					full.Tick(now, func(j *job.Request) { sb = append(sb, j.ID) })
					if !slices.Equal(sa, sb) {
						t.Fatalf("%s seed %d: pass at %d started %v (bound) vs %v (full)", kind, seed, now, sa, sb)
					}
					check("pass")
				}
			}
		}
	}
}
