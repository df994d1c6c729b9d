package deadline

import (
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/profile"
)

// msb is the admission test of Figure 1. The waiting jobs are arranged in
// the order of the heuristic (AST: their reservation order, by default);
// for each position i = 0 … N the jobs before i keep their reservations, x
// takes its earliest fit, and the jobs from i on are re-placed one by one
// in the arrangement's order, each at its earliest fit. The price of the
// schedule is the slack-based one,
//
//	price = (te − now)^αt · n^αu + Σ cost(w, Δw)
//	cost(w, Δ) = nw^αu · Δ^αt · (s0w / sw)^αf,  ∞ when Δ > sw,
//
// with te and n x's start and size, Δw the move of waiting job w (negative
// when it moves earlier: a profit), s0w = dw − (arrival + estimate) its
// initial slack and sw = dw − estimate − (its reservation before this
// insertion) its current slack (at least 1 s in the ratio; the factor is 1
// when s0w = 0); Δ > sw means w would miss its deadline. A schedule where
// x misses its deadline is infeasible too. The cheapest feasible schedule
// is kept (ties: fewer moved jobs, then the earlier position); x is
// rejected when there is none.
//
// Pruning, as in slack-based backfilling: x's earliest fit only gets later
// as i grows (more reservations are held), so x's own term grows, and the
// price at i is at least that term plus, for every job from i on, its
// largest possible profit (moving to its earliest fit among the running
// jobs alone, which no schedule can beat); the search stops at the first i
// where that bound exceeds the best price, or where x itself cannot meet
// its deadline. Within a position, the re-placement stops as soon as the
// price so far plus the largest possible profit of the jobs still to place
// exceeds the best price. A position whose holds are those of the last
// evaluated one (x at the same slot, and the job now kept had gone back to
// its old slot there) gives the same schedule and is skipped.
//
// In AST order, while every job re-placed at a position has gone back to
// its old slot, the next one's search starts at its own old slot: before
// the decision no job could fit earlier than its reservation (its own hold
// counting as free; the schedule is compressed after every decision and
// compression), and before that slot the profile now holds at least what
// it held then — the jobs before it at their old slots, the new job in
// addition, and the jobs after it, which start no earlier, out — so no
// earlier start fits now either. And while none has moved, the jobs whose
// old slots start after the last instant where x's window did not fit in
// the profile before the decision all go back to their slots, without
// being placed (msbQuiet, msbRest).
func (s *Policy) msb(now int64, x *djob) bool {
	if s.refAdmit != nil {
		return s.refAdmit(now, x)
	}
	var order []*djob
	if s.prm.H != AST {
		order = s.byHeuristic(s.tl, nil)
	} else {
		order = append(s.tl[:0], s.book.Wait()...)
	}
	N := len(order)
	ast := s.prm.H == AST
	// the profile before the decision (snapshot): the end goes back to it
	// (O(B) word copies) and moves only the jobs the chosen schedule moves,
	// where re-holding the whole queue cost O(N) profile updates
	snap := s.snapshot(N)
	s.releaseAll(now, order)
	// lb[i]: the largest possible profit of order[i:]. No job can start
	// before its earliest fit among the running jobs alone (the profile
	// now), which the extra holds of any candidate schedule only delay.
	if cap(s.mb.lb) < N+1 {
		c := max(N+1, 2*cap(s.mb.lb))
		s.mb.lb, s.mb.bestTe, s.mb.cand = make([]float64, c), make([]int64, c), make([]int64, c)
	}
	lb := s.mb.lb[:N+1]
	lb[N] = 0
	for i := N - 1; i >= 0; i-- {
		lb[i] = lb[i+1] + math.Min(0, s.msbCost(order[i], s.fit(now, order[i])-order[i].X.old))
	}
	// base: the profile with the jobs before the position held, kept
	// beside the profile when it is small enough to copy back (at most
	// msbCopyRatio breakpoints per waiting job): a position that re-placed
	// many jobs is undone by one copy (O(B) words) instead of a release
	// per job (O(log B) each)
	useBase := s.run.Prof.Len() <= msbCopyRatio*(N+1)
	if useBase {
		if s.base == nil {
			s.base = profile.New(1)
		}
		s.base.CopyFrom(s.run.Prof)
	}
	best, bestMoved, bestPos := math.Inf(1), 0, -1
	var bestX int64
	bestTe := s.mb.bestTe[:N]
	n, e := x.J.Procs, x.J.Estimate
	held := 0
	// the last evaluated schedule: x at refTx, order[refFrom:refReach]
	// re-placed at cand[...]
	cand := s.mb.cand[:N]
	refTx, refReach := int64(-1), 0
	lastTx := now // x's fit at the last position
	for i := 0; i <= N; i++ {
		for ; held < i; held++ {
			w := order[held]
			w.Start = w.X.old
			s.hold(w, w.Start)
			if useBase {
				s.base.AddFitted(w.Start, w.Start+w.Dur, w.Need)
			}
		}
		// x's fit only gets later as i grows (the profile before x is held
		// gains order[i-1]'s hold): its search starts at the last one
		s.Stats.Placements++
		tx := s.memoFitAfter(lastTx, x)
		lastTx = tx
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
		// quiet: while no re-placed job has moved, every job from the
		// first one whose old slot starts at or after quiet goes back to
		// it (msbQuiet); the rest of the position is then known without
		// placing anyone
		quiet := profile.Infinity
		if ast && snap {
			quiet = s.msbQuiet(tx, x)
		}
		k := i
		heldTo := N // the jobs of order[i:heldTo] hold their slots in the profile
		for ; k < N; k++ {
			w := order[k]
			if moved == 0 && w.X.old >= quiet {
				heldTo = k
				s.msbRest(order, cand, k)
				k = N
				break
			}
			var t int64
			if ast && moved == 0 {
				// every job re-placed so far went back to its old slot:
				// w cannot fit before its own (see above)
				s.Stats.Placements++
				t = s.memoFitAfter(w.X.old, w)
			} else {
				t = s.fit(now, w)
			}
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
		heldTo = min(heldTo, k)
		if useBase && (heldTo-i+1)*msbCopyRatio >= s.run.Prof.Len() {
			// the same profile as releasing each; the fit memo learns of
			// the capacity freed from the earliest of those holds on
			s.run.Prof.CopyFrom(s.base)
			freed := tx
			for m := i; m < heldTo; m++ {
				freed = min(freed, order[m].Start)
			}
			s.fm.released(freed) // (the book's history: the holds of x and the re-placed jobs were changes)
		} else {
			for m := i; m < heldTo; m++ {
				s.unhold(order[m], order[m].Start)
			}
			s.unhold(x, tx)
		}
	}
	if snap {
		s.run.Prof.CopyFrom(s.snap) // every waiting job at its reservation
	} else {
		for ; held > 0; held-- {
			s.unhold(order[held-1], order[held-1].Start)
		}
		s.restore(order)
	}
	for _, w := range order {
		w.Start = w.X.old
	}
	if bestPos < 0 {
		s.tl = order[:0]
		return false
	}
	for m, w := range order {
		if bestTe[m] != w.Start {
			s.unhold(w, w.Start)
		}
	}
	for m, w := range order {
		if bestTe[m] != w.Start {
			w.Start = bestTe[m]
			s.hold(w, w.Start)
		}
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

// msbQuiet is, for x placed at tx at a position of MSB in AST order,
// the least old slot from which on the re-placed jobs are sure to go back
// to their old slots while none before them has moved: one past the last
// instant of x's window [tx, tx+e) at which the profile before the
// decision (s.snap: every waiting job at its reservation) has fewer than
// x's processors free; math.MinInt64 when x fits there outright.
//
// Why. Let w be the next job to re-place (order[k]), every job re-placed
// before it back at its old slot, and o = its old slot ≥ quiet. The
// profile now holds the running jobs, order[:k] at their old slots and x,
// and not order[k:]. Over w's window [o, o+e_w), that is at most the
// profile before the decision without w, plus x over [o, tx+e) (only
// there can x's window meet w's, and there the profile before the decision
// has at least x's processors free besides w's). So w fits at o, and (the
// argument of msb: before o the profile holds at least what it held before
// the decision) at no earlier start: it goes back to o, nobody has moved,
// and the next job, whose old slot is no earlier (AST), is in the same
// case. The price of the position is then the price so far.
func (s *Policy) msbQuiet(tx int64, x *djob) int64 {
	L, ok := s.snap.LastBelow(tx, tx+x.Dur, x.Need)
	if !ok {
		return math.MinInt64
	}
	return L + 1
}

// msbRest finishes a position of msb whose jobs order[k:] all go back to
// their old slots (msbQuiet) with nobody moved: it records them at those
// slots without placing them. The position's price is then x's own term,
// as at the next positions while x keeps its slot; the placements' pruning
// (price + lb[m+1] above the best, after placing order[m]) would stop it at
// the first m where the loop over positions (own + lb[i] above the best,
// lb non-decreasing) stops at position m+1 before evaluating it, and a
// price above the best is not kept either way: so the reach is N, with
// the same decisions and the same positions evaluated.
func (s *Policy) msbRest(order []*djob, cand []int64, k int) {
	for m := k; m < len(order); m++ {
		w := order[m]
		w.Start, cand[m] = w.X.old, w.X.old
	}
}

// msbScratch is MSB's per-decision arrays, kept between decisions (a
// decision allocates nothing for them once they have grown to the queue).
// Every entry a decision reads it wrote first: lb from the end, bestTe
// when a schedule is kept (read only then), cand up to the reach of the
// last evaluated position (read only below it).
type msbScratch struct {
	lb           []float64
	bestTe, cand []int64
}

// msbCopyRatio is how many profile breakpoints a release is worth when
// MSB undoes a position: the profile is copied back when it has at most
// msbCopyRatio breakpoints per job to release.
const msbCopyRatio = 16

// msbCost is cost(w, Δ) of the slack-based price for moving w by d
// seconds from its reservation before this insertion; +Inf beyond its
// slack.
func (s *Policy) msbCost(w *djob, d int64) float64 {
	if d == 0 {
		return 0
	}
	sl := float64(w.X.d - w.J.Estimate - w.X.old) // current slack
	if float64(d) > sl {
		return math.Inf(1)
	}
	c := math.Pow(float64(w.J.Procs), s.prm.Au) * powSigned(float64(d), s.prm.At)
	if s0 := float64(w.X.d - w.J.Submit - w.J.Estimate); s.prm.Af != 0 && s0 > 0 {
		c *= math.Pow(s0/math.Max(sl, 1), s.prm.Af)
	}
	return c
}

// powSigned is sign(t)·|t|^a, with 0 for t = 0.
func powSigned(t, a float64) float64 {
	switch {
	case t == 0:
		return 0
	case a == 1:
		return t
	case t < 0:
		return -math.Pow(-t, a)
	}
	return math.Pow(t, a)
}

// tolerance is the margin within which two prices count as equal.
func tolerance(p float64) float64 {
	if math.IsInf(p, 0) {
		return 0
	}
	return 1e-9 * math.Max(1, math.Abs(p))
}

// better reports whether (price, moved) beats the best so far: a lower
// price, or an equal price with fewer moved jobs; equal on both keeps the
// earlier position.
func better(price float64, moved int, best float64, bestMoved int) bool {
	if math.IsInf(best, 1) {
		return true
	}
	tol := tolerance(math.Max(math.Abs(price), math.Abs(best)))
	if price < best-tol {
		return true
	}
	return price <= best+tol && moved < bestMoved
}
