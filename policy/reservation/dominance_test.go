package reservation

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestClass checks the classes of foundGrid: consecutive intervals in
// increasing order, each value below 16 alone, and below(x) the largest
// class whose values are all ≤ x.
func TestClass(t *testing.T) {
	prev := -1
	for x := int64(0); x < 1<<16; x++ {
		c := class(x)
		if c != prev && c != prev+1 {
			t.Fatalf("class(%d) = %d after %d", x, c, prev)
		}
		if x < 16 && c != int(x) {
			t.Fatalf("class(%d) = %d", x, c)
		}
		prev = c
		// every value of a class ≤ below(x) is ≤ x: the class of x+1 is
		// above it
		if b := below(x); b >= class(x+1) || b+1 != class(x+1) {
			t.Fatalf("below(%d) = %d, class(%d) = %d", x, b, x+1, class(x+1))
		}
	}
	// by hand: 16 and 17 share a class (16 + 0), 18 and 19 the next
	if class(16) != 16 || class(17) != 16 || class(18) != 17 || below(16) != 15 || below(17) != 16 {
		t.Fatalf("class(16..18) = %d %d %d, below(16), below(17) = %d %d", class(16), class(17), class(18), below(16), below(17))
	}
	if class(math.MaxInt64) <= class(1<<62) {
		t.Fatal("class of the largest value")
	}
}

// TestFoundGridBound compares foundGrid.bound with a brute force over the
// fits added: the largest over those whose classes are both at or below
// the query's below, each of which is dominated (n' ≤ n, d' ≤ d).
func TestFoundGridBound(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	var g foundGrid
	for pass := 0; pass < 50; pass++ {
		procs := 1 + r.IntN(3000)
		g.reset(procs)
		var fits []query[int]
		for step := 0; step < 300; step++ {
			if r.IntN(3) == 0 {
				f := query[int]{n: r.IntN(procs + 1), d: int64(r.IntN(100000)), after: int64(r.IntN(1 << 20))}
				if r.IntN(10) == 0 {
					f.d = durCap + int64(r.IntN(100)) // not kept
				}
				g.add(f.n, f.d, f.after)
				fits = append(fits, f)
				continue
			}
			n, d := r.IntN(procs+1), int64(r.IntN(120000))
			want := int64(math.MinInt64)
			for _, f := range fits {
				if f.d < durCap && class(int64(f.n)) <= below(int64(n)) && class(f.d) <= below(d) {
					if f.n > n || f.d > d {
						t.Fatalf("fit (%d, %d) counted for a query (%d, %d)", f.n, f.d, n, d)
					}
					want = max(want, f.after)
				}
			}
			if got := g.bound(n, d); got != want {
				t.Fatalf("pass %d: bound(%d, %d) = %d, want %d", pass, n, d, got, want)
			}
		}
	}
}
