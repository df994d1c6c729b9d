package slack

import (
	"math"
	"slices"
)

// search prices the candidate schedules for inserting x (a new job, or the
// zero dummy of remove) and returns the slot of the cheapest; s.best then
// holds the slot of every waiting job in that schedule, by position in
// the waiting list. The profile is unchanged on return.
//
// Slots are the times from now at which the profile (running jobs and
// reservations) changes, now included: the "time slots from CT to ET" of
// §4.5. For slot ts the profile holds the running jobs and the waiting
// jobs scheduled before ts (built up incrementally as ts grows); x must fit
// there at ts; the jobs scheduled at or after ts are delayed by x's
// estimate and then compressed in the heuristic's order, each to its
// earliest fit no later than its delayed slot. The delayed schedule is
// always feasible when x fits at ts (a job running at some instant after
// ts+estimate that started before ts also ran an estimate earlier), so the
// compression never needs more than the room it already has.
//
// Pruning: the price of slot ts is at least the new job's own term plus,
// for every delayed job, the cost of starting it right now (its largest
// possible profit); this bound grows with ts, so the search stops at the
// first slot whose bound exceeds the best price found.
func (s *Policy) search(now int64, x *sjob) (int64, bool) {
	ts, _, ok := s.searchSlots(now, x, false)
	return ts, ok
}

// searchSlots is search; with onlyNow it prices the slot now alone (the
// tick strategy's extension cannot be scheduled later) and also returns
// the best price.
func (s *Policy) searchSlots(now int64, x *sjob, onlyNow bool) (int64, float64, bool) {
	prof := s.run.Prof
	W := s.book.Wait()
	// slots: now, the profile's breakpoints (running jobs' ends among
	// them) and every waiting job's start and end, ascending and distinct
	slots := s.slots[:0]
	slots = append(slots, now)
	for _, st := range prof.Steps() {
		if st.At > now {
			slots = append(slots, st.At)
		}
	}
	for _, w := range W {
		slots = append(slots, w.Start, w.Start+w.J.Estimate)
	}
	slices.Sort(slots)
	slots = slices.Compact(slots)
	s.slots = slots
	for _, w := range W {
		s.unhold(w, w.Start)
	}
	// suffix lower bounds of the delayed jobs' costs
	lb := make([]float64, len(W)+1)
	for i := len(W) - 1; i >= 0; i-- {
		c := s.cost(W[i], now-W[i].Start, x.X.p)
		lb[i] = lb[i+1] + math.Min(c, 0)
	}
	if cap(s.best) < len(W) {
		s.best = make([]int64, len(W))
	}
	s.best = s.best[:len(W)]

	n, e := x.J.Procs, x.J.Estimate
	bestPrice, bestMoved, bestTs := math.Inf(1), math.MaxInt, int64(-1)
	k := 0 // W[:k] are held (scheduled before ts)
	slot := func(ts int64) bool {
		for k < len(W) && W[k].Start < ts {
			s.hold(W[k], W[k].Start)
			k++
		}
		D := W[k:]
		own := 0.0
		if n > 0 {
			own = s.ownTerm(ts, now, n)
		}
		if !s.noPrune && bestTs >= 0 && own+lb[k] > bestPrice+tolerance(bestPrice) {
			return false // no later slot can be cheaper
		}
		if n > 0 && !prof.Fits(ts, e, n) {
			return true
		}
		s.Stats.Slots++
		if n > 0 {
			if err := prof.Add(ts, ts+e, n); err != nil {
				panic("slack: " + err.Error()) // unreachable: it fits
			}
		}
		for _, d := range D {
			d.X.shifted = d.Start + e
			d.X.cand = d.X.shifted
			s.hold(d, d.X.shifted)
		}
		anyFeasible := false
		try := func(order []*sjob) {
			if s.onSlot != nil {
				s.onSlot(ts, order)
			}
			for _, d := range D {
				d.X.cand = d.X.shifted
			}
			price, moved, feasible := own, 0, true
			for _, d := range order {
				s.Stats.Placements++
				t := prof.EarliestFitMoving(now, d.J.Estimate, d.J.Procs, d.X.shifted)
				if t < d.X.shifted {
					s.unhold(d, d.X.shifted)
					s.hold(d, t)
					d.X.cand = t
				}
				if dt := d.X.cand - d.Start; dt != 0 {
					moved++
					c := s.cost(d, dt, x.X.p)
					if math.IsInf(c, 1) {
						feasible = false
						break
					}
					price += c
				}
			}
			if feasible && better(price, moved, bestPrice, bestMoved) {
				bestPrice, bestMoved, bestTs = price, moved, ts
				for i := 0; i < k; i++ {
					s.best[i] = W[i].Start
				}
				for i, d := range D {
					s.best[k+i] = d.X.cand
				}
			}
			anyFeasible = anyFeasible || feasible
			// back to the delayed schedule for the next permutation
			for _, d := range D {
				if d.X.cand != d.X.shifted {
					s.unhold(d, d.X.cand)
				}
			}
			for _, d := range D {
				if d.X.cand != d.X.shifted {
					s.hold(d, d.X.shifted)
				}
			}
		}
		if s.prm.Heuristic == All && s.prm.Order == nil && len(D) <= MaxExhaustive {
			s.permutations(D, try)
		} else {
			try(s.heuristicOrder(now, D, x))
		}
		for _, d := range D {
			s.unhold(d, d.X.shifted)
		}
		if n > 0 {
			_ = prof.Remove(ts, ts+e, n)
		}
		// with nothing delayed, later slots only cost more
		return !(anyFeasible && len(D) == 0)
	}
	more := true
	for _, ts := range slots {
		if more = slot(ts); !more || onlyNow {
			break
		}
	}
	// restore the reservations not yet held
	for ; k < len(W); k++ {
		s.hold(W[k], W[k].Start)
	}
	return bestTs, bestPrice, bestTs >= 0
}

// tolerance is the margin within which two prices count as equal.
func tolerance(p float64) float64 {
	return 1e-9 * math.Max(1, math.Abs(p))
}

// better reports whether (price, moved) beats the best so far: a lower
// price, or an equal price with fewer moved jobs. Equal on both keeps the
// earlier slot (the one found first).
func better(price float64, moved int, bestPrice float64, bestMoved int) bool {
	if math.IsInf(bestPrice, 1) {
		return true
	}
	tol := tolerance(math.Max(math.Abs(price), math.Abs(bestPrice)))
	if price < bestPrice-tol {
		return true
	}
	return price <= bestPrice+tol && moved < bestMoved
}

// apply moves the waiting jobs to the slots in s.best.
func (s *Policy) apply(x *sjob, ts int64) {
	changed := false
	wait := s.book.Wait()
	for i, w := range wait {
		if s.best[i] != w.Start {
			s.unhold(w, w.Start)
			changed = true
		}
	}
	if !changed {
		return
	}
	for i, w := range wait {
		if s.best[i] != w.Start {
			w.Start = s.best[i]
			s.hold(w, w.Start)
		}
	}
	s.book.Sort()
}

// MaxExhaustive bounds the delayed jobs for which heuristic All prices
// every permutation (k! of them); beyond it All falls back to AST.
const MaxExhaustive = 7

// permutations calls try with every permutation of D (Heap's algorithm,
// starting from AST order), reusing one slice.
func (s *Policy) permutations(D []*sjob, try func([]*sjob)) {
	a := append([]*sjob(nil), D...)
	c := make([]int, len(a))
	try(a)
	for i := 0; i < len(a); {
		if c[i] < i {
			if i%2 == 0 {
				a[0], a[i] = a[i], a[0]
			} else {
				a[c[i]], a[i] = a[i], a[c[i]]
			}
			try(a)
			c[i]++
			i = 0
		} else {
			c[i] = 0
			i++
		}
	}
}

// heuristicOrder returns the delayed jobs D in the order the heuristic
// compresses them (§4.6), or the queue order (parameter order) when one is
// set. D is in AST order already.
func (s *Policy) heuristicOrder(now int64, D []*sjob, x *sjob) []*sjob {
	s.order = append(s.order[:0], D...)
	o := s.order
	if s.prm.Order != nil {
		s.queueOrder(now, o)
		return o
	}
	if s.prm.Heuristic == AST {
		return o
	}
	tie := func(a, b *sjob) int { return cmpWait(a, b) }
	switch s.prm.Heuristic {
	case AAT:
		slices.SortStableFunc(o, func(a, b *sjob) int {
			if a.J.Submit != b.J.Submit {
				return cmp64(a.J.Submit, b.J.Submit)
			}
			return a.J.ID - b.J.ID
		})
	case DU:
		for _, d := range o {
			d.X.key = float64(d.J.Procs) * float64(d.J.Estimate)
		}
		slices.SortStableFunc(o, func(a, b *sjob) int {
			if a.X.key != b.X.key {
				return cmpDesc(a.X.key, b.X.key)
			}
			return tie(a, b)
		})
	case DC:
		for _, d := range o {
			d.X.key = s.cost(d, 1, x.X.p)
		}
		slices.SortStableFunc(o, func(a, b *sjob) int {
			if a.X.key != b.X.key {
				return cmpDesc(a.X.key, b.X.key)
			}
			return tie(a, b)
		})
	case DP:
		slices.SortStableFunc(o, func(a, b *sjob) int {
			if a.X.p != b.X.p {
				return cmpDesc(a.X.p, b.X.p)
			}
			if a.J.Submit != b.J.Submit {
				return cmp64(a.J.Submit, b.J.Submit)
			}
			return a.J.ID - b.J.ID
		})
	}
	return o
}

func cmp64(a, b int64) int {
	if a < b {
		return -1
	}
	if a > b {
		return 1
	}
	return 0
}

// cmpDesc orders larger values first.
func cmpDesc(a, b float64) int {
	if a > b {
		return -1
	}
	if a < b {
		return 1
	}
	return 0
}
