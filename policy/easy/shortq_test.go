package easy

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// TestShortQueueAgainstSlice checks the treap against a sorted slice:
// random insertions and removals with few distinct durations and sizes
// (ties by ID), then next from random keys and limits, and the in-order
// listing.
func TestShortQueueAgainstSlice(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	type item struct {
		j *job.Request
		d int64
	}
	for round := 0; round < 200; round++ {
		var q shortQueue
		var ref []item
		id := 0
		for op := 0; op < 200; op++ {
			if len(ref) > 0 && r.IntN(3) == 0 {
				k := r.IntN(len(ref))
				if !q.remove(ref[k].j, ref[k].d) {
					t.Fatalf("round %d: remove of job %d failed", round, ref[k].j.ID)
				}
				ref = slices.Delete(ref, k, k+1)
				if q.remove(&job.Request{ID: -5}, 3) {
					t.Fatal("remove of an absent job succeeded")
				}
			} else {
				j := &job.Request{ID: id, Procs: 1 + r.IntN(8)}
				id++
				d := int64(r.IntN(10))
				q.insert(j, d)
				ref = append(ref, item{j, d})
			}
			slices.SortFunc(ref, func(a, b item) int {
				if a.d != b.d {
					return int(a.d - b.d)
				}
				return a.j.ID - b.j.ID
			})
			if q.Len() != len(ref) {
				t.Fatalf("round %d: Len %d, want %d", round, q.Len(), len(ref))
			}
			k := skey{int64(r.IntN(12)) - 1, r.IntN(id+2) - 1}
			if r.IntN(5) == 0 {
				k = beforeAll
			}
			x := r.IntN(9)
			var want *job.Request
			for _, it := range ref {
				if k.less(it.d, it.j.ID) && it.j.Procs <= x {
					want = it.j
					break
				}
			}
			if got, _ := q.next(k, x); got != want {
				t.Fatalf("round %d: next(%v, %d) = %v, want %v", round, k, x, got, want)
			}
		}
		// a walk with limits that only fall gives the jobs of the
		// slice, in order, that fit the limit of their step
		w := q.walk(nil)
		x := 9
		next := 0
		for {
			x = max(0, x-r.IntN(2))
			j, _ := w.next(x)
			var want *job.Request
			for next < len(ref) {
				it := ref[next]
				next++
				if it.j.Procs <= x {
					want = it.j
					break
				}
			}
			if j != want {
				t.Fatalf("round %d: walk step at limit %d = %v, want %v", round, x, j, want)
			}
			if j == nil {
				break
			}
		}
		list := q.appendTo(nil)
		for i, it := range ref {
			if list[i] != it.j {
				t.Fatalf("round %d: in-order listing differs at %d", round, i)
			}
		}
	}
}
