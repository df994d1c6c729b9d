package easy

import (
	"math"

	"github.com/backfill-hpc/backfill/job"
)

// shortQueue is the waiting jobs of order sjbf and sjf by (planned
// duration, ID): a treap whose nodes also keep the least size of their
// subtree, so that the backfill scan asks "the first job after this one,
// shortest first, that needs at most x processors" in O(log Q) expected,
// instead of stepping over every job too wide for the free processors.
// Insertion and removal are O(log Q) expected (the sorted slice it
// replaces cost O(Q) per insertion and per pass that started a job).
// The shape depends on a fixed pseudo-random sequence, the answers only
// on the keys.
type shortQueue struct {
	nodes []snode // nodes[0] is the empty tree
	spare []int32 // free node indices
	root  int32
	rng   uint64
	n     int
}

type snode struct {
	d     int64 // planned duration
	id    int   // job ID
	procs int
	minp  int // least procs in the subtree
	pri   uint32
	l, r  int32
	j     *job.Request
}

// skey is a position in the (duration, ID) order.
type skey struct {
	d  int64
	id int
}

// beforeAll is a key before every job.
var beforeAll = skey{math.MinInt64, math.MinInt}

func (k skey) less(d int64, id int) bool { return k.d < d || (k.d == d && k.id < id) }

// Len is the number of jobs.
func (q *shortQueue) Len() int { return q.n }

func (q *shortQueue) pull(t int32) {
	x := &q.nodes[t]
	m := x.procs
	if x.l != 0 {
		m = min(m, q.nodes[x.l].minp)
	}
	if x.r != 0 {
		m = min(m, q.nodes[x.r].minp)
	}
	x.minp = m
}

// split cuts t into the keys before k and the others.
func (q *shortQueue) split(t int32, k skey) (int32, int32) {
	if t == 0 {
		return 0, 0
	}
	x := &q.nodes[t]
	if k.less(x.d, x.id) || (k.d == x.d && k.id == x.id) {
		// x ≥ k: x and its right subtree go right
		a, b := q.split(x.l, k)
		q.nodes[t].l = b
		q.pull(t)
		return a, t
	}
	a, b := q.split(x.r, k)
	q.nodes[t].r = a
	q.pull(t)
	return t, b
}

// join joins a and b, every key of a before every key of b.
func (q *shortQueue) join(a, b int32) int32 {
	if a == 0 {
		return b
	}
	if b == 0 {
		return a
	}
	if q.nodes[a].pri > q.nodes[b].pri {
		q.nodes[a].r = q.join(q.nodes[a].r, b)
		q.pull(a)
		return a
	}
	q.nodes[b].l = q.join(a, q.nodes[b].l)
	q.pull(b)
	return b
}

// insert adds waiting job j of planned duration d.
func (q *shortQueue) insert(j *job.Request, d int64) {
	if len(q.nodes) == 0 {
		q.nodes = append(q.nodes, snode{}) // the empty tree
		q.rng = 0x9e3779b97f4a7c15
	}
	// xorshift64*
	q.rng ^= q.rng >> 12
	q.rng ^= q.rng << 25
	q.rng ^= q.rng >> 27
	nd := snode{d: d, id: j.ID, procs: j.Procs, minp: j.Procs, pri: uint32((q.rng * 0x2545f4914f6cdd1d) >> 32), j: j}
	var t int32
	if k := len(q.spare); k > 0 {
		t = q.spare[k-1]
		q.spare = q.spare[:k-1]
		q.nodes[t] = nd
	} else {
		t = int32(len(q.nodes))
		q.nodes = append(q.nodes, nd)
	}
	a, b := q.split(q.root, skey{d, j.ID})
	q.root = q.join(q.join(a, t), b)
	q.n++
}

// remove takes out job j of planned duration d; false if it was not
// there.
func (q *shortQueue) remove(j *job.Request, d int64) bool {
	a, b := q.split(q.root, skey{d, j.ID})
	m, c := q.split(b, skey{d, j.ID + 1})
	if m != 0 {
		q.nodes[m] = snode{}
		q.spare = append(q.spare, m)
		q.n--
	}
	q.root = q.join(a, c)
	return m != 0
}

// next is the first job after k in (duration, ID) order that needs at
// most x processors (nil if none), with its planned duration.
func (q *shortQueue) next(k skey, x int) (*job.Request, int64) {
	t := q.find(q.root, k, x)
	if t == 0 {
		return nil, 0
	}
	return q.nodes[t].j, q.nodes[t].d
}

func (q *shortQueue) find(t int32, k skey, x int) int32 {
	for t != 0 {
		nd := &q.nodes[t]
		if nd.minp > x {
			return 0
		}
		if !k.less(nd.d, nd.id) {
			t = nd.r // nd and its left subtree are at or before k
			continue
		}
		if r := q.find(nd.l, k, x); r != 0 {
			return r
		}
		if nd.procs <= x {
			return t
		}
		t = nd.r
	}
	return 0
}

// walker is an in-order walk of a shortQueue that skips the subtrees
// whose least size is above the limit of the current step: amortized O(1)
// per node it passes through, for a pass that looks at many candidates
// (the profile route). It is valid while the queue does not change.
type walker struct {
	q     *shortQueue
	stack []int32
	begun bool
}

// walk starts a walk of q, reusing stack's storage.
func (q *shortQueue) walk(stack []int32) walker { return walker{q: q, stack: stack[:0]} }

func (w *walker) descend(t int32, x int) {
	for t != 0 && w.q.nodes[t].minp <= x {
		w.stack = append(w.stack, t)
		t = w.q.nodes[t].l
	}
}

// next is the next job in (duration, ID) order that needs at most x
// processors (nil if none), with its planned duration; x must not grow
// from one call to the next.
func (w *walker) next(x int) (*job.Request, int64) {
	if !w.begun {
		w.begun = true
		w.descend(w.q.root, x)
	}
	for len(w.stack) > 0 {
		t := w.stack[len(w.stack)-1]
		w.stack = w.stack[:len(w.stack)-1]
		nd := &w.q.nodes[t]
		w.descend(nd.r, x)
		if nd.procs <= x {
			return nd.j, nd.d
		}
	}
	return nil, 0
}

// appendTo appends the jobs in (duration, ID) order to out.
func (q *shortQueue) appendTo(out []*job.Request) []*job.Request {
	var walk func(t int32)
	walk = func(t int32) {
		if t == 0 {
			return
		}
		walk(q.nodes[t].l)
		out = append(out, q.nodes[t].j)
		walk(q.nodes[t].r)
	}
	walk(q.root)
	return out
}
