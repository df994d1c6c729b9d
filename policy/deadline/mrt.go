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
// A cached fit whose window does not meet the extension's hold is not
// even tested (the profile did not change there), and a discarded
// extension restores only the cached fits it changed: an extension costs
// O(N) comparisons plus a fit test per job whose window meets it, where it
// cost O(N) fit tests and an O(N) copy.
func (s *Policy) mrt(now int64, x *djob) bool {
	W := s.book.Wait()
	s.release(W)
	tl := append(s.tl[:0], W...)
	tl = append(tl, x)
	s.sortHeuristic(tl)
	n := len(tl)
	if cap(s.fits) < n {
		s.fits = make([]int64, n)
	}
	fits := s.fits[:n]
	est := make([]int64, n) // the estimates, beside the fits (the scan's hot loop)
	for u, w := range tl {
		est[u] = w.J.Estimate
	}
	used := make([]bool, n)
	stack := make([]int, 0, n) // indexes into tl of the placed jobs, in order
	lo := 0                    // every job of tl[:lo] is placed
	type undo struct {
		u   int
		fit int64
	}
	var log []undo // the cached fits an extension changed, to discard it

	// refresh brings the cached fits of the unplaced jobs up to date after
	// capacity was taken over [a, b) (the extension's hold); fresh
	// recomputes them all from now. A cached fit whose window does not
	// meet [a, b) still fits, and still meets its deadline: only the
	// others are tested.
	refresh := func(fresh bool, a, b int64) bool {
		ok := true
		log = log[:0]
		for u := lo; u < n; u++ {
			if used[u] || !fresh && (fits[u] >= b || fits[u]+est[u] <= a) {
				continue
			}
			w := tl[u]
			if fresh {
				fits[u] = s.fit(now, w)
			} else if !s.run.Prof.Fits(fits[u], w.J.Estimate, w.J.Procs) {
				s.Stats.Placements++
				log = append(log, undo{u, fits[u]})
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
	if !refresh(true, 0, 0) {
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
			lo = min(lo, last)
			refresh(true, 0, 0) // capacity came back: recompute from scratch
			c = last + 1
			continue
		}
		w := tl[c]
		t := fits[c]
		w.Start = t
		s.hold(w, t)
		used[c] = true
		for lo < n && used[lo] {
			lo++
		}
		if t+w.J.Estimate <= w.X.d && refresh(false, t, t+w.J.Estimate) {
			stack = append(stack, c)
			c = lo
			continue
		}
		// not strongly feasible: discard the extension, try the next job
		s.unhold(w, t)
		used[c] = false
		lo = min(lo, c)
		for _, l := range log {
			fits[l.u] = l.fit
		}
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
