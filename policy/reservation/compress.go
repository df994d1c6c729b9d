package reservation

import (
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/profile"
)

// Compress re-places the waiting jobs after capacity was freed: in
// reservation order, each to its earliest fit no later than its
// reservation. Its result is exactly that of Replan (remove every
// reservation, re-insert in the order of the current reservations),
// computed job by job while the other reservations stay in the profile:
//
// When job k (start s, amount n, duration d) is re-placed, a candidate
// window [t, t+d) with t ≤ s meets the later jobs only at instants x ≥ s,
// all inside k's old slot. At such x, k coexisted with every later job
// before the release; the jobs re-placed before k cover x only where they
// did before (they moved earlier and x is past their old start); and the
// release only added free capacity. So n is free at x whether or not the
// later jobs are held, and the earliest fit is the same either way. For
// vectors the argument holds in each resource (a window fits iff it fits
// in every resource). Randomized tests check the equivalence job by job
// (conservative's TestCancellationsEqualLiteral, deadline's
// TestCancellationsEqualFullSearch).
//
// The later jobs hold nothing in [now, s), so k can only move if some
// instant of [now, s) has n free. A forward walk over the profile
// (PrefixMax, per resource) answers that for all jobs in one pass, O(B+Q);
// only the jobs that pass are searched (EarliestFitMoving, which counts
// the job's own hold as free and changes nothing), and only the jobs that
// really move update the profile. The loops are compressScalar (processors)
// and compressVector (requirement vectors), the same steps.
//
// freed is the start of the capacity just released (now for a running job
// that ended early; the reservation's start for a cancelled waiting job).
// Before the release no job could move earlier (after an insertion, a
// pass or a compression, every reservation is an earliest fit given all
// the others), so a job can now move only to a window that meets released
// capacity: the reservation released, or the old slot of a job that moved
// in this pass, all starting at or after freed. The search for a job of
// duration d therefore starts at freed − d + 1, not at now, which keeps a
// cancellation far in the future from scanning the profile from now for
// every later job. For the same reason the window must start before
// released, the end of the released capacity (the early-ended job's hold
// end, the cancelled reservation's end, or the end of a moved job's old
// slot): the search stops there instead of at the job's own reservation,
// which near saturation is far in the future.
//
// With Literal set Compress is Replan; when running jobs overrun their
// holds (possible only without kills) it is Replan too, since their holds
// must first be extended, and then jobs may move later.
func (b *Book[A, X]) Compress(now, freed, released int64) {
	if b.Literal || b.m.overrunning(now) {
		b.Replan(now, nil)
		return
	}
	memo := !b.FullSearch
	if b.FullSearch {
		freed, released = now, Infinity
	}
	switch bk := any(b).(type) {
	case *Book[int, X]:
		compressScalar(bk, bk.m.(*scalar), now, freed, released, memo)
	case *Book[[]int, X]:
		compressVector(bk, bk.m.(*vector), now, freed, released, memo)
	}
	if b.fitted {
		b.freedFrom = Infinity // compressed: every reservation an earliest fit again (replan.go)
	}
}

// query is a compression search that found no earlier start: a job of
// amount n and duration d, for starts in [after, limit).
type query[A any] struct {
	n     A
	d     int64
	after int64
	limit int64
}

// maxFailed is how many failed searches Compress remembers.
const maxFailed = 16

// remember records a failed search of the vector compression, replacing
// the oldest beyond maxFailed (the scalar one keeps a ring).
func (b *Book[A, X]) remember(q query[A]) {
	if len(b.failed) < maxFailed {
		b.failed = append(b.failed, q)
		return
	}
	copy(b.failed, b.failed[1:])
	b.failed[maxFailed-1] = q
}

// compressScalar is Compress's loop for processors, with the profile's
// methods called directly: the hot path of conservative backfilling.
//
// It takes a run of identical jobs — consecutive in the waiting list, with
// the same reservation, processors and duration (job arrays: near
// saturation a queue holds ~5 waiting jobs per such run) — in one step,
// with the result of re-placing them one by one (moveRun). A search starts
// no earlier than the bounds of the jobs it dominates (foundBound for the
// ones that moved, failBound for the ones that could not, both kept for
// the whole pass), and the moved jobs are merged back into order
// (mergeMoved). docs/PERFORMANCE.md has the measurements.
func compressScalar[X any](b *Book[int, X], s *scalar, now, freed, released int64, memo bool) {
	prof := s.p
	pm := prof.PrefixMax(now)
	b.sfailed.reset()
	b.sfound.reset()
	b.grid.reset(prof.Procs())
	budget := gridBudget
	if b.SearchBudget > 0 {
		budget = b.SearchBudget
	}
	b.moved, b.movedAt = b.moved[:0], b.movedAt[:0]
	b.lastListed, b.keptPred, b.maxListed = -1, nil, nil
	unknown := b.unknownUpTo()         // no job numbered up to it is skipped
	minMoved := uint64(math.MaxUint64) // the smallest number moved in this pass
	foundMax, failMax := int64(math.MinInt64), int64(math.MinInt64)
	rels := &b.rels
	rels.reset(prof, now, freed, released, b.spans, memo)
	edge := &b.edge
	edge.reset(memo && b.fitted, min(freed, b.freedFrom), released)
	b.spans = b.spans[:0]
	w := b.wait
	// the jumps over jobs that cannot move (skipping): the failures that
	// dominate every later job they cover (cuts), the filter's bound for
	// the jobs after the released capacity (filterV, -1: none), the index
	// of the list (built when first needed)
	b.cuts = b.cuts[:0]
	filterV, indexed := -1, false
	for i := 0; i < len(w); {
		if indexed && (filterV >= 0 || len(b.cuts) > 0) {
			if i = b.skip(w, i, filterV); i == len(w) {
				break
			}
		}
		e := w[i]
		if e.Start <= now {
			i++
			continue
		}
		if e.Start == Infinity {
			break // the jobs that never fit sort last
		}
		if memo && e.seq > unknown && e.seq < minMoved && b.settledSince(e.seq) {
			i++ // nothing freed for it since it was placed (history.go)
			continue
		}
		r := i + 1 // w[i:r] is the run of jobs identical to e
		for r < len(w) && w[r].Start == e.Start && w[r].Need == e.Need && w[r].Dur == e.Dur {
			r++
		}
		// a new start t < min(released, s) has n free at t itself; the
		// bound never decreases along the list (released only grows)
		if v := pm.Before(min(e.Start, released)); v < e.Need {
			if memo && e.Start >= released {
				// every later job (reserved no earlier) is asked for v
				filterV = v
				if !indexed {
					buildSkip(&b.ix, w, i)
					indexed = true
				}
			}
			i = r
			continue
		}
		if !rels.admit(e.Start, e.Need) {
			i = r // no released interval has room for it
			continue
		}
		d := e.Dur
		after := max(now, freed-d+1)
		if after >= e.Start {
			i = r
			continue
		}
		q := query[int]{n: e.Need, d: d, after: after, limit: min(released, e.Start)}
		// lim: where the search stops; before q.limit when s−1 was not
		// freed, the starts whose window reaches s−1 cannot fit (edge.go)
		lim := edge.limit(q.limit, d, e.Start)
		from := after
		if memo && from < lim {
			// the scans only when a remembered fit or failure reaches past
			// from (foundMax, failMax: upper bounds of what they hold)
			if foundMax > from {
				from = max(from, b.sfound.foundBound(q))
			}
			if failMax > from {
				from = max(from, b.sfailed.failBound(q))
			}
			if from >= q.limit {
				i = r // dominated: no search
				continue
			}
		}
		t := Infinity
		if from < lim {
			if rels.on {
				// only the windows that meet a released interval
				t = rels.search(prof, from, d, e.Need, e.Start, lim)
			} else if memo {
				var done bool
				t, done = prof.EarliestFitMovingBounded(from, d, e.Need, e.Start, lim, budget)
				if !done {
					// a long search: start it again after every fit found
					// in the pass for a job this one dominates
					from = max(t, b.grid.bound(e.Need, d))
					t = e.Start
					if from < lim {
						t = prof.EarliestFitMovingBefore(from, d, e.Need, e.Start, lim)
					}
				}
			} else {
				t = prof.EarliestFitMovingBefore(from, d, e.Need, e.Start, released)
			}
		}
		if t >= e.Start {
			if memo {
				b.sfailed.put(q)
				failMax = max(failMax, q.limit)
				if q.after <= now && q.limit >= released && len(b.cuts) < maxFailed {
					b.cuts = append(b.cuts, q)
					if !indexed {
						buildSkip(&b.ix, w, i)
						indexed = true
					}
				}
			}
			i = r
			continue
		}
		if memo {
			foundMax = max(foundMax, t)
			b.sfound.put(query[int]{n: e.Need, d: d, after: t})
			b.grid.add(e.Need, d, t)
		}
		freed = min(freed, e.Start) // their old slots are released
		released = max(released, e.Start+d)
		b.cuts = slices.DeleteFunc(b.cuts, func(f query[int]) bool { return f.limit < released })
		filterV = -1 // the profile changes
		s0 := e.Start
		edge.add(max(t+d, s0), s0+d) // what the moved copies leave
		k, last := moveRun(prof, w[i:r], t)
		rels.add(prof, now, s0, s0+d)
		if k < r-i && memo {
			// the rest of the run fits at no start in [after, s) of the
			// profile as it is now (moveRun)
			q.limit = e.Start
			b.sfailed.put(q)
			failMax = max(failMax, q.limit)
		}
		for _, x := range w[i : i+k] {
			minMoved = min(minMoved, x.seq)
		}
		b.listMoved(w, i, k)
		// the profile before s0 changed only by the new holds, on
		// [t, min(last+d, s0)): the filter's walk goes on if its largest
		// free count was reached elsewhere, else it restarts with a range
		// query (the jobs after start no earlier)
		if kept, ok := prof.PrefixMaxKept(pm, t, min(last+d, s0)); ok {
			pm = kept
		} else {
			pm = prof.PrefixMaxAt(now, e.Start)
		}
		i = r
	}
	if minMoved != math.MaxUint64 {
		b.touch(minMoved) // their old slots are free
	}
	if len(b.moved) > 0 {
		b.mergeMoved()
	}
}

// listMoved records the jobs w[i:i+k], which have just moved earlier
// (their new starts in order among themselves), for mergeMoved — unless
// they are still in order where they are: after the last job before them
// that stays in place (kept). The list is sorted after the pass iff the
// kept jobs are in order among themselves and the listed ones are put
// back: a kept job that did not move starts no earlier than every job
// before it did (a moved one only went earlier), and one that moved is
// kept only if it comes after the last kept job before it, whose start
// is final when it is compared (the list is walked in order, and jobs
// not visited do not move). A moved job is also listed when it does not
// come after every job listed so far: mergeMoved puts the listed jobs
// back within the span from the first to the last listed position, and
// every job after that span must come after all of them (maxListed, the
// greatest listed so far). Near saturation most moved jobs stay in order
// (a chain of jobs each moving into the slot the one before it left), and
// mergeMoved then touches only the span of the others, or nothing.
// (lastListed, keptPred: the last listed position, and the last kept job
// before the listed run that ends there.)
func (b *Book[A, X]) listMoved(w []*Entry[A, X], i, k int) {
	var p *Entry[A, X]
	if b.lastListed == i-1 {
		p = b.keptPred // nil before the first job
	} else {
		p = w[i-1] // kept: not listed
	}
	if (p == nil || Cmp(p, w[i]) < 0) && (b.maxListed == nil || Cmp(b.maxListed, w[i]) < 0) {
		return // in order where it is
	}
	if b.lastListed != i-1 {
		b.keptPred = p
	}
	b.moved = append(b.moved, w[i:i+k]...)
	for x := i; x < i+k; x++ {
		b.movedAt = append(b.movedAt, x)
		if b.maxListed == nil || Cmp(b.maxListed, w[x]) < 0 {
			b.maxListed = w[x]
		}
	}
	b.lastListed = i + k - 1
}

// gridBudget is how many blocking runs a compression search crosses
// before it asks foundGrid for a later start.
const gridBudget = 16

// mergeMoved restores the (Start, ID) order after a compression moved the
// jobs in b.moved (each earlier; b.movedAt their indices in b.wait,
// increasing): the others are still in order, so they are packed to the
// front and the moved ones, sorted, are merged in from the back, in place:
// O(Q + m log m) for m moved, where sorting the whole list cost O(Q log Q);
// only the span from the first new place to the last old one is touched.
func (b *Book[A, X]) mergeMoved() {
	mv := b.moved
	b.sortMoved()
	w := b.wait
	// only w[lo:hi] changes: the moved jobs were at movedAt, all before
	// hi, and each is now before its old place, after every job of
	// w[:lo]; the jobs of w[hi:] come after every old place, so after
	// every new one
	first, hi := b.movedAt[0], b.movedAt[len(b.movedAt)-1]+1
	lo, _ := slices.BinarySearchFunc(w[:first], mv[0], Cmp[A, X])
	n, skip := first, b.movedAt
	for at := first; at < hi; at++ {
		if len(skip) > 0 && skip[0] == at {
			skip = skip[1:]
			continue
		}
		w[n] = w[at]
		n++
	}
	i, j := n-1, len(mv)-1 // the last kept, the last moved
	for k := hi - 1; j >= 0; k-- {
		if i >= lo && Cmp(w[i], mv[j]) > 0 {
			w[k] = w[i]
			i--
		} else {
			w[k] = mv[j]
			j--
		}
	}
}

// movedKey is a moved job's place in the (Start, ID) order, and its
// index in Book.moved.
type movedKey struct {
	start int64
	id    int
	at    int
}

// sortMoved sorts b.moved by (Start, ID), as Cmp does: on keys of a
// concrete type, whose comparison the sort calls directly, where Cmp on
// the entries is called through the generic dictionary (the sort is most
// of mergeMoved's cost).
func (b *Book[A, X]) sortMoved() {
	mv := b.moved
	keys := b.mkeys[:0]
	sorted := true
	for i, e := range mv {
		keys = append(keys, movedKey{e.Start, e.J.ID, i})
		if i > 0 && (e.Start < mv[i-1].Start || e.Start == mv[i-1].Start && e.J.ID < mv[i-1].J.ID) {
			sorted = false
		}
	}
	b.mkeys = keys
	if sorted {
		return
	}
	slices.SortFunc(keys, func(x, y movedKey) int {
		if x.start != y.start {
			if x.start < y.start {
				return -1
			}
			return 1
		}
		return x.id - y.id
	})
	tmp := append(b.mtmp[:0], mv...)
	for i, k := range keys {
		mv[i] = tmp[k.at]
	}
	clear(tmp) // no stale pointers kept
	b.mtmp = tmp[:0]
}

// moveRun re-places the run of identical jobs run (reservation s, amount
// n, duration d, consecutive in the waiting list), whose first job's
// earliest fit is t < s, as re-placing them one by one would, and returns
// how many moved (at least one; those that did not keep s) and the latest
// start they moved to.
//
// Why the jobs can be taken together: let P be the profile before the
// first job of the run moved. For every copy the window of a start before
// s is cut at s (its own hold counts as free), and moving a copy changes
// the profile before s only by adding its new hold; so before s the
// profile only gets fuller as copies move. Every start before t failed for
// the first copy in P, so it fails for every later copy: the next copy's
// earliest fit is at t or later. At t it fits while the copies placed at t
// leave n free over [t, min(t+d, s)): with F the least free count there in
// P, min(len, F/n) copies go to t. The next one, if any, fits nowhere
// before t+1 and its earliest fit from t+1 is searched as the first's was;
// a search that fails ends the run (the later copies see the same
// profile). The released capacity bounds stay valid: the old slots of the
// copies start at s, and the copies' windows are cut at s.
func moveRun[X any](prof *profile.Profile, run []*Entry[int, X], t int64) (int, int64) {
	e := run[0]
	s, n, d := e.Start, e.Need, e.Dur
	k, last := 0, t
	for k < len(run) {
		c := len(run) - k
		if c > 1 && n > 0 {
			c = min(c, prof.MinFree(t, min(t+d, s))/n)
		}
		prof.Move(s, t, d, c*n) // the search found room for each
		last = t
		for _, x := range run[k : k+c] {
			x.Start = t
		}
		k += c
		if k == len(run) {
			break
		}
		t = prof.EarliestFitMovingBefore(t+1, d, n, s, s)
		if t >= s {
			break
		}
	}
	return k, last
}

// skipping: a compression pass jumps over jobs that cannot move.
//
// A failed search f (amount n, duration d, from f.after ≤ now, up to
// f.limit ≥ released) bounds, by failBound's argument, the earliest fit of
// every later job j with n_j ≥ n and d_j ≥ d: it is no earlier than
// f.limit, while j's search would stop at min(released, s_j) ≤ f.limit
// and start at after_j ≥ now ≥ f.after; so j does not move, and visiting
// it would change nothing. Such failures are the cuts; a move that raises
// released drops the ones whose limit it passes.
//
// When a job reserved at or after released fails the filter (the most
// free at any instant before released, v, is below its amount), every
// later job is asked the same v (its reservation is no earlier), so the
// ones that need more than v are filtered too, until a move changes the
// profile.
//
// skip returns the first position from i on that neither skips, with the
// index's jumps: O(log Q) per jump, where visiting cost O(1) per job.

// skip is the first position ≥ i whose job is neither filtered by v (if
// v ≥ 0) nor dominated by a cut.
func (b *Book[A, X]) skip(w []*Entry[int, X], i, v int) int {
	ix := &b.ix
	for i < len(w) {
		e := w[i]
		if v >= 0 && e.Need > v {
			i = ix.needBelow(i, v+1)
			continue
		}
		j := i
		for _, f := range b.cuts {
			if e.Need >= f.n && e.Dur >= f.d {
				j = min(ix.needBelow(i, f.n), ix.durBelow(i, f.d))
				break
			}
		}
		if j == i {
			return i
		}
		i = j
	}
	return i
}
