package policy

// Pending collects the capacity released at one instant — running jobs
// that ended before the end of their hold, waiting jobs cancelled — so
// that a reservation-based policy reacts once, after it has seen every
// release of the instant, and not after each in turn.
//
// Why: the caller reports the ends of an instant one by one (the
// simulator in job-ID order), but they happen together. A policy that
// compressed its schedule at each Remove would see the jobs not yet
// removed as still running: one whose hold ends exactly now looks
// overrunning (its hold would be extended and reservations moved later),
// and the compressions' result would depend on the order of the ends.
// Deferring the reaction to the next call that needs the schedule (the
// next Insert, the pass, a query, or a Remove at a later instant) makes
// the schedule a function of the set of the instant's ends, which the
// protocol of Scheduler delivers before any submission and before the
// pass.
type Pending struct {
	on            bool
	now           int64
	freed, relEnd int64
	// the released intervals one by one, up to maxSpans (spans > maxSpans:
	// not kept, Spans returns nil)
	span  [maxSpans]Span
	spans int
}

// Span is one released interval [From, To).
type Span struct{ From, To int64 }

// maxSpans is how many released intervals of one instant Pending keeps
// apart (beyond, only their merged bounds).
const maxSpans = 8

// Add records a release at now of capacity from freed to relEnd (the
// start and end of the released interval: now and the hold's end for an
// early end, the reservation for a cancellation). Releases already
// pending at an earlier instant must have been taken first (Due).
func (p *Pending) Add(now, freed, relEnd int64) {
	if !p.on {
		p.on, p.now, p.freed, p.relEnd = true, now, freed, relEnd
		p.span[0], p.spans = Span{freed, relEnd}, 1
		return
	}
	p.freed = min(p.freed, freed)
	p.relEnd = max(p.relEnd, relEnd)
	if p.spans < maxSpans {
		p.span[p.spans] = Span{freed, relEnd}
	}
	p.spans++
}

// Spans returns the pending released intervals one by one, in the order
// they were added, or nil when none are pending or more than maxSpans
// were (then only the merged bounds of Take are known). A policy may use
// them to rule out moves the merged bounds allow (a window must meet
// released capacity); the slice is valid until the next Add.
func (p *Pending) Spans() []Span {
	if !p.on || p.spans > maxSpans {
		return nil
	}
	return p.span[:p.spans]
}

// Due reports whether releases are pending from an instant before now
// (a Remove at a new instant must first settle those of the previous one).
func (p *Pending) Due(now int64) bool { return p.on && p.now < now }

// Take returns the pending releases, merged — the instant, the earliest
// freed start and the latest released end — and clears them; ok is false
// when none are pending.
func (p *Pending) Take() (now, freed, relEnd int64, ok bool) {
	if !p.on {
		return 0, 0, 0, false
	}
	p.on = false
	return p.now, p.freed, p.relEnd, true
}

// Peek returns the pending releases like Take, without clearing them
// (a policy's snapshot saves them).
func (p *Pending) Peek() (now, freed, relEnd int64, ok bool) {
	return p.now, p.freed, p.relEnd, p.on
}

// SettlerAhead is implemented by policies that react to an instant's
// releases lazily (Pending) and can do it ahead: SettleAhead(now) makes
// now the reaction to the releases of instant now that the next Insert,
// pass or query would make, so that a live driver does that work at the
// end of the request that released the capacity (a cancellation), and the
// next submission does not pay for it. The decisions stay exactly those
// made without it: a Remove at the same instant first undoes the reaction
// made ahead (the releases of one instant are still reacted to once,
// together), every other call keeps it, and a Snapshot saves the state
// before it. A policy that cannot undo its reaction (a re-plan in a queue
// order, running jobs past their holds) does nothing. The simulator never
// calls it. It reports whether it reacted (something was pending).
type SettlerAhead interface {
	SettleAhead(now int64) bool
}
