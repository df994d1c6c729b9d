package deadline

// The admission tests as they were before they were made incremental
// (lazy release, merged temporary lists, …): the reference the faster ones
// must equal decision by decision and reservation by reservation
// (TestAdmissionEqualsReference). Copied unchanged but for the names.

import (
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/profile"
)

// refSnaps is the reference QoPS's profile snapshot, per policy.
var refSnaps = map[*Policy]*profile.Profile{}

func (s *Policy) refQops(now int64, x *djob) bool {
	W := s.book.Wait()
	for i, w := range W {
		w.X.pos = i
	}
	s.setKey(x)
	for _, p := range Points(len(W)) {
		s.Stats.Points++
		if s.refQopsAt(now, x, p) {
			return true
		}
	}
	return false
}

func (s *Policy) refQopsAt(now int64, x *djob, p int) bool {
	W := s.book.Wait()
	rest := W[p:]
	// a failed point goes back to this snapshot in O(B) instead of undoing
	// every hold it made and re-holding every released job
	snap := refSnaps[s]
	if snap == nil {
		snap = profile.New(1)
		refSnaps[s] = snap
	}
	snap.CopyFrom(s.run.Prof)
	s.release(rest)
	// TL: the released jobs (positions ≥ p) in the heuristic's order, taken
	// from s.byKey; x first, or sorted in with Params.Sorted
	tl := s.tl[:0]
	if !s.prm.Sorted {
		tl = append(tl, x)
	}
	in := !s.prm.Sorted
	for _, w := range s.byKey {
		if w.X.pos < p {
			continue
		}
		if !in && cmpKey(x, w) < 0 {
			tl = append(tl, x)
			in = true
		}
		tl = append(tl, w)
	}
	if !in {
		tl = append(tl, x)
	}
	placed := s.placed[:0]
	violations := 0
	ok := true
	for len(tl) > 0 {
		c := tl[0]
		tl = tl[1:]
		t := s.fit(now, c)
		if t+c.J.Estimate <= c.X.d {
			c.Start = t
			s.hold(c, t)
			placed = append(placed, c)
			continue
		}
		violations++
		s.Stats.Violations++
		T := p + len(placed)
		mid := (p + T) / 2
		if violations > s.prm.K || mid == T {
			ok = false
			break
		}
		moved := placed[mid-p:]
		for _, m := range moved {
			s.unhold(m, m.Start)
		}
		// TL := sort(rest of TL + moved), with c at its head
		back := make([]*djob, 0, len(tl)+len(moved)+1)
		back = append(back, tl...)
		back = append(back, moved...)
		s.sortHeuristic(back)
		back = slices.Insert(back, 0, c)
		placed = placed[:mid-p]
		tl = back
	}
	s.tl = tl[:0]
	if !ok {
		s.run.Prof.CopyFrom(snap)
		for _, c := range rest {
			c.Start = c.X.old
		}
		s.placed = placed[:0]
		return false
	}
	// the new schedule: W[:p] unchanged, then every placed job
	nw := make([]*djob, 0, len(W)+1)
	nw = append(nw, W[:p]...)
	nw = append(nw, placed...)
	slices.SortFunc(nw, cmpWait)
	s.book.SetWait(nw)
	s.placed = placed[:0]
	return true
}

func (s *Policy) refMsb(now int64, x *djob) bool {
	order := append(s.tl[:0], s.book.Wait()...)
	if s.prm.H != AST {
		s.sortHeuristic(order)
	}
	N := len(order)
	s.release(order)
	// lb[i]: the largest possible profit of order[i:]. No job can start
	// before its earliest fit among the running jobs alone (the profile
	// now), which the extra holds of any candidate schedule only delay.
	lb := make([]float64, N+1)
	for i := N - 1; i >= 0; i-- {
		lb[i] = lb[i+1] + math.Min(0, s.msbCost(order[i], s.fit(now, order[i])-order[i].X.old))
	}
	best, bestMoved, bestPos := math.Inf(1), 0, -1
	var bestX int64
	bestTe := make([]int64, N)
	n, e := x.J.Procs, x.J.Estimate
	held := 0
	// the last evaluated schedule: x at refTx, order[refFrom:refReach]
	// re-placed at cand[...]
	cand := make([]int64, N)
	refTx, refReach := int64(-1), 0
	for i := 0; i <= N; i++ {
		for ; held < i; held++ {
			order[held].Start = order[held].X.old
			s.hold(order[held], order[held].Start)
		}
		tx := s.fit(now, x)
		if tx+e > x.X.d {
			break // x misses its deadline here and at every later position
		}
		own := powSigned(float64(tx-now), s.prm.At) * math.Pow(float64(n), s.prm.Au)
		if !s.noPrune && bestPos >= 0 && own+lb[i] > best+tolerance(best) {
			break // no later position can be cheaper
		}
		if !s.noPrune && i > 0 && tx == refTx && i-1 < refReach && cand[i-1] == order[i-1].X.old {
			// the same holds as the last evaluated schedule (its job i−1
			// went back to its old slot, and x to the same one): the same
			// schedule, which a later position cannot beat
			continue
		}
		s.Stats.Points++
		s.hold(x, tx)
		price, moved, feasible := own, 0, true
		k := i
		for ; k < N; k++ {
			w := order[k]
			t := s.fit(now, w)
			if t+w.J.Estimate > w.X.d {
				feasible = false
				break
			}
			w.Start = t
			cand[k] = t
			s.hold(w, t)
			if t != w.X.old {
				moved++
				price += s.msbCost(w, t-w.X.old)
			}
			if !s.noPrune && bestPos >= 0 && price+lb[k+1] > best+tolerance(best) {
				k++
				feasible = false // cannot beat the best any more
				break
			}
		}
		refTx, refReach = tx, k
		if feasible && better(price, moved, best, bestMoved) {
			best, bestMoved, bestPos, bestX = price, moved, i, tx
			for m := range order {
				bestTe[m] = order[m].Start
			}
		}
		for m := i; m < k; m++ {
			s.unhold(order[m], order[m].Start)
		}
		s.unhold(x, tx)
	}
	for ; held > 0; held-- {
		s.unhold(order[held-1], order[held-1].Start)
	}
	if bestPos < 0 {
		s.restore(order)
		s.tl = order[:0]
		return false
	}
	for m, w := range order {
		w.Start = bestTe[m]
		s.hold(w, w.Start)
	}
	x.Start = bestX
	s.hold(x, x.Start)
	nw := make([]*djob, 0, N+1)
	nw = append(nw, s.book.Wait()...)
	nw = append(nw, x)
	slices.SortFunc(nw, cmpWait)
	s.book.SetWait(nw)
	s.tl = order[:0]
	return true
}

func (s *Policy) refMrt(now int64, x *djob) bool {
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

// sortHeuristic sorts xs by the heuristic (EDF or LLF), ties by arrival
// (ID): the literal versions sort at every decision.
func (s *Policy) sortHeuristic(xs []*djob) {
	for _, x := range xs {
		s.setKey(x)
	}
	slices.SortFunc(xs, cmpKey)
}
