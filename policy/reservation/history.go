package reservation

import (
	"math"
	"slices"
)

// Which waiting jobs a cancellation can move.
//
// After every insertion and every compression each reservation is an
// earliest fit given all the others. Let X be a waiting job added by Add
// and P the profile just before X was added. A job J added before X was
// then at an earliest fit in P. If, since X was added, no running job ended
// early, no re-plan happened, and no job added before X was cancelled or
// moved, then every change to the profile since P was a hold added (X, the
// jobs added after X, their new places when they moved) or the removal of
// a hold that P did not contain (a job added after X, cancelled or moved):
// the profile without X uses, at every instant, at least what P used. So
// when X is cancelled, J's earliest fit is still its reservation, and the
// compression need not search it; the jobs that moved in the compression
// were added after X, so this holds for the whole pass. In the live
// service, where a client cancels a job it has just submitted, the
// compression then searches only the few jobs submitted after it instead
// of the whole queue.
//
// The book numbers the jobs of Add (Entry.seq, from 1; 0 for entries a
// policy built itself, which are never skipped) and keeps the history of
// the events that may free capacity as (count, seq): count the number of
// jobs added when it happened, seq the smallest number of a job it
// affected (0: every job, as for an early end or a re-plan). The
// cancellations of an instant with smallest number x may skip the jobs
// numbered below x iff every event with count ≥ x (after X was added) has
// seq ≥ x. Only the suffix minima matter, so the history is a stack with
// seq increasing upwards; it is cut to its upper half beyond maxHistory
// entries, and a question about the part cut off is answered no.

// event is a change that may have freed capacity: after count jobs were
// added, affecting the jobs numbered seq or more.
type event struct {
	count, seq uint64
}

// maxHistory bounds the history stack.
const maxHistory = 4096

// touch records an event affecting the jobs numbered seq or more.
func (b *Book[A, X]) touch(seq uint64) {
	h := b.hist
	for len(h) > 0 && h[len(h)-1].seq >= seq {
		h = h[:len(h)-1]
	}
	h = append(h, event{count: b.count, seq: seq})
	if len(h) > maxHistory {
		half := len(h) / 2
		b.histCut = h[half-1].count
		h = append(h[:0], h[half:]...)
	}
	b.hist = h
}

// unmoved reports whether the events since job x was added left every job
// numbered below x at an earliest fit in a profile that, without x's hold,
// uses no more than the present one (see the comment at the top).
func (b *Book[A, X]) unmoved(x uint64) bool {
	if x == 0 || x <= b.histCut {
		return false
	}
	i, _ := slices.BinarySearchFunc(b.hist, x, func(e event, x uint64) int {
		switch {
		case e.count < x:
			return -1
		case e.count > x:
			return 1
		}
		return 0
	})
	return i == len(b.hist) || b.hist[i].seq >= x
}

// noCancel is pendMin when no waiting job was cancelled at the pending
// instant.
const noCancel = math.MaxUint64
