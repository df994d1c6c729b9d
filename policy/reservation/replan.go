package reservation

// The re-plan after running jobs overran (Replan, catchUp) without a
// search for every job.
//
// The literal re-plan removes every reservation, lengthens the holds of
// the overrunning jobs and re-places the waiting jobs in reservation
// order, each at its earliest fit from now given the ones placed before
// it. With a queue of thousands (RICC without kills) that is thousands of
// earliest-fit searches across a packed profile per overrun, and most jobs
// land where they were. The fast re-plan (replanFast, replace) computes
// the same placement and searches only where a job may land elsewhere.
//
// What it relies on (Book.fitted): every reservation was an earliest fit
// given all the others when the last compression, re-plan or insertion
// placed it, and since then the profile changed only by holds added or
// lengthened (insertions, starts, extensions), by time passing, and by
// capacity released at or after Book.freedFrom (early ends and
// cancellations not yet compressed). Hold, Unhold, Insert, SetWait, Sort
// and AddPending — a policy arranging reservations itself (slack-based,
// QoPS/MSB/MRT's admission, a restored snapshot) — clear it; Compress (from
// a fitted book), Replan and catchUp set it again.
//
// Why the result is the literal one. Let job k (old start s, amount n,
// duration d) be next in the re-plan, P the profile then (running holds
// extended, the jobs before k at their new places) and F the union of
// [freedFrom, ∞) and the old slots of the jobs before k that moved. A
// window [t, t+d) with now ≤ t < s that does not meet F does not fit in P:
//
//   - the later jobs (start ≥ s) meet such a window only inside k's own
//     old slot, where k held n beside them; so if it fitted with the jobs
//     before k at their old places, it would have fitted with all the
//     others held, and k was at an earliest fit given all the others
//     (held holds only added since, released capacity only in F);
//   - in P, off F, every instant is used at least as much as with the jobs
//     before k at their old places: the running holds were only
//     lengthened, the jobs that did not move hold the same, and a job
//     that moved holds nothing there at its old place (that is in F).
//
// So the earliest fit of k is no earlier than min(s, max(now, f−d+1)),
// f = min F: when no job before k moved and nothing was released (f =
// Infinity), k stays at s if its old window still fits (one range query,
// no search), and otherwise its earliest fit is at or after s. Within
// one re-plan the profile only loses room, so a job's earliest fit is
// also no earlier than the fit found in the same re-plan for an earlier
// job of the same processors and duration (the scalar case keeps the
// last fit of each shape, shapeCache), which starts its search there.
//
// Tests compare it with the literal re-plan (Literal) job by job.

import (
	"math"
	"slices"
)

// replanFast reports whether a re-plan at now in the order of order may
// take the fast path: in reservation order (nil), on a fitted book, not
// Literal, no reservation before now.
func (b *Book[A, X]) replanFast(now int64, order []*Entry[A, X]) bool {
	return order == nil && b.fitted && !b.Literal && (len(b.wait) == 0 || b.wait[0].Start >= now)
}

// unplaceAll removes every reservation from the profile. On the fast
// path (a fitted book, whose profile holds nothing but the running jobs
// and the reservations) with more waiting jobs than running ones, the
// profile is rebuilt from the running jobs' holds instead (fewer updates;
// policy.Running.HoldsOnly).
func (b *Book[A, X]) unplaceAll(now int64, fast bool) {
	if fast && len(b.wait) > b.m.running() {
		b.m.holdsOnly(now) // no search starts before now
		return
	}
	for _, e := range b.wait {
		b.unplace(e)
	}
}

// replace re-places the waiting jobs, whose reservations were removed and
// whose running holds were lengthened, in the order of order, each at its
// earliest fit from now: literally (fast false: a search for each) or by
// replaceScalar/replaceFitted (fast, order is b.wait). The book is fitted
// afterwards: every reservation is an earliest fit given the others.
func (b *Book[A, X]) replace(now int64, order []*Entry[A, X], fast bool) {
	switch {
	case !fast:
		for _, e := range order {
			b.place(now, e)
		}
		b.Sort()
	default:
		b.rmoved = b.rmoved[:0]
		if bk, ok := any(b).(*Book[int, X]); ok {
			replaceScalar(bk, now)
		} else {
			b.replaceFitted(now)
		}
		b.touch(0) // as Sort: jobs may have moved later
		b.resort()
	}
	b.fitted, b.freedFrom = true, Infinity
}

// resort restores the (Start, ID) order of the waiting list after a fast
// re-plan changed the reservations of the jobs in b.rmoved (in list
// order) and of no other. The others keep their reservations, so they are
// still in order among themselves: they are packed to the front, the moved
// ones are sorted and the two sorted lists are merged from the back, in
// place — O(Q + m log m) for m moved, where sorting the whole list cost
// O(Q log Q) per re-plan.
func (b *Book[A, X]) resort() {
	mv := b.rmoved
	if len(mv) == 0 {
		return
	}
	w := b.wait
	n, k := 0, 0
	for _, e := range w {
		if k < len(mv) && e == mv[k] {
			k++
			continue
		}
		w[n] = e
		n++
	}
	slices.SortFunc(mv, Cmp[A, X])
	i, j := n-1, len(mv)-1 // the last kept, the last moved
	for at := len(w) - 1; j >= 0; at-- {
		if i >= 0 && Cmp(w[i], mv[j]) > 0 {
			w[at] = w[i]
			i--
		} else {
			w[at] = mv[j]
			j--
		}
	}
	clear(mv) // no stale pointers kept
	b.rmoved = mv[:0]
}

// replaceFitted is the fast re-plan (see the file comment) for any
// amount: the old window when nothing before it was freed and it still
// fits, else a search from the bound.
func (b *Book[A, X]) replaceFitted(now int64) {
	f := b.freedFrom
	for _, e := range b.wait {
		s := e.Start
		if s == Infinity {
			b.replaceUnfitted(now, e) // it never fits
			continue
		}
		d := max(e.Dur, 1)
		lo := s
		if f != Infinity {
			lo = min(s, max(now, f-d+1))
		}
		t := s
		if lo < s || !b.m.fits(s, d, e.Need) {
			t = b.m.earliestFit(lo, e.Dur, e.Need) // no fit before lo
		}
		b.hold(e, t)
		if t != s {
			f = min(f, s)
			b.rmoved = append(b.rmoved, e)
		}
	}
}

// replaceScalar is replaceFitted for processors, with the bound of the
// shape cache.
func replaceScalar[X any](b *Book[int, X], now int64) {
	p := b.m.(*scalar).p
	c := &b.shapes
	c.reset()
	f := b.freedFrom
	for _, e := range b.wait {
		s := e.Start
		if s == Infinity {
			b.replaceUnfitted(now, e)
			continue
		}
		d := max(e.Dur, 1)
		lo := s
		if f != Infinity {
			lo = min(s, max(now, f-d+1))
		}
		from := max(lo, c.get(e.Need, d))
		var t int64
		if from == s && p.Fits(s, d, e.Need) { // no fit before from
			t = s
		} else {
			t = p.EarliestFit(from, e.Dur, e.Need)
		}
		c.put(e.Need, d, t)
		// t is a fit (Fits or EarliestFit found room over [t, t+d)): the
		// hold goes in without Add's range check
		e.Start = t
		p.AddFitted(t, t+e.Dur, e.Need)
		if t != s {
			f = min(f, s)
			b.rmoved = append(b.rmoved, e)
		}
	}
}

// replaceUnfitted places e, a job without a reservation (it never fits),
// as the literal re-plan would, and records it as moved if it got one.
func (b *Book[A, X]) replaceUnfitted(now int64, e *Entry[A, X]) {
	b.place(now, e)
	if e.Start != Infinity {
		b.rmoved = append(b.rmoved, e)
	}
}

// hold puts e at t and holds it there.
func (b *Book[A, X]) hold(e *Entry[A, X], t int64) {
	e.Start = t
	if err := b.m.add(t, t+e.Dur, e.Need); err != nil {
		b.fail(err) // unreachable: t is a fit
	}
}

// shapeCacheSize is the number of shapes the re-plan remembers (direct
// mapped: a shape evicts the one in its slot).
const shapeCacheSize = 1024

// shapeCache remembers, for one re-plan, the last fit of each shape
// (processors, duration): a lower bound on the earliest fit of a later job
// of that shape, since within a re-plan the profile only loses room.
type shapeCache struct {
	slot [shapeCacheSize]shapeSlot
	gen  uint32
}

type shapeSlot struct {
	n   int
	d   int64
	t   int64
	gen uint32
}

func (c *shapeCache) reset() {
	c.gen++
	if c.gen == 0 { // wrapped: clear for real
		c.slot = [shapeCacheSize]shapeSlot{}
		c.gen = 1
	}
}

func shapeIndex(n int, d int64) int {
	h := uint64(n)*0x9e3779b97f4a7c15 ^ uint64(d)*0xc2b2ae3d27d4eb4f
	return int(h>>54) & (shapeCacheSize - 1)
}

// get is the last fit of shape (n, d) in this re-plan, or MinInt64.
func (c *shapeCache) get(n int, d int64) int64 {
	s := &c.slot[shapeIndex(n, d)]
	if s.gen == c.gen && s.n == n && s.d == d {
		return s.t
	}
	return math.MinInt64
}

// put records a fit at t of shape (n, d).
func (c *shapeCache) put(n int, d, t int64) {
	c.slot[shapeIndex(n, d)] = shapeSlot{n: n, d: d, t: t, gen: c.gen}
}
