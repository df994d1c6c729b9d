package reservation

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestRingBounds compares the ring's bounds with their definitions over a
// list that keeps the last maxFailed queries put since the reset: failBound
// is the latest limit of a remembered failure with no more processors, no
// longer duration and a search from no later (f.after ≤ q.after), foundBound
// the latest start (after) of a remembered fit with no more processors and
// no longer duration, both math.MinInt64 when none qualifies. Values are
// drawn from small ranges so that ties (equal processors, durations and
// starts) are common. The compression tests cannot catch a failBound that
// reverses the test on the search's start (f.after ≥ q.after): it drops
// valid bounds (a cost only) and, for a job q dominated by an earlier
// failed job f whose search started later, skips the starts t in
// [q.after, f.after) too, and none of them fits
// q's job while every reservation was an earliest fit before the event
// (the book's invariant). f's window [t, t+f.d) ends at or before the
// freed instant of f's search, so at the start of the pass f's job was
// blocked there, at an instant x before its reservation (its own slot
// covers the rest); nothing released in the pass reaches x (old slots of
// jobs before f start at that freed instant or later, those after f at f's
// reservation or later), so x still has fewer than f.n ≤ q.n free, and x
// lies in q's window, before q's reservation. So only this direct test
// sees the mutation.
func TestRingBounds(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 52))
	var rg ring
	for trial := range 400 {
		rg.reset()
		var list []query[int]
		for range r.IntN(3 * maxFailed) {
			q := query[int]{n: 1 + r.IntN(6), d: int64(1 + r.IntN(6)), after: int64(r.IntN(8)), limit: int64(r.IntN(20))}
			rg.put(q)
			list = append(list, q)
			if len(list) > maxFailed {
				list = list[1:]
			}
			for range 8 {
				p := query[int]{n: 1 + r.IntN(6), d: int64(1 + r.IntN(6)), after: int64(r.IntN(8))}
				wantFail, wantFound := int64(math.MinInt64), int64(math.MinInt64)
				for _, f := range list {
					if f.n <= p.n && f.d <= p.d {
						wantFound = max(wantFound, f.after)
						if f.after <= p.after {
							wantFail = max(wantFail, f.limit)
						}
					}
				}
				if got := rg.failBound(p); got != wantFail {
					t.Fatalf("trial %d: failBound(%+v) = %d, want %d (remembered %+v)", trial, p, got, wantFail, list)
				}
				if got := rg.foundBound(p); got != wantFound {
					t.Fatalf("trial %d: foundBound(%+v) = %d, want %d (remembered %+v)", trial, p, got, wantFound, list)
				}
			}
		}
	}
}
