package policy

import (
	"github.com/backfill-hpc/backfill/internal/minheap"
	"github.com/backfill-hpc/backfill/job"
)

// holdVal is what a running job's hold keeps beside its end (the key) and
// job ID: its start, the job and the amount held, the processors (Running)
// or the requirement vector (RunningK).
type holdVal[T any] struct {
	start int64
	j     *job.Request
	amt   T
}

// hold is a running job's hold in a profile: [Val.start, Key) of Val.amt.
type hold[T any] = minheap.Item[int64, holdVal[T]]

// holds is the running jobs' holds in a min-heap on (end, job ID), indexed
// by job ID: Running and RunningK share it. Job IDs are dense (the engine
// assigns 0, 1, 2, …), so the index is a slice that grows on demand.
type holds[T any] struct {
	minheap.Heap[int64, holdVal[T]]
}

func (s *holds[T]) push(it hold[T]) {
	s.IndexByID() // the zero value is ready to use
	s.Push(it)
}

// lengthen sets the end of the hold at index i to end (≥ its end).
func (s *holds[T]) lengthen(i int, end int64) {
	s.At(i).Key = end
	s.Fix(i)
}

// endedBefore calls fn for every hold that ends before t, visiting only
// the top of the heap those holds form (O(k) for k such holds); fn returns
// false to stop. It reports whether it was stopped.
func (s *holds[T]) endedBefore(t int64, fn func(it *hold[T]) bool) bool {
	h := s.Items()
	var walk func(i int) bool
	walk = func(i int) bool {
		if i >= len(h) || h[i].Key >= t {
			return false
		}
		return !fn(&h[i]) || walk(2*i+1) || walk(2*i+2)
	}
	return walk(0)
}

// overran lists the jobs past their estimates whose holds end before t.
func (s *holds[T]) overran(t int64) []*job.Request {
	var out []*job.Request
	s.endedBefore(t, func(it *hold[T]) bool {
		if it.Val.start+it.Val.j.Estimate <= it.Key {
			out = append(out, it.Val.j)
		}
		return true
	})
	return out
}

// overrunUntil reports whether a job past its estimate holds until t
// exactly.
func (s *holds[T]) overrunUntil(t int64) bool {
	return s.endedBefore(t+1, func(it *hold[T]) bool {
		return !(it.Key == t && it.Val.start+it.Val.j.Estimate < t)
	})
}
