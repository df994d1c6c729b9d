// Package fitindex is an index of a waiting queue by job size and
// duration, for the backfill scans of the EASY family: "the first
// position at or after i whose job can start now".
//
// Index is a segment tree over queue positions. Its main question is
// EASY's backfill test in one descent (Next): the first position ≥ i
// whose job's size n and (planned) duration d satisfy
//
//	n ≤ a  or  (n ≤ f and d ≤ D)
//
// with a = min(free, extra nodes), f = free and D = shadow − now (the
// paper's criteria (2) and (1)). A pass then costs O(log Q) per job it
// starts plus one descent, instead of a step for every waiting job no
// larger than the free processors: in a queue that grows with the
// workload (Lublin at load 0.9: a mean of 2,700 waiting jobs over 1M
// jobs, docs/PERFORMANCE.md), most of those are long and wider than the
// extra nodes, and none of them can start. NextFit asks the same of any
// antitone test (lookahead's window, multiple-queue's partitions), and
// NextAtMost is the size test alone.
//
// Each node keeps the minimal (size, duration) points of its subtree —
// the points no other point beats in both — sorted by increasing size
// (so decreasing duration), at most frontCap of them. When there are more,
// the last ones are replaced by one corner point (the smallest of their
// sizes, the smallest of their durations), which is no larger in either
// than any point it replaces: a node's test may then say "perhaps" where
// no job matches, and the descent goes on to the next subtree, but it
// never says "no" where one does. Leaves hold one job exactly, so the
// answer is always exact; only its cost depends on the truncation.
package fitindex

import "math"

// Index is the segment tree; the zero value must be Reset before use.
type Index struct {
	n     int     // leaves (a power of two)
	nodes []front // nodes[1] is the root; leaves at n..2n-1
}

// frontCap is the number of minimal points a node keeps exactly.
const frontCap = 4

// front is the minimal (size, duration) points of a subtree, by
// increasing size and strictly decreasing duration; k = 0 for a subtree
// of holes.
type front struct {
	k int
	n [frontCap]int
	d [frontCap]int64
}

// Reset sizes the index for at least capacity positions, all holes.
func (x *Index) Reset(capacity int) {
	n := 1
	for n < capacity {
		n *= 2
	}
	x.n = n
	if cap(x.nodes) >= 2*n {
		x.nodes = x.nodes[:2*n]
		clear(x.nodes)
	} else {
		x.nodes = make([]front, 2*n)
	}
}

// Len is the number of positions (a power of two ≥ the capacity asked).
func (x *Index) Len() int { return x.n }

// Set puts a job of size n and duration d at position i.
func (x *Index) Set(i, n int, d int64) {
	k := i + x.n
	x.nodes[k] = front{k: 1, n: [frontCap]int{n}, d: [frontCap]int64{d}}
	x.up(k)
}

// Clear makes position i a hole.
func (x *Index) Clear(i int) {
	k := i + x.n
	x.nodes[k] = front{}
	x.up(k)
}

// up recomputes the ancestors of node k, stopping at the first that does
// not change (the ones above depend only on it and its sibling).
func (x *Index) up(k int) {
	for k > 1 {
		k /= 2
		f := merge(&x.nodes[2*k], &x.nodes[2*k+1])
		if f == x.nodes[k] {
			return
		}
		x.nodes[k] = f
	}
}

// Put writes a job of size n and duration d at position i without
// updating the nodes above; call Build after the last Put.
func (x *Index) Put(i, n int, d int64) {
	x.nodes[i+x.n] = front{k: 1, n: [frontCap]int{n}, d: [frontCap]int64{d}}
}

// Build recomputes every inner node from the leaves (after Put).
func (x *Index) Build() {
	for k := x.n - 1; k >= 1; k-- {
		x.nodes[k] = merge(&x.nodes[2*k], &x.nodes[2*k+1])
	}
}

// merge is the front of the union of two subtrees.
func merge(l, r *front) front {
	if r.k == 0 {
		return *l
	}
	if l.k == 0 {
		return *r
	}
	var out front
	var ns [2 * frontCap]int
	var ds [2 * frontCap]int64
	m := 0
	a, b := 0, 0
	for a < l.k || b < r.k {
		var n int
		var d int64
		if b == r.k || (a < l.k && (l.n[a] < r.n[b] || (l.n[a] == r.n[b] && l.d[a] <= r.d[b]))) {
			n, d = l.n[a], l.d[a]
			a++
		} else {
			n, d = r.n[b], r.d[b]
			b++
		}
		if m > 0 && d >= ds[m-1] {
			continue // beaten by a point no larger
		}
		ns[m], ds[m] = n, d
		m++
	}
	if m > frontCap {
		// the corner of the last points: their smallest size (the first
		// of them) and smallest duration (the last)
		ds[frontCap-1] = ds[m-1]
		m = frontCap
	}
	out.k = m
	copy(out.n[:], ns[:m])
	copy(out.d[:], ds[:m])
	return out
}

// may says whether the subtree may hold a job with n ≤ a, or with n ≤ f
// and d ≤ dur (exactly for a leaf).
func (fr *front) may(a, f int, dur int64) bool {
	if fr.k == 0 {
		return false
	}
	if fr.n[0] <= a {
		return true
	}
	// the point with the largest size ≤ f has the smallest duration
	// among those no larger than f
	last := -1
	for p := 0; p < fr.k && fr.n[p] <= f; p++ {
		last = p
	}
	return last >= 0 && fr.d[last] <= dur
}

// Next is the first position ≥ i whose job has size ≤ a, or size ≤ f and
// duration ≤ dur; -1 if none. O(log Q) when the fronts on the way are
// exact.
func (x *Index) Next(i, a, f int, dur int64) int {
	if i >= x.n {
		return -1
	}
	return x.find(1, 0, x.n, i, a, f, dur)
}

func (x *Index) find(k, lo, hi, i, a, f int, dur int64) int {
	if hi <= i || !x.nodes[k].may(a, f, dur) {
		return -1
	}
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	if r := x.find(2*k, lo, mid, i, a, f, dur); r >= 0 {
		return r
	}
	return x.find(2*k+1, mid, hi, i, a, f, dur)
}

// NextAtMost is the first position ≥ i whose job has size ≤ a, or -1.
func (x *Index) NextAtMost(i, a int) int { return x.Next(i, a, a, math.MinInt64) }

// NextFit is the first position ≥ i whose job (size n, duration d) has
// fits(n, d), or -1. fits must be antitone: fits(n, d) implies fits(n',
// d') for every n' ≤ n and d' ≤ d (e.g. "n is at most what the machine
// can give for d"). A subtree is entered only if fits holds for one of its
// minimal points, one of which every job it holds dominates.
func (x *Index) NextFit(i int, fits func(n int, d int64) bool) int {
	if i >= x.n {
		return -1
	}
	return x.findFit(1, 0, x.n, i, fits)
}

func (x *Index) findFit(k, lo, hi, i int, fits func(int, int64) bool) int {
	if hi <= i {
		return -1
	}
	fr := &x.nodes[k]
	ok := false
	for p := 0; p < fr.k && !ok; p++ {
		ok = fits(fr.n[p], fr.d[p])
	}
	if !ok {
		return -1
	}
	if hi-lo == 1 {
		return lo
	}
	mid := (lo + hi) / 2
	if r := x.findFit(2*k, lo, mid, i, fits); r >= 0 {
		return r
	}
	return x.findFit(2*k+1, mid, hi, i, fits)
}
