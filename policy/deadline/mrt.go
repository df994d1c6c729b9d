package deadline

import (
	"fmt"
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/profile"
)

// mrtBlock is the number of jobs of MRT's temporary list summarized
// together for the scan of the unplaced jobs after an extension.
const mrtBlock = 64

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
// Strong feasibility asks, of every job not yet placed, only whether it
// still has a fit that meets its deadline, i.e. a start at or before its
// latest start L = deadline − estimate; its earliest fit is needed only
// when it is placed. So each unplaced job u keeps a witness wit[u] ≤ L(u),
// a start where it fits, and a lower bound lb[u] of its earliest fit (its
// earliest fit when last searched: an extension only takes capacity
// away). A witness is first sought at L(u) itself, where the extensions,
// placed from the front of the schedule, seldom reach; when an extension's
// hold meets a witness's window, the witness is tested again (not when u
// is no wider than the least free capacity over the hold's window once
// the hold is made: one range query per extension), and only when it no
// longer fits, at L(u) then by a search from lb[u], is a new one sought; a
// job is searched for its earliest fit (from lb[u]) when it is tried as
// the extension. An extension thus costs O(N) comparisons plus a test per
// wider job whose witness it meets, where the literal version searches
// every job again.
//
// Every change an extension makes to lb and wit is logged, and a discarded
// extension restores them; so is every change made while the partial
// schedule has a given length, per level, and undoing a kept extension (a
// backtrack that removes a placed job) restores that level's changes
// instead of searching every unplaced job again: the profile is then the
// one they were found in. TestAdmissionEqualsReference checks the
// decisions and the backtrack counts against the literal version, which
// searches afresh; TestMRTBacktracksEqualReference checks after every
// backtrack that the bounds and witnesses hold (checkFits).
func (s *Policy) mrt(now int64, x *djob) bool {
	if s.refAdmit != nil {
		return s.refAdmit(now, x)
	}
	W := s.book.Wait()
	// a rejection goes back to a copy of the profile (snapshot): O(B) word
	// copies where re-holding every waiting job and undoing every placement
	// cost O(N) profile updates (most decisions of a long queue are
	// rejections)
	snap := s.snapshot(len(W))
	s.releaseAll(now, W)
	tl := s.byHeuristic(s.tl, x)
	n := len(tl)
	if cap(s.fits) < 2*n {
		s.fits = make([]int64, 2*n)
	}
	lb, wit := s.fits[:n], s.fits[n:2*n]
	// the per-job arrays live in s.ms from one decision to the next (a
	// decision allocates nothing once they have grown to the queue)
	ms := &s.ms
	nb := (n + mrtBlock - 1) / mrtBlock
	ms.grow(n, nb)
	est := ms.est[:n]   // the estimates, beside the witnesses (the scan's hot loop)
	late := ms.late[:n] // the latest starts
	used := ms.used[:n]
	procs := ms.procs[:n]
	for u, w := range tl {
		est[u] = w.J.Estimate
		late[u] = w.X.d - w.J.Estimate
		procs[u] = w.J.Procs
		used[u] = false
	}
	// the scan of refresh by blocks of mrtBlock jobs: the summary of a
	// block (over its unplaced jobs: the least witness, the latest end of
	// a witness's window, the most processors), brought up to date when
	// the scan reaches a dirty block, lets it skip a block none of whose
	// jobs it would test — exactly the jobs it would have skipped one by
	// one, so the same tests in the same order
	bWit, bEnd, bProcs, dirty := ms.bWit[:nb], ms.bEnd[:nb], ms.bProcs[:nb], ms.dirty[:nb]
	for k := range dirty {
		dirty[k] = true
	}
	touch := func(u int) { dirty[u/mrtBlock] = true }
	summary := func(k int) {
		dirty[k] = false
		mw, me, mp := profile.Infinity, int64(math.MinInt64), 0
		for u := k * mrtBlock; u < min(n, (k+1)*mrtBlock); u++ {
			if used[u] {
				continue
			}
			mw, me, mp = min(mw, wit[u]), max(me, wit[u]+est[u]), max(mp, procs[u])
		}
		bWit[k], bEnd[k], bProcs[k] = mw, me, mp
	}
	stack := ms.stack[:0] // indexes into tl of the placed jobs, in order
	lo := 0               // every job of tl[:lo] is placed
	type undo = mrtUndo
	// hist holds the changes to lb and wit, level by level (levels[k]:
	// where the changes made while k+1 jobs are placed start; before
	// levels[0], those with none placed, never undone); the entries from
	// the start of a test are those of the extension being tested
	hist := ms.hist[:0]
	levels := ms.levels[:0]
	// the grown buffers go back to s.ms at the end of the decision
	defer func() { ms.stack, ms.hist, ms.levels = stack[:0], hist[:0], levels[:0] }()
	prof := s.run.Prof

	// witness finds u a new witness, at its latest start or else at its
	// earliest fit (searched from lb[u]); false when it has none, i.e. u
	// cannot meet its deadline
	witness := func(u int) bool {
		w := tl[u]
		if late[u] < now {
			return false
		}
		touch(u)
		if wit[u] != late[u] && prof.Fits(late[u], w.J.Estimate, w.J.Procs) {
			hist = append(hist, undo{u, lb[u], wit[u]})
			wit[u] = late[u]
			return true
		}
		s.Stats.Placements++
		f := prof.EarliestFit(lb[u], w.J.Estimate, w.J.Procs)
		hist = append(hist, undo{u, lb[u], wit[u]})
		lb[u], wit[u] = f, f
		return f <= late[u]
	}
	// refresh makes sure every unplaced job has a witness after capacity
	// was taken over [a, b) (the extension's hold); fresh finds them all
	// (lb from now). A witness whose window does not meet [a, b) still
	// fits, as does one of a job of at most mf processors (the least free
	// over [a, b) after the hold): only the others are tested.
	refresh := func(fresh bool, a, b int64) bool {
		ok := true
		mf := 0
		if !fresh {
			mf = prof.MinFree(a, b)
		}
		for u := lo; u < n; u++ {
			if !fresh && u%mrtBlock == 0 {
				k := u / mrtBlock
				if dirty[k] {
					summary(k)
				}
				if bWit[k] >= b || bEnd[k] <= a || bProcs[k] <= mf {
					u += mrtBlock - 1 // no job of the block is tested
					continue
				}
			}
			if used[u] {
				continue
			}
			if fresh {
				lb[u], wit[u] = now, -1
				if !witness(u) {
					ok = false
				}
				continue
			}
			if wit[u] >= b || wit[u]+est[u] <= a || procs[u] <= mf {
				continue
			}
			if !prof.Fits(wit[u], est[u], tl[u].J.Procs) && !witness(u) {
				return false
			}
		}
		return ok
	}
	// restore undoes the changes logged from k on
	restore := func(k int) {
		for _, l := range slices.Backward(hist[k:]) {
			lb[l.u], wit[l.u] = l.lb, l.wit
			touch(l.u)
		}
		hist = hist[:k]
	}
	backtracks := 0
	fail := func() bool {
		if snap {
			s.run.Prof.CopyFrom(s.snap)
			for _, w := range W {
				w.Start = w.X.old
			}
		} else {
			for _, u := range stack {
				s.unhold(tl[u], tl[u].Start)
			}
			s.restore(W)
		}
		s.tl = tl[:0]
		return false
	}
	if !refresh(true, 0, 0) {
		return fail() // some job cannot meet its deadline even alone
	}
	hist = hist[:0] // the first witnesses are never undone
	c := 0          // next candidate index into tl at the current level
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
			touch(last)
			lo = min(lo, last)
			// capacity came back: the profile is the one before the
			// extension, where the bounds and witnesses of its level hold
			restore(levels[len(levels)-1])
			levels = levels[:len(levels)-1]
			if s.checkFits {
				s.checkMRTFits(now, tl[lo:], used[lo:], lb[lo:], wit[lo:], late[lo:])
			}
			c = last + 1
			continue
		}
		w := tl[c]
		// c's earliest fit, from its bound: an exact bound at this level
		s.Stats.Placements++
		t := prof.EarliestFit(lb[c], w.J.Estimate, w.J.Procs)
		if t != lb[c] {
			hist = append(hist, undo{c, lb[c], wit[c]})
			lb[c] = t
		}
		w.Start = t
		s.hold(w, t)
		used[c] = true
		touch(c)
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
		touch(c)
		lo = min(lo, c)
		restore(k)
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

// mrtUndo is a change to an unplaced job's bound and witness, logged so
// that a discarded extension or a backtrack can undo it.
type mrtUndo struct {
	u       int
	lb, wit int64
}

// mrtScratch is MRT's per-decision scratch, kept between decisions.
type mrtScratch struct {
	est, late     []int64
	used          []bool
	procs         []int
	bWit, bEnd    []int64
	bProcs        []int
	dirty         []bool
	stack, levels []int
	hist          []mrtUndo
}

// grow makes room for n jobs in nb blocks.
func (m *mrtScratch) grow(n, nb int) {
	if cap(m.est) < n {
		c := max(n, 2*cap(m.est))
		m.est, m.late = make([]int64, c), make([]int64, c)
		m.used, m.procs = make([]bool, c), make([]int, c)
	}
	if cap(m.dirty) < nb {
		c := max(nb, 2*cap(m.dirty))
		m.bWit, m.bEnd = make([]int64, c), make([]int64, c)
		m.bProcs, m.dirty = make([]int, c), make([]bool, c)
	}
}

// checkMRTFits records in s.fitErr the first unplaced job whose bound is
// above its earliest fit from now, or whose witness does not fit or is
// after its latest start (tests).
func (s *Policy) checkMRTFits(now int64, tl []*djob, used []bool, lb, wit, late []int64) {
	for u, w := range tl {
		if used[u] || s.fitErr != nil {
			continue
		}
		f := s.run.Prof.EarliestFit(now, w.J.Estimate, w.J.Procs)
		if lb[u] > f || wit[u] > late[u] || wit[u] < 0 || !s.run.Prof.Fits(wit[u], w.J.Estimate, w.J.Procs) {
			s.fitErr = fmt.Errorf("job %d: bound %d, witness %d (latest start %d) after a backtrack; earliest fit %d", w.J.ID, lb[u], wit[u], late[u], f)
		}
	}
}
