package reservation

import "github.com/backfill-hpc/backfill/policy"

// Reacting ahead (policy.SettlerAhead). A live driver asks the book to
// react to the releases of instant now at the end of the request that
// made them (SettleAhead), instead of at the next call, which would be
// the next submission. The schedule must not change: the releases of one
// instant are reacted to once, together, whatever the requests'
// boundaries. So the book keeps what the reaction changed — the waiting
// list's order, every reservation, the release history and the pending
// releases — until the next call: a Remove at the same instant first
// undoes the reaction (undoAhead: the moved holds go back in the profile),
// then records its own release, merged with the earlier ones, as if the
// reaction had never happened; every other call (Settle, through every
// Insert, pass and query) finds nothing pending and keeps it, exactly as
// it would have made it. Unsettled gives a policy's snapshot the state
// before the reaction, so that a restored policy undoes the same way.

// aheadState is the book before SettleAhead's reaction.
type aheadState[A, X any] struct {
	now     int64
	pend    policy.Pending
	wait    []*Entry[A, X] // the waiting list, in its order then
	starts  []int64        // wait's reservations then
	hist    []event
	histCut uint64
}

// SettleAhead reacts now to the pending releases of instant now (as
// Settle at now would), keeping the state before it until the next call;
// it reports whether it did. It does nothing when nothing of instant now
// is pending, or when the reaction cannot be undone exactly: the literal
// compression and the re-plan for overrunning jobs (which may move jobs
// later and lengthen running holds), or a catch-up still due.
func (b *Book[A, X]) SettleAhead(now int64) bool {
	b.ahead = nil
	pn, _, _, ok := b.pend.Peek()
	if !ok || pn != now || b.Literal || b.m.stale(now) || b.m.overrunning(now) {
		return false
	}
	a := b.spare
	if a == nil {
		a = &aheadState[A, X]{}
	}
	b.spare = nil
	a.now, a.pend, a.histCut = now, b.pend, b.histCut
	a.wait = append(a.wait[:0], b.wait...)
	a.starts = a.starts[:0]
	for _, e := range b.wait {
		a.starts = append(a.starts, e.Start)
	}
	a.hist = append(a.hist[:0], b.hist...)
	b.settle()
	b.ahead = a
	return true
}

// Unsettled returns the state before SettleAhead's reaction while it may
// still be undone — the waiting list in its order then, with each entry's
// reservation then (starts[i] for wait[i]), and the releases it reacted
// to — for a policy's snapshot; ok is false otherwise (the book is as it
// looks).
func (b *Book[A, X]) Unsettled() (wait []*Entry[A, X], starts []int64, now, freed, released int64, ok bool) {
	a := b.ahead
	if a == nil {
		return nil, nil, 0, 0, 0, false
	}
	now, freed, released, _ = a.pend.Peek()
	return a.wait, a.starts, now, freed, released, true
}

// keepAhead makes the reaction made ahead final (every call but a Remove
// at its instant).
func (b *Book[A, X]) keepAhead() {
	if b.ahead != nil {
		b.spare, b.ahead = b.ahead, nil
	}
}

// undoAhead restores the book as it was before SettleAhead: the jobs the
// reaction moved release their new holds and take their old ones again
// (all released first, so that the profile never holds more than it did),
// and the order, the history and the pending releases come back.
func (b *Book[A, X]) undoAhead() {
	a := b.ahead
	b.ahead = nil
	for i, e := range a.wait {
		if e.Start != a.starts[i] && e.Start != Infinity {
			if err := b.m.remove(e.Start, e.Start+e.Dur, e.Need); err != nil {
				b.fail(err) // unreachable: the reaction placed it there
			}
		}
	}
	for i, e := range a.wait {
		if s := a.starts[i]; e.Start != s {
			e.Start = s
			if s != Infinity {
				if err := b.m.add(s, s+e.Dur, e.Need); err != nil {
					b.fail(err) // unreachable: it held it before
				}
			}
		}
	}
	b.wait = append(b.wait[:0], a.wait...)
	b.hist = append(b.hist[:0], a.hist...)
	b.histCut = a.histCut
	b.pend = a.pend
	b.spare = a
	b.fitted = false // the releases are pending again (replan.go)
}
