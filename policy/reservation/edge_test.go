package reservation

import (
	"math/rand/v2"
	"testing"
)

// TestEdgeSet compares edgeSet with its definition: x is freed iff some
// interval added so far, [from, to), has from ≤ x < to. Queries do not
// decrease, intervals are added between them anywhere at or after the
// last query (as a compression adds the old slots of moved jobs ahead of
// its walk), and values come from a small range so that shared ends and
// empty intervals are common; limit is start−d exactly when start−1 is
// not freed.
func TestEdgeSet(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 22))
	var s edgeSet
	for trial := range 500 {
		from0, to0 := int64(r.IntN(10)), int64(r.IntN(20))
		s.reset(true, from0, to0)
		list := [][2]int64{{from0, to0}}
		x := int64(0)
		for range r.IntN(60) {
			if r.IntN(2) == 0 {
				a := x + int64(r.IntN(30))
				b := a + int64(r.IntN(12))
				s.add(a, b)
				list = append(list, [2]int64{a, b})
				continue
			}
			x += int64(r.IntN(4))
			want := false
			for _, iv := range list {
				if iv[0] <= x && x < iv[1] {
					want = true
				}
			}
			if r.IntN(2) == 0 {
				if got := s.freed(x); got != want {
					t.Fatalf("trial %d: freed(%d) = %v, want %v (intervals %v)", trial, x, got, want, list)
				}
				continue
			}
			d := int64(r.IntN(5))
			lim := x + 1 + int64(r.IntN(5))
			wantLim := lim
			if !want {
				wantLim = min(lim, x+1-max(d, 1))
			}
			if got := s.limit(lim, d, x+1); got != wantLim {
				t.Fatalf("trial %d: limit(%d, %d, %d) = %d, want %d (intervals %v)", trial, lim, d, x+1, got, wantLim, list)
			}
		}
	}
	s.reset(false, 0, 100)
	if got := s.limit(50, 3, 10); got != 50 {
		t.Fatalf("off: limit = %d, want 50", got)
	}
}
