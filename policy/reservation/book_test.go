package reservation

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// TestVectorCompressEqualsLiteral drives two books of requirement vectors
// (K = 1 to 3 resources) through the same random submissions,
// cancellations, early ends and passes: one compresses (Compress, with the
// freed and released bounds and the memory of failed searches), the other
// re-places every reservation in order (Literal). After every event the
// waiting lists must agree job by job, and no reservation of the fast book
// may be able to move earlier (each is an earliest fit given the others).
// On every other seed the jobs come in bursts of identical ones, so that
// runs of identical reservations move together.
// Package conservative's TestCancellationsEqualLiteral is the scalar case.
func TestVectorCompressEqualsLiteral(t *testing.T) {
	n := 200
	if longtest.Short() {
		n = 50
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 77))
		k := 1 + r.IntN(3)
		caps := make([]int, k)
		for i := range caps {
			caps[i] = 1 + r.IntN(16)
		}
		randNeed := func() []int {
			need := make([]int, k)
			need[0] = 1 + r.IntN(caps[0])
			for i := 1; i < k; i++ {
				need[i] = r.IntN(caps[i] + 1)
			}
			return need
		}
		// on even seeds the jobs come from three shapes, in bursts of up
		// to 8 identical ones (job arrays: runs of identical reservations)
		arrays := seed%2 == 0
		type shape struct {
			need []int
			est  int64
		}
		var shapes [3]shape
		for i := range shapes {
			shapes[i] = shape{randNeed(), int64(1 + r.IntN(40))}
			shapes[i].need[0] = 1 + r.IntN(max(1, caps[0]/3))
		}
		type side struct {
			run  *policy.RunningK
			book *Book[[]int, struct{}]
		}
		mk := func(literal bool) side {
			run, err := policy.NewRunningK(caps)
			if err != nil {
				t.Fatal(err)
			}
			b := NewVector[struct{}]("test", run)
			b.Literal = literal
			return side{run, b}
		}
		fast, lit := mk(false), mk(true)
		both := [2]side{fast, lit}
		type running struct {
			j   *job.Request
			end int64
		}
		var run []running
		var now int64
		check := func(what string) {
			for _, s := range both {
				s.book.Settle(now)
			}
			a, b := fast.book.Wait(), lit.book.Wait()
			if len(a) != len(b) {
				t.Fatalf("seed %d after %s: %d vs %d waiting", seed, what, len(a), len(b))
			}
			for i := range a {
				if a[i].J.ID != b[i].J.ID || a[i].Start != b[i].Start {
					t.Fatalf("seed %d (K=%d) after %s at %d: job %d at %d (fast) vs job %d at %d (literal)", seed, k, what, now, a[i].J.ID, a[i].Start, b[i].J.ID, b[i].Start)
				}
				if e := fast.run.Prof.EarliestFitMoving(now, a[i].Dur, a[i].Need, a[i].Start); e < a[i].Start {
					t.Fatalf("seed %d after %s: job %d could move from %d to %d", seed, what, a[i].J.ID, a[i].Start, e)
				}
			}
		}
		nextID := 0
		for step := 0; step < 150; step++ {
			switch c := r.IntN(10); {
			case c < 4: // a submission, or a burst of identical ones
				need, est := randNeed(), int64(1+r.IntN(100))
				burst := 1
				if arrays {
					sh := shapes[r.IntN(len(shapes))]
					need, est, burst = sh.need, sh.est, 1+r.IntN(8)
				}
				for range burst {
					j := &job.Request{ID: nextID, SWFID: int64(nextID), Submit: now, Procs: need[0], Estimate: est}
					nextID++
					for _, s := range both {
						s.book.Settle(now)
						s.book.Add(now, j, slices.Clone(need), j.Estimate, struct{}{})
					}
				}
				check("insert")
			case c < 6 && fast.book.Len() > 0: // a cancellation
				e := fast.book.Wait()[r.IntN(fast.book.Len())]
				for _, s := range both {
					s.book.Remove(now, e.J)
				}
				check("cancel")
			case c < 7 && len(run) > 0: // an early end
				i := r.IntN(len(run))
				if run[i].end > now {
					for _, s := range both {
						s.book.Remove(now, run[i].j)
					}
					run = slices.Delete(run, i, i+1)
					check("early end")
				}
			default: // time passes: ends at the estimates, then a pass
				next := now + int64(r.IntN(30))
				if fast.book.Len() > 0 {
					next = min(next, max(now, fast.book.Wait()[0].Start))
				}
				for _, x := range run {
					next = min(next, x.end)
				}
				now = next
				kept := run[:0]
				for _, x := range run {
					if x.end == now {
						for _, s := range both {
							s.book.Remove(now, x.j)
						}
					} else {
						kept = append(kept, x)
					}
				}
				run = kept
				var started [2][]int
				var wake [2]int64
				for i, s := range both {
					s.book.Settle(now)
					wake[i] = s.book.Pass(now, func(e *Entry[[]int, struct{}]) {
						started[i] = append(started[i], e.J.ID)
						if i == 0 {
							run = append(run, running{e.J, now + e.Dur})
						}
					})
				}
				if !slices.Equal(started[0], started[1]) || wake[0] != wake[1] {
					t.Fatalf("seed %d: pass at %d started %v (fast) vs %v (literal), wake %d vs %d", seed, now, started[0], started[1], wake[0], wake[1])
				}
				check("pass")
			}
		}
	}
}
