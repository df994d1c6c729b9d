package policy

import "github.com/backfill-hpc/backfill/job"

// hold is a running job's hold in a profile: [start, end) of amt, the
// processors (Running) or the requirement vector (RunningK).
type hold[T any] struct {
	end   int64
	id    int
	start int64
	j     *job.Request
	amt   T
}

// holds is the running jobs' holds in a binary min-heap on (end, job ID),
// indexed by job ID: Running and RunningK share it. Job IDs are dense (the
// engine assigns 0, 1, 2, …), so the index is a slice that grows on demand.
type holds[T any] struct {
	h   []hold[T]
	pos []int32 // job ID → index in h + 1 (0: not running)
}

// at reports the index in h of job id's hold.
func (s *holds[T]) at(id int) (int, bool) {
	if id < 0 || id >= len(s.pos) || s.pos[id] == 0 {
		return 0, false
	}
	return int(s.pos[id]) - 1, true
}

func (s *holds[T]) push(it hold[T]) {
	s.h = append(s.h, it)
	for it.id >= len(s.pos) {
		s.pos = append(s.pos, 0)
	}
	i := len(s.h) - 1
	s.pos[it.id] = int32(i + 1)
	s.up(i)
}

// removeAt takes out the hold at index i and returns it.
func (s *holds[T]) removeAt(i int) hold[T] {
	it := s.h[i]
	last := len(s.h) - 1
	s.pos[it.id] = 0
	if i != last {
		s.h[i] = s.h[last]
		s.pos[s.h[i].id] = int32(i + 1)
		s.h = s.h[:last]
		s.down(i)
		s.up(i)
	} else {
		s.h = s.h[:last]
	}
	return it
}

// lengthen sets the end of the hold at index i to end (≥ its end).
func (s *holds[T]) lengthen(i int, end int64) {
	s.h[i].end = end
	s.down(i)
}

// endedBefore calls fn for every hold that ends before t, visiting only
// the top of the heap those holds form (O(k) for k such holds); fn returns
// false to stop. It reports whether it was stopped.
func (s *holds[T]) endedBefore(t int64, fn func(it *hold[T]) bool) bool {
	var walk func(i int) bool
	walk = func(i int) bool {
		if i >= len(s.h) || s.h[i].end >= t {
			return false
		}
		return !fn(&s.h[i]) || walk(2*i+1) || walk(2*i+2)
	}
	return walk(0)
}

// overran lists the jobs past their estimates whose holds end before t.
func (s *holds[T]) overran(t int64) []*job.Request {
	var out []*job.Request
	s.endedBefore(t, func(it *hold[T]) bool {
		if it.start+it.j.Estimate <= it.end {
			out = append(out, it.j)
		}
		return true
	})
	return out
}

// overrunUntil reports whether a job past its estimate holds until t
// exactly.
func (s *holds[T]) overrunUntil(t int64) bool {
	return s.endedBefore(t+1, func(it *hold[T]) bool {
		return !(it.end == t && it.start+it.j.Estimate < t)
	})
}

func (s *holds[T]) less(a, b int) bool {
	x, y := &s.h[a], &s.h[b]
	return x.end < y.end || (x.end == y.end && x.id < y.id)
}

func (s *holds[T]) swap(a, b int) {
	s.h[a], s.h[b] = s.h[b], s.h[a]
	s.pos[s.h[a].id] = int32(a + 1)
	s.pos[s.h[b].id] = int32(b + 1)
}

func (s *holds[T]) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			return
		}
		s.swap(i, p)
		i = p
	}
}

func (s *holds[T]) down(i int) {
	n := len(s.h)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if l+1 < n && s.less(l+1, l) {
			m = l + 1
		}
		if !s.less(m, i) {
			return
		}
		s.swap(i, m)
		i = m
	}
}
