package easy

import (
	"math/rand/v2"
	"testing"
)

func TestMinIndexAgainstScan(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := 0; round < 200; round++ {
		size := 1 + r.IntN(100)
		var m minIndex
		m.reset(size)
		vals := make([]int, m.n)
		for i := range vals {
			vals[i] = hole
		}
		for op := 0; op < 300; op++ {
			i := r.IntN(size)
			v := hole
			if r.IntN(3) > 0 {
				v = 1 + r.IntN(20)
			}
			m.set(i, v)
			vals[i] = v
			from, x := r.IntN(size+2), r.IntN(22)
			want := -1
			for k := from; k < len(vals); k++ {
				if vals[k] <= x {
					want = k
					break
				}
			}
			if got := m.firstAtMost(from, x); got != want {
				t.Fatalf("round %d: firstAtMost(%d, %d) = %d, want %d (%v)", round, from, x, got, want, vals)
			}
		}
	}
}
