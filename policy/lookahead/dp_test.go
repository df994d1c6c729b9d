package lookahead

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// brute is the reference: every subset of items, the largest use within
// free and extra; among the best, the smallest membership mask (bit i =
// item i), which is the trace-back's preference for earlier items.
func brute(items []Item, free, extra int) (int, uint64) {
	best, bestMask := -1, uint64(0)
	for m := uint64(0); m < 1<<len(items); m++ {
		tot, long := 0, 0
		for i, it := range items {
			if m&(1<<i) != 0 {
				tot += it.Size
				if it.Long {
					long += it.Size
				}
			}
		}
		if tot > free || long > extra {
			continue
		}
		if tot > best { // masks ascend, so the first best is the smallest
			best, bestMask = tot, m
		}
	}
	return best, bestMask
}

// TestSolveAgainstBruteForce: on random small queues, with and without a
// reservation, sizes small and large (bitsets of one and of several
// words), the solver's set uses as many processors as the best subset, and
// is the very subset the matrix's trace-back gives.
func TestSolveAgainstBruteForce(t *testing.T) {
	var s Solver
	n := 4000
	if longtest.Short() {
		n = 800
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		k := r.IntN(13)
		maxSize := []int{4, 16, 100, 300}[r.IntN(4)]
		free := r.IntN(3 * maxSize)
		extra := free
		reserve := r.IntN(3) > 0
		if reserve {
			extra = r.IntN(free + 2)
		}
		items := make([]Item, k)
		for i := range items {
			items[i] = Item{Size: 1 + r.IntN(maxSize), Long: reserve && r.IntN(2) == 0}
		}
		sel := make([]bool, k)
		got := s.Solve(items, free, extra, sel)
		want, mask := brute(items, free, max(0, min(extra, free)))
		if got != want {
			t.Fatalf("seed %d: items %v free %d extra %d: use %d, want %d", seed, items, free, extra, got, want)
		}
		var gm uint64
		use := 0
		for i, b := range sel {
			if b {
				gm |= 1 << i
				use += items[i].Size
			}
		}
		if use != got {
			t.Fatalf("seed %d: selected set uses %d, reported %d", seed, use, got)
		}
		if gm != mask {
			t.Fatalf("seed %d: items %v free %d extra %d: chose %b, trace-back gives %b", seed, items, free, extra, gm, mask)
		}
	}
}

func TestBitHelpers(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for it := 0; it < 2000; it++ {
		nb := 1 + r.IntN(300)
		b := make([]uint64, (nb+63)/64)
		set := map[int]bool{}
		for k := 0; k < r.IntN(10); k++ {
			i := r.IntN(nb)
			b[i/64] |= 1 << (i % 64)
			set[i] = true
		}
		x := r.IntN(nb+70) - 5
		want := -1
		for i := min(x, len(b)*64-1); i >= 0; i-- {
			if set[i] {
				want = i
				break
			}
		}
		if got := highest(b, x); got != want {
			t.Fatalf("highest(%d) = %d, want %d", x, got, want)
		}
		lo, hi := r.IntN(nb+10)-5, r.IntN(nb+70)
		any := false
		for i := range set {
			if i >= lo && i <= hi {
				any = true
			}
		}
		if got := anyIn(b, max(0, lo), hi); got != any {
			t.Fatalf("anyIn(%d, %d) = %v, want %v", lo, hi, got, any)
		}
		// shiftOr against the set
		s := r.IntN(nb + 3)
		dst := make([]uint64, len(b))
		shiftOr(dst, b, s, nb)
		for i := 0; i < len(b)*64; i++ {
			w := i < nb && (set[i] || (i-s >= 0 && set[i-s]))
			if g := dst[i/64]&(1<<(i%64)) != 0; g != w {
				t.Fatalf("shiftOr by %d: bit %d = %v, want %v", s, i, g, w)
			}
		}
	}
}

// BenchmarkSolve: one Reservation_DP over a full window of 50 jobs, at
// several machine sizes (the cost grows with the free processors / 64).
func BenchmarkSolve(b *testing.B) {
	for _, free := range []int{100, 1000, 8192} {
		b.Run(strconv.Itoa(free), func(b *testing.B) {
			r := rand.New(rand.NewPCG(1, 1))
			items := make([]Item, 50)
			for i := range items {
				items[i] = Item{Size: 1 + r.IntN(free/4+1), Long: r.IntN(2) == 0}
			}
			sel := make([]bool, len(items))
			var s Solver
			b.ReportAllocs()
			for b.Loop() {
				s.Solve(items, free, free/3, sel)
			}
		})
	}
}

// FuzzSolve: any queue of up to 12 jobs (sizes and long flags from the
// input), any capacities: the solver's set is the brute force's.
func FuzzSolve(f *testing.F) {
	f.Add([]byte{3, 5, 7, 130, 2}, uint16(10), uint16(4))
	f.Add([]byte{200, 100, 65, 64, 63, 1}, uint16(300), uint16(300))
	f.Add([]byte{}, uint16(0), uint16(0))
	var s Solver
	f.Fuzz(func(t *testing.T, raw []byte, free, extra uint16) {
		if len(raw) > 12 {
			raw = raw[:12]
		}
		items := make([]Item, len(raw))
		for i, b := range raw {
			items[i] = Item{Size: 1 + int(b&0x7f), Long: b&0x80 != 0}
		}
		F, X := int(free%600), int(extra%600)
		sel := make([]bool, len(items))
		got := s.Solve(items, F, X, sel)
		want, mask := brute(items, F, max(0, min(X, F)))
		if want < 0 {
			want = 0
		}
		var gm uint64
		for i, b := range sel {
			if b {
				gm |= 1 << i
			}
		}
		if got != want || gm != mask {
			t.Fatalf("items %v free %d extra %d: use %d set %b, want %d set %b", items, F, X, got, gm, want, mask)
		}
	})
}
