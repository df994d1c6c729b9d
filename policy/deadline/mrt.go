package deadline

import "slices"

// mrt is the admission test of Figure 2, a depth-first search after
// Ramamritham, Stankovic & Shiah's real-time scheduler. Every waiting job
// and x are sorted by the heuristic into the list TL; the schedule is
// rebuilt from an empty one (the running jobs stay) by extending a partial
// schedule one job at a time, each at its earliest fit. An extension is
// kept when the new partial schedule is strongly feasible: every job in
// it meets its deadline (the placed job must), and every job not yet
// placed would still meet its deadline if it were placed next. Otherwise
// the extension is discarded and the next unplaced job in TL order is
// tried in its place; when no unplaced job extends the partial schedule,
// its last job is removed and the search goes on with the job after that
// one in TL order. Every discarded extension and every removal counts as
// one backtrack; beyond the backtrack limit, or when the empty schedule is
// not strongly feasible, x is rejected and the old schedule kept.
//
// The strong-feasibility test of an extension costs one fit test per job
// not yet placed: the earliest fit of each is cached, and since an
// extension only takes capacity away, a cached fit that still fits is
// still the earliest; only the others are searched again, from there.
func (s *Policy) mrt(now int64, x *djob) bool {
	W := s.book.Wait()
	s.release(W)
	tl := append(s.tl[:0], W...)
	tl = append(tl, x)
	s.sortHeuristic(tl)
	n := len(tl)
	if cap(s.fits) < 2*n {
		s.fits = make([]int64, 2*n)
	}
	fits, saved := s.fits[:n], s.fits[n:2*n]
	used := make([]bool, n)
	stack := make([]int, 0, n) // indexes into tl of the placed jobs, in order

	// refresh brings the cached fits of the unplaced jobs up to date after
	// capacity was taken; fresh recomputes them all from now.
	refresh := func(fresh bool) bool {
		ok := true
		for u := range tl {
			if used[u] {
				continue
			}
			w := tl[u]
			if fresh {
				fits[u] = s.fit(now, w)
			} else if !s.run.Prof.Fits(fits[u], w.J.Estimate, w.J.Procs) {
				s.Stats.Placements++
				fits[u] = s.run.Prof.EarliestFit(fits[u], w.J.Estimate, w.J.Procs)
			}
			if fits[u]+w.J.Estimate > w.X.d {
				ok = false
				if !fresh {
					return false
				}
			}
		}
		return ok
	}
	backtracks := 0
	fail := func() bool {
		for _, u := range stack {
			s.unhold(tl[u], tl[u].Start)
		}
		s.restore(W)
		s.tl = tl[:0]
		return false
	}
	if !refresh(true) {
		return fail() // some job cannot meet its deadline even alone
	}
	c := 0 // next candidate index into tl at the current level
	for len(stack) < n {
		for c < n && used[c] {
			c++
		}
		if c == n {
			// no unplaced job extends the partial schedule: undo its last job
			if len(stack) == 0 {
				return fail()
			}
			backtracks++
			s.Stats.Backtracks++
			if backtracks > s.prm.Backtrack {
				return fail()
			}
			last := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			s.unhold(tl[last], tl[last].Start)
			used[last] = false
			refresh(true) // capacity came back: recompute from scratch
			c = last + 1
			continue
		}
		w := tl[c]
		t := fits[c]
		w.Start = t
		s.hold(w, t)
		used[c] = true
		copy(saved, fits)
		if t+w.J.Estimate <= w.X.d && refresh(false) {
			stack = append(stack, c)
			c = 0
			continue
		}
		// not strongly feasible: discard the extension, try the next job
		s.unhold(w, t)
		used[c] = false
		copy(fits, saved)
		backtracks++
		s.Stats.Backtracks++
		if backtracks > s.prm.Backtrack {
			return fail()
		}
		c++
	}
	nw := make([]*djob, 0, n)
	nw = append(nw, tl...)
	slices.SortFunc(nw, cmpWait)
	s.book.SetWait(nw)
	s.tl = tl[:0]
	return true
}
