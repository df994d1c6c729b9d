package deadline

import (
	"fmt"
	"slices"
)

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
// even tested (the profile did not change there), nor is one of a job no
// wider than the least free capacity over the hold's window once the hold
// is made (one range query for the extension: where the windows meet, that
// many processors are still free; elsewhere nothing changed). A discarded
// extension restores only the cached fits it changed: an extension costs
// O(N) comparisons plus a fit test per wider job whose window meets it,
// where it cost O(N) fit tests and an O(N) copy.
//
// The cached fits are exact at every level of the search (an extension
// only takes capacity away, so a fit that still fits is still the
// earliest), so undoing a kept extension restores the fits it changed (a
// log per level of the partial schedule) instead of searching every
// unplaced job again: the profile is then the one those fits were
// computed in. TestAdmissionEqualsReference checks the decisions and the
// backtrack counts against the literal version, which searches afresh.
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
	// hist holds the cached fits each kept extension changed, level by
	// level (levels[k]: where level k's entries start), to undo it on a
	// backtrack; the entries from len(hist) on are those of the extension
	// being tested
	var hist []undo
	levels := make([]int, 0, n)

	// refresh brings the cached fits of the unplaced jobs up to date after
	// capacity was taken over [a, b) (the extension's hold); fresh
	// recomputes them all from now. A cached fit whose window does not
	// meet [a, b) still fits, and still meets its deadline, as does one of
	// a job of at most mf processors (the least free over [a, b) after the
	// hold): only the others are tested.
	refresh := func(fresh bool, a, b int64) bool {
		ok := true
		mf := 0
		if !fresh {
			mf = s.run.Prof.MinFree(a, b)
		}
		for u := lo; u < n; u++ {
			if used[u] || !fresh && (fits[u] >= b || fits[u]+est[u] <= a || tl[u].J.Procs <= mf) {
				continue
			}
			w := tl[u]
			if fresh {
				fits[u] = s.fit(now, w)
			} else if !s.run.Prof.Fits(fits[u], w.J.Estimate, w.J.Procs) {
				s.Stats.Placements++
				hist = append(hist, undo{u, fits[u]})
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
			// capacity came back: the profile is the one before the
			// extension, whose fits its log restores
			k := levels[len(levels)-1]
			levels = levels[:len(levels)-1]
			for _, l := range slices.Backward(hist[k:]) {
				fits[l.u] = l.fit
			}
			hist = hist[:k]
			if s.checkFits {
				s.checkMRTFits(now, tl[lo:], used[lo:], fits[lo:])
			}
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
		k := len(hist)
		if t+w.J.Estimate <= w.X.d && refresh(false, t, t+w.J.Estimate) {
			stack = append(stack, c)
			levels = append(levels, k)
			c = lo
			continue
		}
		// not strongly feasible: discard the extension, try the next job
		s.unhold(w, t)
		used[c] = false
		lo = min(lo, c)
		for _, l := range slices.Backward(hist[k:]) {
			fits[l.u] = l.fit
		}
		hist = hist[:k]
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

// checkMRTFits records in s.fitErr the first cached fit of an unplaced job
// that is not its earliest fit from now (tests).
func (s *Policy) checkMRTFits(now int64, tl []*djob, used []bool, fits []int64) {
	for u, w := range tl {
		if f := s.run.Prof.EarliestFit(now, w.J.Estimate, w.J.Procs); !used[u] && f != fits[u] && s.fitErr == nil {
			s.fitErr = fmt.Errorf("job %d: cached fit %d after a backtrack, earliest fit %d", w.J.ID, fits[u], f)
		}
	}
}
