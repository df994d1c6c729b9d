package reservation

import "math"

// skipIndex answers, over the waiting list of one compression pass (from
// a base position on), "the first position ≥ p whose job needs fewer than
// n processors" and "… whose duration is shorter than d": two segment
// trees of minima (a complete binary tree over a power of two of leaves,
// root at 1), each query O(log Q). The compression builds it once per
// pass, when it first has a reason to skip (a failure that dominates
// later jobs, or the filter's bound for the jobs after the released
// capacity), and jumps over the jobs that cannot move instead of visiting
// them one by one (compressScalar, skip).
type skipIndex struct {
	base, m, size int     // positions [base, base+m); size leaves
	need          []int   // processors (the scalar compression)
	needs         [][]int // one tree per resource (compressVector)
	dur           []int64
}

// build indexes w[base:].
func buildSkip[X any](ix *skipIndex, w []*Entry[int, X], base int) {
	m := len(w) - base
	size := 1
	for size < m {
		size <<= 1
	}
	ix.base, ix.m, ix.size = base, m, size
	if cap(ix.need) < 2*size {
		ix.need, ix.dur = make([]int, 2*size), make([]int64, 2*size)
	}
	ix.need, ix.dur = ix.need[:2*size], ix.dur[:2*size]
	for k := range size {
		if k < m {
			e := w[base+k]
			ix.need[size+k], ix.dur[size+k] = e.Need, e.Dur
		} else {
			ix.need[size+k], ix.dur[size+k] = math.MaxInt, math.MaxInt64
		}
	}
	for x := size - 1; x >= 1; x-- {
		ix.need[x] = min(ix.need[2*x], ix.need[2*x+1])
		ix.dur[x] = min(ix.dur[2*x], ix.dur[2*x+1])
	}
}

// firstBelow is the first leaf k ≥ p (relative) with v[size+k] < bound, or
// m; v is one of the trees.
func firstBelow[T int | int64](v []T, size, m, p int, bound T) int {
	if p >= m {
		return m
	}
	x := p + size
	for v[x] >= bound {
		for x&1 == 1 { // a right child (or the root): up
			x >>= 1
		}
		if x == 0 {
			return m
		}
		x++ // the next subtree to the right
	}
	for x < size {
		x <<= 1
		if v[x] >= bound {
			x++
		}
	}
	return min(x-size, m)
}

// needBelow is the first position ≥ p (absolute) whose job needs fewer
// than n processors, or the end of the list.
func (ix *skipIndex) needBelow(p, n int) int {
	return ix.base + firstBelow(ix.need, ix.size, ix.m, p-ix.base, n)
}

// durBelow is the first position ≥ p whose job is shorter than d.
func (ix *skipIndex) durBelow(p int, d int64) int {
	return ix.base + firstBelow(ix.dur, ix.size, ix.m, p-ix.base, d)
}

// buildSkipVector indexes w[base:] for vectors: a tree of the least
// requirement per resource (needs) and the one of durations.
func buildSkipVector[X any](ix *skipIndex, w []*Entry[[]int, X], base, k int) {
	m := len(w) - base
	size := 1
	for size < m {
		size <<= 1
	}
	ix.base, ix.m, ix.size = base, m, size
	if len(ix.needs) != k {
		ix.needs = make([][]int, k)
	}
	for r := range ix.needs {
		ix.needs[r] = grow(ix.needs[r], 2*size)
	}
	if cap(ix.dur) < 2*size {
		ix.dur = make([]int64, 2*size)
	}
	ix.dur = ix.dur[:2*size]
	for x := range size {
		if x < m {
			e := w[base+x]
			for r, v := range e.Need {
				ix.needs[r][size+x] = v
			}
			ix.dur[size+x] = e.Dur
		} else {
			for r := range ix.needs {
				ix.needs[r][size+x] = math.MaxInt
			}
			ix.dur[size+x] = math.MaxInt64
		}
	}
	for x := size - 1; x >= 1; x-- {
		for _, t := range ix.needs {
			t[x] = min(t[2*x], t[2*x+1])
		}
		ix.dur[x] = min(ix.dur[2*x], ix.dur[2*x+1])
	}
}

func grow(s []int, n int) []int {
	if cap(s) < n {
		return make([]int, n)
	}
	return s[:n]
}

// needBelowK is needBelow in resource r of a vector index.
func (ix *skipIndex) needBelowK(r, p, n int) int {
	return ix.base + firstBelow(ix.needs[r], ix.size, ix.m, p-ix.base, n)
}
