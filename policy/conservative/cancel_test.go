package conservative

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
)

// TestCancellationsEqualLiteral drives fast and literal compression with
// random submissions, passes, early ends and cancellations of waiting
// jobs (which the simulator never makes), and compares every reservation
// after every event; it also checks that no reservation could move
// earlier (each is an earliest fit given all the others). Every other
// seed draws its jobs from three shapes, submitted in bursts of up to 8
// identical jobs (job arrays), so that the waiting list holds runs of
// identical reservations, which the compression moves together; on half
// the seeds the searches consult the grid of the pass's fits
// (reservation.Book.SearchBudget) after one blocking run, and on two seeds
// in three half the cancellations take the newest waiting job (then the
// compression skips the jobs submitted before it when nothing freed
// capacity for them since: reservation's history.go).
func TestCancellationsEqualLiteral(t *testing.T) {
	n := 300
	if longtest.Short() {
		n = 60
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 17))
		procs := 1 + r.IntN(32)
		arrays := seed%2 == 0
		recent := seed%3 != 0
		var shapes [3][2]int
		for i := range shapes {
			shapes[i] = [2]int{1 + r.IntN(max(1, procs/3)), 1 + r.IntN(40)}
		}
		fast, lit := New(procs, Config{}), New(procs, Config{})
		lit.book.Literal = true
		if seed%4 >= 2 {
			fast.book.SearchBudget = 1 // every search that crosses a blocking run asks the grid of fits
		}
		var reqs []*job.Request
		type run struct {
			j   *job.Request
			end int64
		}
		var running []run
		var now int64
		check := func(what string) {
			fast.book.Settle(now) // the releases of the instant are compressed at the next call
			lit.book.Settle(now)
			if len(fast.book.Wait()) != len(lit.book.Wait()) {
				t.Fatalf("seed %d after %s: %d vs %d waiting", seed, what, len(fast.book.Wait()), len(lit.book.Wait()))
			}
			for i := range fast.book.Wait() {
				a, b := fast.book.Wait()[i], lit.book.Wait()[i]
				if a.J.ID != b.J.ID || a.Start != b.Start {
					t.Fatalf("seed %d after %s at %d: job %d at %d (fast) vs job %d at %d (literal)", seed, what, now, a.J.ID, a.Start, b.J.ID, b.Start)
				}
				if e := fast.run.Prof.EarliestFitMoving(now, a.J.Estimate, a.J.Procs, a.Start); e < a.Start {
					t.Fatalf("seed %d after %s: job %d could move from %d to %d", seed, what, a.J.ID, a.Start, e)
				}
			}
		}
		for step := 0; step < 150; step++ {
			switch k := r.IntN(10); {
			case k < 4: // submissions
				burst, p, est := 1, 1+r.IntN(procs), int64(1+r.IntN(100))
				if arrays {
					sh := shapes[r.IntN(len(shapes))]
					burst, p, est = 1+r.IntN(8), sh[0], int64(sh[1])
				}
				for range burst {
					j := &job.Request{ID: len(reqs), SWFID: int64(len(reqs)), Submit: now, Procs: p, Estimate: est}
					reqs = append(reqs, j)
					jj := *j
					fast.Insert(now, j)
					lit.Insert(now, &jj)
					litReq[j.ID] = &jj
				}
				check("insert")
			case k < 6 && len(fast.book.Wait()) > 0: // cancel waiting jobs
				// one, or on seeds divisible by 3 often several at one
				// instant (the live service's concurrent clients): their
				// released intervals are kept apart (reservation's
				// spans.go), and those apart rule out searches
				m := 1
				if seed%3 == 0 && r.IntN(2) == 0 {
					m = 2 + r.IntN(4)
				}
				for c := 0; c < m && len(fast.book.Wait()) > 0; c++ {
					e := fast.book.Wait()[r.IntN(len(fast.book.Wait()))]
					if recent && r.IntN(2) == 0 { // the newest, as a client that cancels what it just submitted
						for _, x := range fast.book.Wait() {
							if x.J.ID > e.J.ID {
								e = x
							}
						}
					}
					fast.Remove(now, e.J)
					lit.Remove(now, litReq[e.J.ID])
				}
				check("cancel")
			case k < 7 && len(running) > 0: // an early end
				i := r.IntN(len(running))
				x := running[i]
				if x.end > now {
					fast.Remove(now, x.j)
					lit.Remove(now, litReq[x.j.ID])
					running = slices.Delete(running, i, i+1)
					check("early end")
				}
			default: // time passes: ends at their estimate, then a pass
				next := now + int64(r.IntN(30))
				if len(fast.book.Wait()) > 0 {
					next = min(next, max(now, fast.book.Wait()[0].Start)) // a pass at every reservation
				}
				for _, x := range running {
					next = min(next, x.end)
				}
				now = next
				kept := running[:0]
				for _, x := range running {
					if x.end == now {
						fast.Remove(now, x.j)
						lit.Remove(now, litReq[x.j.ID])
					} else {
						kept = append(kept, x)
					}
				}
				running = kept
				var sa, sb []int
				wa := fast.Tick(now, func(j *job.Request) {
					sa = append(sa, j.ID)
					running = append(running, run{j, now + j.Estimate})
				})
				wb := lit.Tick(now, func(j *job.Request) { sb = append(sb, j.ID) })
				if !slices.Equal(sa, sb) || wa != wb {
					t.Fatalf("seed %d: pass at %d started %v (fast) vs %v (literal)", seed, now, sa, sb)
				}
				check("pass")
			}
		}
		clear(litReq)
	}
}

var litReq = map[int]*job.Request{}

// TestNewestCancelEqualsLiteral is TestCancellationsEqualLiteral on small
// machines with many early ends and cancellations of the newest waiting
// job, the case in which the compression skips the jobs submitted before
// the cancelled one (reservation's history.go): an early end, a
// cancellation of an older job or a move of one since its submission must
// make it search them again.
func TestNewestCancelEqualsLiteral(t *testing.T) {
	n := 3000
	if longtest.Short() {
		n = 300
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 23))
		procs := 2 + r.IntN(5)
		fast, lit := New(procs, Config{}), New(procs, Config{})
		lit.book.Literal = true
		type run struct {
			j, lj *job.Request
			end   int64
		}
		var running []run
		byID := map[int]*job.Request{}
		var now int64
		id := 0
		check := func(what string) {
			fast.book.Settle(now)
			lit.book.Settle(now)
			fw, lw := fast.book.Wait(), lit.book.Wait()
			if len(fw) != len(lw) {
				t.Fatalf("seed %d after %s: %d vs %d waiting", seed, what, len(fw), len(lw))
			}
			for i := range fw {
				if fw[i].J.ID != lw[i].J.ID || fw[i].Start != lw[i].Start {
					t.Fatalf("seed %d after %s at %d: job %d at %d (fast) vs job %d at %d (literal)", seed, what, now, fw[i].J.ID, fw[i].Start, lw[i].J.ID, lw[i].Start)
				}
			}
		}
		for step := 0; step < 120; step++ {
			w := fast.book.Wait()
			switch k := r.IntN(20); {
			case k < 8:
				j := &job.Request{ID: id, SWFID: int64(id + 1), Submit: now, Procs: 1 + r.IntN(procs), Estimate: int64(1 + r.IntN(20))}
				id++
				jj := *j
				byID[j.ID] = &jj
				fast.Insert(now, j)
				lit.Insert(now, &jj)
				check("insert")
			case k < 12 && len(w) > 0:
				e := w[0]
				if k < 11 { // the newest
					for _, x := range w {
						if x.J.ID > e.J.ID {
							e = x
						}
					}
				} else {
					e = w[r.IntN(len(w))]
				}
				fast.Remove(now, e.J)
				lit.Remove(now, byID[e.J.ID])
				check("cancel")
			case k < 16 && len(running) > 0:
				i := r.IntN(len(running))
				if x := running[i]; x.end > now {
					fast.Remove(now, x.j)
					lit.Remove(now, x.lj)
					running = slices.Delete(running, i, i+1)
					check("early end")
				}
			default:
				next := now + int64(1+r.IntN(5))
				if len(w) > 0 {
					next = min(next, max(now, w[0].Start))
				}
				for _, x := range running {
					next = min(next, x.end)
				}
				now = next
				kept := running[:0]
				for _, x := range running {
					if x.end == now {
						fast.Remove(now, x.j)
						lit.Remove(now, x.lj)
					} else {
						kept = append(kept, x)
					}
				}
				running = kept
				var sa, sb []int
				fast.Tick(now, func(j *job.Request) {
					sa = append(sa, j.ID)
					running = append(running, run{j, byID[j.ID], now + j.Estimate})
				})
				lit.Tick(now, func(j *job.Request) { sb = append(sb, j.ID) })
				if !slices.Equal(sa, sb) {
					t.Fatalf("seed %d: pass at %d started %v (fast) vs %v (literal)", seed, now, sa, sb)
				}
				check("pass")
			}
		}
	}
}
