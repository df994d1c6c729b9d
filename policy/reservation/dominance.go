package reservation

import (
	"math"
	"math/bits"
)

// foundGrid keeps every earliest fit found in one compression pass, for
// the bound foundBound gives (a job's earliest fit is no earlier than the
// one found, in the same pass, for a job earlier in the waiting list with
// no more processors and no longer duration), answered for all of them at
// once instead of for the last maxFailed: near saturation, after a front
// cancellation of a long queue, most of the queue moves and the last few
// fits rarely dominate, so a search would otherwise start at the released
// capacity and cross the whole packed schedule up to the job's own
// reservation.
//
// Amounts and durations are put in classes (every value below 16 a class
// of its own, then 8 classes per doubling); a query for (n, d) takes the
// largest fit over the classes whose values are all ≤ n and ≤ d — the
// entries of n's or d's own class that it would also dominate are left to
// the exact list of the last maxFailed (foundBound). A two-dimensional
// Fenwick tree of maxima over the classes answers in O(log² classes); the
// fits are added lazily, at the first query after them (most passes never
// ask: the grid is only consulted by searches that crossed many blocking
// runs, compressScalar), and the grid is emptied between passes by a
// generation count, not by clearing.
type foundGrid struct {
	procs   int // the machine's processors (the largest amount)
	nc, dc  int // classes of amounts, of durations
	cell    []gridCell
	gen     uint32
	pending []query[int] // fits of the pass not yet in cell
}

type gridCell struct {
	t   int64
	gen uint32
}

// gridClasses is the number of classes of values in [0, max]: see class.
func gridClasses(max int64) int { return class(max) + 1 }

// class is the class of x ≥ 0: x itself below 16, then 8 classes per
// doubling (the top three bits after the leading one). Classes are
// consecutive intervals of values, in increasing order.
func class(x int64) int {
	if x < 16 {
		return int(max(x, 0))
	}
	e := bits.Len64(uint64(x)) - 1 // 2^e ≤ x < 2^(e+1), e ≥ 4
	m := int(x>>(e-3)) & 7
	return 16 + (e-4)*8 + m
}

// below is the largest class whose values are all ≤ x (−1 if none): the
// class just before the class of x+1.
func below(x int64) int {
	if x >= math.MaxInt64-1 {
		return class(x) - 1
	}
	return class(x+1) - 1
}

// durCap is the duration beyond which fits are not kept in the grid (two
// years): their class would never be strictly below a query's.
const durCap = 1 << 26

// reset empties the grid for a pass on a machine of procs processors;
// the cells are allocated at the first query.
func (g *foundGrid) reset(procs int) {
	if procs != g.procs {
		g.procs, g.cell = procs, nil
	}
	g.gen++
	if g.gen == 0 { // wrapped: clear for real
		clear(g.cell)
		g.gen = 1
	}
	g.pending = g.pending[:0]
}

// add records a fit at t for a job of n processors and duration d.
func (g *foundGrid) add(n int, d, t int64) {
	if d < durCap && n >= 0 {
		g.pending = append(g.pending, query[int]{n: n, d: d, after: t})
	}
}

// bound is the latest fit recorded for a job whose class of processors and
// of duration are both strictly dominated by (n, d): a lower bound on the
// earliest fit of the job (n, d), or math.MinInt64.
func (g *foundGrid) bound(n int, d int64) int64 {
	if g.cell == nil {
		g.nc, g.dc = gridClasses(int64(g.procs)), gridClasses(durCap)
		g.cell = make([]gridCell, g.nc*g.dc)
	}
	for _, f := range g.pending {
		g.put(class(int64(f.n)), class(f.d), f.after)
	}
	g.pending = g.pending[:0]
	i := min(below(int64(n)), g.nc-1)
	j := min(below(d), g.dc-1)
	best := int64(math.MinInt64)
	for x := i + 1; x > 0; x -= x & -x {
		row := g.cell[(x-1)*g.dc:]
		for y := j + 1; y > 0; y -= y & -y {
			if c := row[y-1]; c.gen == g.gen && c.t > best {
				best = c.t
			}
		}
	}
	return best
}

// put raises the prefix maxima from class (i, j) on to t.
func (g *foundGrid) put(i, j int, t int64) {
	if i >= g.nc {
		return // more than the machine: never a job that can move
	}
	for x := i + 1; x <= g.nc; x += x & -x {
		row := g.cell[(x-1)*g.dc:]
		for y := j + 1; y <= g.dc; y += y & -y {
			c := &row[y-1]
			if c.gen != g.gen || c.t < t {
				c.t, c.gen = t, g.gen
			}
		}
	}
}
