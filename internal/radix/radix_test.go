package radix

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func TestSortInt64(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	gens := map[string]func() int64{
		"small":    func() int64 { return r.Int64N(100) },
		"waits":    func() int64 { return r.Int64N(300000) },
		"signed":   func() int64 { return r.Int64N(2000) - 1000 },
		"full":     func() int64 { return int64(r.Uint64()) },
		"extremes": func() int64 { return []int64{math.MinInt64, math.MaxInt64, 0, -1, 1}[r.IntN(5)] },
		"equal":    func() int64 { return 7 },
	}
	for name, g := range gens {
		for _, n := range []int{0, 1, 2, 3, 47, 48, 49, 1000, 30000} {
			a := make([]int64, n)
			for i := range a {
				a[i] = g()
			}
			want := slices.Clone(a)
			slices.Sort(want)
			SortInt64(a)
			if !slices.Equal(a, want) {
				t.Fatalf("%s n=%d: not sorted as slices.Sort", name, n)
			}
		}
	}
}

// TestSortStable sorts keys in the high bits with their input position
// below: equal keys must keep input order, so the result is the
// whole values sorted.
func TestSortStable(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, keyBits := range []uint{1, 5, 11, 12, 23, 25, 33, 48} {
		for _, n := range []int{2, 40, 100, 5000} {
			a := make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64()&(1<<keyBits-1)<<16 | uint64(i)
			}
			want := slices.Clone(a)
			slices.Sort(want)
			Sort(a, 16, 16+keyBits)
			if !slices.Equal(a, want) {
				t.Fatalf("key bits %d, n=%d: not a stable sort by key", keyBits, n)
			}
		}
	}
	// bits above hi are ignored: only the key orders
	a := []uint64{1<<60 | 2, 1, 1<<61 | 0}
	Sort(a, 0, 8)
	if !slices.Equal(a, []uint64{1<<61 | 0, 1, 1<<60 | 2}) {
		t.Fatalf("Sort by the low 8 bits: %x", a)
	}
	full := []uint64{math.MaxUint64, 0, 1 << 63, 5}
	b := slices.Clone(full)
	Sort(b, 0, 64)
	slices.Sort(full)
	if !slices.Equal(b, full) {
		t.Fatalf("Sort by 64 bits: %x", b)
	}
}

func BenchmarkSortInt64(b *testing.B) {
	r := rand.New(rand.NewPCG(5, 6))
	src := make([]int64, 30000)
	for i := range src {
		src[i] = r.Int64N(1 << 25)
	}
	a := make([]int64, len(src))
	b.Run("radix", func(b *testing.B) {
		for b.Loop() {
			copy(a, src)
			SortInt64(a)
		}
	})
	b.Run("slices", func(b *testing.B) {
		for b.Loop() {
			copy(a, src)
			slices.Sort(a)
		}
	})
}
