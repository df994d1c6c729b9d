package slack

import (
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/profile"
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
	// with a window (Params.Window), the search sees only its first jobs;
	// the others stay held where they are
	s.win = s.prm.Window > 0 && len(W) > s.prm.Window
	cut := int64(math.MaxInt64)
	if s.win {
		W = W[:s.prm.Window]
		cut = W[len(W)-1].Start
	}
	// slots: now, the profile's breakpoints (running jobs' ends among
	// them) and every waiting job's start and end, ascending and distinct
	// (with a window: those up to the last job's slot in the window, and
	// the new job's conservative slot)
	slots := s.slots[:0]
	slots = append(slots, now)
	switch {
	case onlyNow:
		// the extension is priced at now alone
	case len(W) == 0 && x.J.Estimate >= 1 && x.J.Procs <= prof.Procs():
		// nothing waits: the search ends at the first slot where the job
		// fits, which is its earliest fit (now or a breakpoint where
		// capacity is freed)
		if t := prof.EarliestFit(now, x.J.Estimate, x.J.Procs); t > now {
			slots = append(slots, t)
		}
	default:
		if s.win {
			s.steps = prof.AppendStepsUntil(s.steps[:0], cut)
		} else {
			s.steps = prof.AppendSteps(s.steps[:0])
		}
		for _, st := range s.steps {
			if st.At > now {
				slots = append(slots, st.At)
			}
		}
		ws := s.wslots[:0]
		for _, w := range W {
			ws = append(ws, w.Start)
			if end := w.Start + w.J.Estimate; end <= cut {
				ws = append(ws, end)
			}
		}
		slices.Sort(ws)
		s.wslots = ws
		slots = mergeSlots(slots, ws, &s.merged)
	}
	// with a window, the conservative schedule (every reservation kept,
	// the new job at its earliest fit) is the first candidate: the one
	// schedule of finite price that always exists (§4.2), which the
	// window's slots may no longer reach
	tsc := int64(-1)
	if s.win && !onlyNow && x.J.Procs > 0 {
		tsc = prof.EarliestFit(now, x.J.Estimate, x.J.Procs)
	}
	s.slots = slots
	for _, w := range W {
		s.unhold(w, w.Start)
	}
	// suffix lower bounds of the delayed jobs' costs: no job can start
	// before its earliest fit among the running jobs alone (the profile
	// now, every reservation unheld), and the cost grows with the move
	if cap(s.lb) < len(W)+1 {
		s.lb = make([]float64, len(W)+1)
	}
	lb := s.lb[:len(W)+1]
	lb[len(W)] = 0
	for i := len(W) - 1; i >= 0; i-- {
		w := W[i]
		ef := prof.EarliestFitMoving(now, w.J.Estimate, w.J.Procs, w.Start)
		w.X.efr = ef
		w.X.lbt = math.Min(s.cost(w, ef-w.Start, x.X.p), 0)
		lb[i] = lb[i+1] + w.X.lbt
	}
	if cap(s.best) < len(W) {
		s.best = make([]int64, len(W))
	}
	s.best = s.best[:len(W)]
	// the dummy in AST order delays nobody: every waiting job stays held
	// at its slot, and a slot's compression moves only the jobs that can
	// move (compressAST)
	allHeld := !s.noLazy && s.prm.Order == nil && s.prm.Heuristic == AST && x.J.Procs == 0 && x.J.Estimate == 0
	ast := !s.noLazy && s.prm.Order == nil && (s.prm.Heuristic == AST || s.prm.Heuristic == All)
	if ast {
		// the blocked runs of settled jobs (compressAST), each seen with
		// the jobs before it held
		s.settledFrom(now, W)
		if !allHeld {
			for _, w := range W {
				s.unhold(w, w.Start)
			}
		}
	}
	s.backupK = -1 // no copy of the profile yet (compressAST)

	n, e := x.J.Procs, x.J.Estimate
	bestPrice, bestMoved, bestTs := math.Inf(1), math.MaxInt, int64(-1)
	if tsc >= 0 {
		bestPrice, bestMoved, bestTs = s.ownTerm(tsc, now, n), 0, tsc
		for i, w := range W {
			s.best[i] = w.Start
		}
	}
	k := 0      // W[:k] are held (scheduled before ts)
	sameK := -1 // slots up to this k price the schedule last priced (dummy)
	slot := func(ts int64) bool {
		for k < len(W) && W[k].Start < ts {
			if !allHeld {
				s.hold(W[k], W[k].Start)
			}
			k++
		}
		D := W[k:]
		if n == 0 && k <= sameK && !s.noPrune {
			// the dummy (nothing placed, nothing delayed): the same k, or
			// a k that only holds jobs the last compression left in place,
			// is the same schedule at the same price and moves, which
			// never beats the earlier slot that priced it
			return true
		}
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
		sameK = k
		if ast && !allHeld && s.backupK < 0 && len(D) >= copyMin {
			// the profile before this slot (the running jobs and W[:k]),
			// for the long compressions to go back to
			if s.backup == nil {
				s.backup = profile.New(prof.Procs())
			}
			s.backup.CopyFrom(prof)
			s.backupK = k
		}
		if n > 0 {
			if err := prof.Add(ts, ts+e, n); err != nil {
				panic("slack: " + err.Error()) // unreachable: it fits
			}
		}
		anyFeasible := false
		if !s.noLazy && s.prm.Order == nil && (s.prm.Heuristic == AST || s.prm.Heuristic == All && len(D) > MaxExhaustive) {
			var same int
			var restored bool
			anyFeasible, same, restored = s.compressAST(now, ts, e, D, k, allHeld, own, x.X.p, &bestPrice, &bestMoved, &bestTs)
			if n > 0 && !restored {
				_ = prof.Remove(ts, ts+e, n)
			}
			if allHeld {
				if same < 0 && !s.noPrune {
					return false // nothing moves from any later slot either
				}
				sameK = k + same
			}
			return !(anyFeasible && len(D) == 0)
		}
		for i, d := range D {
			d.X.shifted = d.Start + e
			d.X.cand = d.X.shifted
			if s.win && !prof.Fits(d.X.shifted, d.J.Estimate, d.J.Procs) {
				// the delayed schedule meets the jobs beyond the window:
				// no schedule at this slot
				for _, h := range D[:i] {
					s.unhold(h, h.X.shifted)
				}
				if n > 0 {
					_ = prof.Remove(ts, ts+e, n)
				}
				return true
			}
			s.hold(d, d.X.shifted)
		}
		try := func(order []*sjob) {
			if s.onSlot != nil {
				s.onSlot(ts, order)
			}
			for _, d := range D {
				d.X.cand = d.X.shifted
			}
			price, moved, feasible := own, 0, true
			rest := lb[k] // lower bound of the jobs not yet compressed
			margin := tolerance(lb[k])
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
				rest -= d.X.lbt
				if !s.noPrune && bestTs >= 0 && surelyWorse(price+rest, margin, bestPrice) {
					// this schedule can no longer beat the best one
					feasible = false
					break
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
	for ; k < len(W) && !allHeld; k++ {
		s.hold(W[k], W[k].Start)
	}
	return bestTs, bestPrice, bestTs >= 0
}

// mergeSlots merges the ascending lists a and b into *buf, without
// repeats, and returns it; a's storage is given back to *buf's owner.
func mergeSlots(a, b []int64, buf *[]int64) []int64 {
	out := (*buf)[:0]
	push := func(t int64) {
		if len(out) == 0 || out[len(out)-1] != t {
			out = append(out, t)
		}
	}
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		if j == len(b) || i < len(a) && a[i] <= b[j] {
			push(a[i])
			i++
		} else {
			push(b[j])
			j++
		}
	}
	*buf = a
	return out
}

// surelyWorse reports whether every price at least lo (known up to slack,
// the rounding of the sum of lower bounds) loses to best under better,
// whatever its moves: lo beyond best by more than the tolerance of both
// and a margin. better's tolerance grows with the price, but slower than
// the price, so a price above lo also loses.
func surelyWorse(lo, slack, best float64) bool {
	if lo-slack <= best {
		return false // the usual answer, without the tolerance
	}
	return lo-slack > best+2*tolerance(math.Max(math.Abs(lo), math.Abs(best)))
}

// compressAST prices slot ts for the AST order (the delayed jobs D, in
// order of their slots, delayed by e) and records it in the best schedule if it is
// better; it reports whether the schedule is feasible. The profile holds
// the running jobs, the jobs before ts and the new job at ts; D is not
// held. It is the general search's compression without the delayed
// holds: a job's earliest fit no later than its delayed slot reads the
// profile only before that slot (EarliestFitMoving), and every job after
// it in AST order is delayed to that slot or later, so its hold there
// cannot change the answer. Each job is held where it lands (its delayed
// slot or earlier), for the jobs after it, and only the jobs compressed
// before the price is known to lose are touched: the schedule is the
// general search's, at a cost that grows with the jobs compressed rather
// than with the queue.
//
// With held (the dummy of remove: e = 0 and nothing placed), D is held at
// its slots, which are its delayed slots: a job that cannot move is not
// touched, a job that moves is held at its new slot, and the moved jobs
// go back after the pricing. It then also returns same: the slots whose k
// is at most k + same compress to this very schedule (a slot that holds
// W[k+j] at its slot where this compression left it there goes through
// the same compression from D[j] on: same price, same moves, never
// better), or −1 when that holds for every later slot (nothing moved in
// the whole compression). For an abandoned compression (surely worse,
// from a lower bound of its whole price) the whole compression is still
// the same up to the first job that moves, which comes after the jobs
// compressed; for an infeasible one, as long as the slot still
// compresses the job that made it so.
//
// Without held, the profile goes back to the running jobs and W[:k] (the
// new job's hold included, restored reports) by a copy of s.backup when
// many jobs were compressed, rather than job by job.
func (s *Policy) compressAST(now, ts, e int64, D []*sjob, k int, held bool, own, p float64, bestPrice *float64, bestMoved *int, bestTs *int64) (feasible bool, same int, restored bool) {
	prof := s.run.Prof
	if s.onSlot != nil {
		s.onSlot(ts, D)
	}
	lb := s.lb
	price, moved := own, 0
	feasible = true
	first, ended := -1, false // first moved job; whether D was settled
	rest := lb[k]
	margin := tolerance(lb[k])
	done := 0
	// what the moved jobs release lies before hole; what the new job and
	// the moved jobs add ends by added (settledFrom)
	hole, added := int64(math.MinInt64+1), ts+e
	holeLo := int64(math.MaxInt64) // and begins at holeLo or later
	for _, d := range D {
		s.Stats.Placements++
		d.X.shifted = d.Start + e
		if !s.noSettle && d.X.tau >= hole && (held || d.Start >= added) {
			d.X.cand = d.Start // it stays (settledFrom), no query
		} else {
			s.Stats.Queries++
			// no start before from fits (settledFrom), so the query
			// begins there
			from := now
			if !s.noSettle {
				from = d.X.base
				if holeLo != math.MaxInt64 {
					from = min(from, holeLo-max(d.J.Estimate, 1)+1)
				}
				from = max(from, d.X.efr, now)
			}
			if s.win && !held {
				// the jobs beyond the window are held, not delayed: the
				// earliest start up to the delayed slot where the whole
				// estimate fits, if any
				t := prof.EarliestFitMovingBefore(from, d.J.Estimate, d.J.Procs, profile.Infinity, d.X.shifted+1)
				if t == profile.Infinity {
					feasible = false
					break
				}
				d.X.cand = t
			} else {
				d.X.cand = min(prof.EarliestFitMoving(from, d.J.Estimate, d.J.Procs, d.X.shifted), d.X.shifted)
			}
		}
		switch {
		case !held:
			s.hold(d, d.X.cand)
		case d.X.cand != d.X.shifted:
			s.unhold(d, d.X.shifted)
			s.hold(d, d.X.cand)
		}
		done++
		if dt := d.X.cand - d.Start; dt != 0 {
			if moved == 0 {
				first = done - 1
			}
			moved++
			c := s.cost(d, dt, p)
			if math.IsInf(c, 1) {
				feasible = false
				break
			}
			price += c
			// what d releases ends at its old end or, delayed, at its new
			// start; what it adds ends at its new end or, moved earlier, at
			// its old start
			if dt > 0 {
				hole = max(hole, min(d.X.cand, d.Start+d.J.Estimate))
				holeLo = min(holeLo, d.Start)
				added = max(added, d.X.cand+d.J.Estimate)
			} else {
				hole = max(hole, d.Start+d.J.Estimate)
				holeLo = min(holeLo, max(d.X.cand+d.J.Estimate, d.Start))
				added = max(added, min(d.X.cand+d.J.Estimate, d.Start))
			}
		}
		rest -= d.X.lbt
		if !s.noPrune && *bestTs >= 0 && surelyWorse(price+rest, margin, *bestPrice) {
			feasible = false
			break
		}
		if m := k + done; !s.noSettle && m < len(s.settle) && s.settle[m] >= hole && (held || D[done].Start >= added) {
			ended = true
			break // the rest stays (settledFrom)
		}
	}
	ended = ended || done == len(D) && feasible
	switch {
	case first >= 0:
		same = first
	case ended:
		same = -1
	default:
		// abandoned with nothing moved among D[:done] (an infeasible
		// compression has moved a job)
		same = done
	}
	if feasible && better(price, moved, *bestPrice, *bestMoved) {
		*bestPrice, *bestMoved, *bestTs = price, moved, ts
		W := s.book.Wait()
		for i := 0; i < k; i++ {
			s.best[i] = W[i].Start
		}
		for i, d := range D[:done] {
			s.best[k+i] = d.X.cand
		}
		for i, d := range D[done:] {
			s.best[k+done+i] = d.Start
		}
	}
	if !held && s.backupK >= 0 && done >= copyMin && done*copyPer >= prof.Len() {
		// the profile before the slot: the running jobs and W[:k]
		W := s.book.Wait()
		for ; s.backupK < k; s.backupK++ {
			w := W[s.backupK]
			if err := s.backup.Add(w.Start, w.Start+w.J.Estimate, w.J.Procs); err != nil {
				panic("slack: " + err.Error()) // unreachable: it is held in prof
			}
		}
		prof.CopyFrom(s.backup)
		return feasible, same, true
	}
	// every moved job released before any goes back: a later job may
	// have moved into an earlier one's slot
	for _, d := range D[:done] {
		if !held || d.X.cand != d.X.shifted {
			s.unhold(d, d.X.cand)
		}
	}
	if held {
		for _, d := range D[:done] {
			if d.X.cand != d.X.shifted {
				s.hold(d, d.X.shifted)
			}
		}
	}
	return feasible, same, false
}

// copyMin is the number of compressed jobs from which a slot restores the
// profile by a copy (compressAST), and copyPer the breakpoints whose copy
// costs about as much as releasing one job's hold (measured on SDSC-Par
// and KTH: the thresholds between 0 and 24 jobs differ by noise).
const (
	copyMin = 8
	copyPer = 64
)

// settledFrom sets s.settle for the waiting jobs W (all held, AST order;
// the running jobs in the profile): s.settle[i] is the least τ of the jobs
// W[i:], where τ of a job says from which hole on it may move earlier.
// The profile ends with W held.
//
// The AST compression of a slot (compressAST) can stop at a job m, with
// every job from m on staying at its slot, when each of them provably
// does. Let hole bound the moved jobs' old slots (everything they release
// lies before it; every old slot is at or after ts) and added the new job's
// and the moved jobs' new slots (everything they add ends by it). Job j of
// the rest, with the jobs before it already settled, is compressed in a
// profile P that holds at least what the base profile B_j holds (the
// running jobs and the jobs before j in AST order at their slots) at every
// instant not released, i.e. from hole on, and at most what the whole
// schedule holds from added on. Then:
//
//   - j fits at its slot when that slot is at or after added (in the whole
//     schedule it does, and P holds no more there); and
//   - j cannot start earlier when every window it could start earlier in
//     meets an instant from hole on at which B_j blocks it (fewer than its
//     n processors free). With efr its earliest fit among the running jobs
//     alone, d its estimate and S its slot, when j cannot start earlier in
//     B_j at all (its base fit is S), let τ be the last instant of
//     [efr, min(efr + d, S)) at which B_j blocks it (there is one: the
//     window from efr does not fit). With hole ≤ τ, a window [t,
//     min(t + d, S)) with efr ≤ t ≤ τ contains τ, which is not released; one
//     with τ < t < S lies wholly from hole on, where P holds at least B_j,
//     in which no window before S fits; and none before efr fits among the
//     running jobs alone. (τ is +∞ when efr = S: j cannot start earlier at
//     all; −∞ when its base fit is before S. The last blocked instant comes
//     from profile.LastBelow; the first form of this cut took τ =
//     min(efr + d, S) − 1 and only when B_j blocks all of [τ, S), the same
//     τ where it applies, and −∞ for the many jobs, long ones far in the
//     queue above all, with short free runs between efr + d and S.)
//
// A settled job neither releases nor adds, so hole and added stay, and the
// rest (ascending slots) settles job by job: the compression stops at the
// first m with hole ≤ settle[m] and, unless nothing is delayed (the dummy
// of remove), W[m]'s slot at or after added. The jobs from m on move by 0
// and cost nothing, so the price and the schedule are the full
// compression's.
func (s *Policy) settledFrom(now int64, W []*sjob) {
	prof := s.run.Prof
	if cap(s.settle) < len(W) {
		s.settle = make([]int64, len(W))
	}
	s.settle = s.settle[:len(W)]
	for i, w := range W {
		tau := int64(math.MinInt64)
		switch {
		case w.J.Estimate < 1 || w.J.Procs < 1:
		case w.X.efr >= w.Start:
			tau = math.MaxInt64
		}
		// the earliest fit with the jobs before it held, for the start of
		// its queries: a window that ends before every released instant
		// meets at least B_j's holds, and none fits before base in B_j
		w.X.base = prof.EarliestFitMoving(now, w.J.Estimate, w.J.Procs, w.Start)
		if tau == math.MinInt64 && w.J.Estimate >= 1 && w.J.Procs >= 1 && w.X.base >= w.Start {
			// the last instant that blocks a window from efr
			if l, ok := prof.LastBelow(w.X.efr, min(w.X.efr+w.J.Estimate, w.Start), w.J.Procs); ok {
				tau = l
			}
		}
		w.X.tau = tau
		s.settle[i] = tau
		s.hold(w, w.Start)
	}
	for i := len(W) - 2; i >= 0; i-- {
		s.settle[i] = min(s.settle[i], s.settle[i+1])
	}
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
	wait := s.book.Wait()[:len(s.best)] // a window's jobs (the rest stay)
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
			// the old slot is released (compressRest)
			s.movedLo, s.movedHi = min(s.movedLo, w.Start), max(s.movedHi, w.Start+max(w.J.Estimate, 1))
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
