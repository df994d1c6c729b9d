package fitindex

import (
	"math/rand/v2"
	"testing"
)

// TestAgainstScan checks Index.Next, NextAtMost and NextFit against a scan of the
// positions, on random sizes and durations with few distinct values (so
// that ties and fronts longer than frontCap, the truncated corners, are
// common) after random sets, clears and rebuilds.
func TestAgainstScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	type slot struct {
		ok bool
		n  int
		d  int64
	}
	for round := 0; round < 300; round++ {
		size := 1 + r.IntN(120)
		var x Index
		x.Reset(size)
		vals := make([]slot, x.n)
		for op := 0; op < 300; op++ {
			i := r.IntN(size)
			switch {
			case r.IntN(3) == 0:
				x.Clear(i)
				vals[i] = slot{}
			default:
				n, d := 1+r.IntN(16), int64(1+r.IntN(16))
				x.Set(i, n, d)
				vals[i] = slot{true, n, d}
			}
			if r.IntN(50) == 0 {
				// rebuild from the leaves, as the queues do
				x.Reset(size)
				for k, v := range vals {
					if v.ok {
						x.Put(k, v.n, v.d)
					}
				}
				x.Build()
			}
			for q := 0; q < 3; q++ {
				from, a, f, dur := r.IntN(size+2), r.IntN(18), r.IntN(18), int64(r.IntN(18))
				want := -1
				for k := from; k < len(vals); k++ {
					if v := vals[k]; v.ok && (v.n <= a || (v.n <= f && v.d <= dur)) {
						want = k
						break
					}
				}
				if got := x.Next(from, a, f, dur); got != want {
					t.Fatalf("round %d: Next(%d, a=%d, f=%d, d=%d) = %d, want %d (%v)", round, from, a, f, dur, got, want, vals)
				}
				fits := func(n int, d int64) bool { return n <= a || (n <= f && d <= dur) }
				if got := x.NextFit(from, fits); got != want {
					t.Fatalf("round %d: NextFit(%d, a=%d, f=%d, d=%d) = %d, want %d (%v)", round, from, a, f, dur, got, want, vals)
				}
				want = -1
				for k := from; k < len(vals); k++ {
					if v := vals[k]; v.ok && v.n <= a {
						want = k
						break
					}
				}
				if got := x.NextAtMost(from, a); got != want {
					t.Fatalf("round %d: NextAtMost(%d, %d) = %d, want %d (%v)", round, from, a, got, want, vals)
				}
			}
		}
	}
}

// TestFrontMinimal checks that merge keeps exactly the minimal points
// while they fit in frontCap, and a corner no larger than the points it
// replaces otherwise.
func TestFrontMinimal(t *testing.T) {
	l := front{k: 3, n: [frontCap]int{1, 4, 8}, d: [frontCap]int64{90, 50, 10}}
	r := front{k: 3, n: [frontCap]int{2, 4, 16}, d: [frontCap]int64{95, 40, 5}}
	got := merge(&l, &r)
	// minimal points: (1,90) (4,40) (8,10) (16,5); (2,95) and (4,50) are beaten
	want := front{k: 4, n: [frontCap]int{1, 4, 8, 16}, d: [frontCap]int64{90, 40, 10, 5}}
	if got != want {
		t.Fatalf("merge = %+v, want %+v", got, want)
	}
	r2 := front{k: 2, n: [frontCap]int{3, 32}, d: [frontCap]int64{60, 1}}
	got = merge(&want, &r2)
	// minimal: (1,90) (3,60) (4,40) (8,10) (16,5) (32,1): five past the
	// cap, the last three become the corner (8, 1)
	want = front{k: 4, n: [frontCap]int{1, 3, 4, 8}, d: [frontCap]int64{90, 60, 40, 1}}
	if got != want {
		t.Fatalf("merge past the cap = %+v, want %+v", got, want)
	}
}
