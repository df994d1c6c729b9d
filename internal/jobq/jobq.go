// Package jobq is an ordered waiting queue with a position index.
//
// It is the waiting queue of a policy that scans its queue for
// jobs small enough to start: jobs in a fixed order (arrival, or ascending
// key then ID), with an index over queue positions answering "the first
// position at or after i whose job needs at most x processors", or passes
// an antitone test of size and estimate, in O(log Q) (package fitindex). Jobs taken out during a scheduling pass leave holes, so that
// positions stay valid until Compact.
//
// It is used by the multiple-queue and lookahead policies (the EASY
// package keeps its own queue over the same index).
package jobq

import (
	"slices"

	"github.com/backfill-hpc/backfill/internal/fitindex"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Queue is an ordered waiting queue with holes.
type Queue struct {
	key   func(*job.Request) int64 // nil: arrival order
	jobs  []*job.Request           // nil = hole
	first int                      // index of the first non-hole (or len)
	holes int                      // holes at or after first
	idx   fitindex.Index           // sizes and estimates by position
	dirty bool                     // tree must be rebuilt before use
}

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
		if !q.dirty && len(q.jobs) <= q.idx.Len() {
			q.idx.Set(len(q.jobs)-1, j.Procs, j.Estimate)
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
	return q.idx.NextAtMost(i, x)
}

// NextEASY is the first position ≥ i whose job j passes EASY's backfill
// test: j.Procs ≤ a, or j.Procs ≤ f and j.Estimate ≤ d (a = min(free,
// extra), f = free, d = shadow − now); NextFit with that test, without
// the calls.
func (q *Queue) NextEASY(i, a, f int, d int64) int {
	if q.dirty {
		q.rebuild()
	}
	if i < q.first {
		i = q.first
	}
	if i >= len(q.jobs) {
		return -1
	}
	return q.idx.Next(i, a, f, d)
}

// NextFit is the first position ≥ i whose job j has fits(j.Procs,
// j.Estimate), or -1. fits must be antitone: fits(n, e) implies fits(n',
// e') for every n' ≤ n and e' ≤ e (e.g. "n is at most what the machine
// can give for e"). A subtree is entered only if fits holds for one of the
// minimal (size, estimate) points the index keeps for it (package
// fitindex), so runs of jobs that cannot start are skipped in O(log Q).
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
	return q.idx.NextFit(i, fits)
}

// Take removes the job at position i, leaving a hole.
func (q *Queue) Take(i int) {
	if q.jobs[i] == nil {
		return
	}
	q.jobs[i] = nil
	q.holes++
	if !q.dirty {
		q.idx.Clear(i)
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

func (q *Queue) rebuild() {
	q.idx.Reset(max(64, 2*len(q.jobs)))
	for i, j := range q.jobs {
		if j != nil {
			q.idx.Put(i, j.Procs, j.Estimate)
		}
	}
	q.idx.Build()
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
