// Package jobq is an ordered waiting queue with a position index.
//
// It is the waiting queue of a policy that scans its queue for
// jobs small enough to start: jobs in a fixed order (arrival, or ascending
// key then ID), with an index over queue positions answering "the first
// position at or after i whose job needs at most x processors" in
// O(log Q). Jobs taken out during a scheduling pass leave holes, so that
// positions stay valid until Compact.
//
// It is used by the multiple-queue and lookahead policies (the EASY
// package keeps its own, older, copy of the same idea).
package jobq

import (
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Queue is an ordered waiting queue with holes.
type Queue struct {
	key   func(*job.Request) int64 // nil: arrival order
	jobs  []*job.Request           // nil = hole
	first int                      // index of the first non-hole (or len)
	holes int                      // holes at or after first
	tree  []int                    // min of Procs over positions; leaves at n..2n-1
	est   []int64                  // min of Estimate over the same nodes (MaxInt64 for holes)
	n     int                      // leaves, a power of two
	dirty bool                     // tree must be rebuilt before use
}

const hole = math.MaxInt

// New returns an empty queue ordered by arrival (key nil), or by (key(j),
// ID) ascending. A job's key must not change while it waits.
func New(key func(*job.Request) int64) *Queue { return &Queue{key: key, dirty: true} }

// Len is the number of waiting jobs.
func (q *Queue) Len() int { return len(q.jobs) - q.first - q.holes }

// Push adds a waiting job: at the end in arrival order, or at its place by
// (key, ID); the latter squeezes the holes out, so it must not be called
// during a pass that holds positions.
func (q *Queue) Push(j *job.Request) {
	if q.key == nil {
		q.jobs = append(q.jobs, j)
		if !q.dirty && len(q.jobs) <= q.n {
			q.set(len(q.jobs)-1, j.Procs, j.Estimate)
		} else {
			q.dirty = true
		}
		return
	}
	q.squeeze()
	k := q.key(j)
	i, _ := slices.BinarySearchFunc(q.jobs, j, func(a, b *job.Request) int {
		ka := q.key(a)
		switch {
		case ka < k:
			return -1
		case ka > k:
			return 1
		}
		return a.ID - b.ID
	})
	q.jobs = slices.Insert(q.jobs, i, j)
	q.dirty = true
}

// Head is the position and job of the first waiting job, or -1, nil.
func (q *Queue) Head() (int, *job.Request) {
	for q.first < len(q.jobs) && q.jobs[q.first] == nil {
		q.first++
		q.holes--
	}
	if q.first == len(q.jobs) {
		return -1, nil
	}
	return q.first, q.jobs[q.first]
}

// At is the job at position i, nil for a hole.
func (q *Queue) At(i int) *job.Request { return q.jobs[i] }

// End is one past the last position.
func (q *Queue) End() int { return len(q.jobs) }

// Next is the first position ≥ i whose job needs at most x processors, or
// -1.
func (q *Queue) Next(i, x int) int {
	if q.dirty {
		q.rebuild()
	}
	if i < q.first {
		i = q.first
	}
	if i >= len(q.jobs) || x < 1 {
		return -1
	}
	k := i + q.n
	if q.tree[k] <= x {
		return i
	}
	for {
		for k%2 == 1 { // climb while this is a right child
			k /= 2
			if k <= 1 {
				return -1
			}
		}
		k++ // the subtree to the right at this level
		if q.tree[k] <= x {
			break
		}
	}
	for k < q.n {
		if q.tree[2*k] <= x {
			k = 2 * k
		} else {
			k = 2*k + 1
		}
	}
	if k-q.n >= len(q.jobs) {
		return -1
	}
	return k - q.n
}

// NextFit is the first position ≥ i whose job j has fits(j.Procs,
// j.Estimate), or -1. fits must be antitone: fits(n, e) implies fits(n',
// e') for every n' ≤ n and e' ≤ e (e.g. "n is at most what the machine
// can give for e"). A subtree is entered only if fits holds for its least
// size and least estimate, which every job it holds dominates; so runs of
// jobs that are both wide and long are skipped in O(log Q).
func (q *Queue) NextFit(i int, fits func(n int, e int64) bool) int {
	if q.dirty {
		q.rebuild()
	}
	if i < q.first {
		i = q.first
	}
	if i >= len(q.jobs) {
		return -1
	}
	ok := func(k int) bool { return q.tree[k] != hole && fits(q.tree[k], q.est[k]) }
	k := i + q.n
	if ok(k) {
		return i
	}
	for {
		for k%2 == 1 { // climb while this is a right child
			k /= 2
			if k <= 1 {
				return -1
			}
		}
		k++ // the subtree to the right at this level
		if ok(k) {
			if leaf := q.descend(k, ok); leaf >= 0 {
				if leaf >= len(q.jobs) {
					return -1
				}
				return leaf
			}
		}
	}
}

// descend is the first leaf under node k that passes ok, or -1; ok(k)
// holds.
func (q *Queue) descend(k int, ok func(int) bool) int {
	if k >= q.n {
		return k - q.n
	}
	if ok(2 * k) {
		if leaf := q.descend(2*k, ok); leaf >= 0 {
			return leaf
		}
	}
	if ok(2*k + 1) {
		return q.descend(2*k+1, ok)
	}
	return -1
}

// Take removes the job at position i, leaving a hole.
func (q *Queue) Take(i int) {
	if q.jobs[i] == nil {
		return
	}
	q.jobs[i] = nil
	q.holes++
	if !q.dirty {
		q.set(i, hole, math.MaxInt64)
	}
}

// Cancel removes waiting job j; it reports whether j was waiting. O(Q).
func (q *Queue) Cancel(j *job.Request) bool {
	for i := q.first; i < len(q.jobs); i++ {
		if q.jobs[i] == j {
			q.Take(i)
			q.Compact()
			return true
		}
	}
	return false
}

// Compact drops leading holes, and squeezes the queue when holes are the
// majority (amortized O(1) per taken job). Positions change: call it
// between passes.
func (q *Queue) Compact() {
	q.Head()
	if q.first == len(q.jobs) {
		clear(q.jobs)
		q.jobs = q.jobs[:0]
		q.first, q.holes = 0, 0
		q.dirty = true
		return
	}
	if q.holes+q.first > 64 && 2*(q.holes+q.first) > len(q.jobs) {
		q.squeeze()
	}
}

// squeeze removes every hole.
func (q *Queue) squeeze() {
	if q.first == 0 && q.holes == 0 {
		return
	}
	n := 0
	for _, j := range q.jobs[q.first:] {
		if j != nil {
			q.jobs[n] = j
			n++
		}
	}
	clear(q.jobs[n:])
	q.jobs = q.jobs[:n]
	q.first, q.holes = 0, 0
	q.dirty = true
}

// Each calls f for every waiting job in queue order.
func (q *Queue) Each(f func(j *job.Request)) {
	for _, j := range q.jobs[q.first:] {
		if j != nil {
			f(j)
		}
	}
}

func (q *Queue) set(i, v int, e int64) {
	k := i + q.n
	q.tree[k], q.est[k] = v, e
	for k > 1 {
		k /= 2
		q.tree[k] = min(q.tree[2*k], q.tree[2*k+1])
		q.est[k] = min(q.est[2*k], q.est[2*k+1])
	}
}

func (q *Queue) rebuild() {
	n := 1
	for n < max(64, 2*len(q.jobs)) {
		n *= 2
	}
	q.n = n
	if cap(q.tree) >= 2*n {
		q.tree, q.est = q.tree[:2*n], q.est[:2*n]
	} else {
		q.tree, q.est = make([]int, 2*n), make([]int64, 2*n)
	}
	for i := range q.tree[n:] {
		v, e := hole, int64(math.MaxInt64)
		if i < len(q.jobs) && q.jobs[i] != nil {
			v, e = q.jobs[i].Procs, q.jobs[i].Estimate
		}
		q.tree[n+i], q.est[n+i] = v, e
	}
	for k := n - 1; k >= 1; k-- {
		q.tree[k] = min(q.tree[2*k], q.tree[2*k+1])
		q.est[k] = min(q.est[2*k], q.est[2*k+1])
	}
	q.dirty = false
}

// Resort puts the waiting jobs in o's order at now (ties by ID), for a
// queue whose order changes with time (a policy.Order that is not a
// policy.KeyOrder); call it between passes. Push still appends (key nil)
// until the next Resort.
func (q *Queue) Resort(now int64, o policy.Order) {
	q.squeeze()
	policy.SortWaiting(now, o, q.jobs)
	q.dirty = true
}
