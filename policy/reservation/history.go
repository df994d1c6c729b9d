package reservation

// Which waiting jobs a compression can move.
//
// After every insertion and every compression each reservation is an
// earliest fit given all the others. Let J be a waiting job added by Add
// (after Settle) and P the profile just after J was placed: every job then
// waiting, J among them, was at an earliest fit in P. If every change
// since that may have freed capacity affected only jobs added after J (a
// cancellation of such a job, a move of one), every hold of P is still
// there, where it was, and the profile uses, at every instant, at least
// what P used: J cannot move, and the compression need not search it.
// Within a pass the same holds until a job added before J moves (its old
// slot was in P). An early end of a running job or a re-plan affects
// every job. In the live service, where clients cancel jobs they have just
// submitted, the compression then searches only the few jobs submitted
// while the cancelled ones were in flight, not the whole queue.
//
// The book numbers the jobs of Add (Entry.seq, from 1; 0 for entries a
// policy built itself, never skipped) and keeps the history of the changes
// that may free capacity as events (count, seq): count the number of jobs
// added when it happened, seq the smallest number of a job it affected (0:
// every job). With S(j) the smallest seq over the events with count ≥ j
// (those after job j was added), job j cannot move if S(j) > j
// (settledSince). Only the suffix minima matter, so the history is a stack
// with count and seq increasing upwards (an event pops those with a seq no
// smaller); it is cut to its upper half beyond maxHistory entries
// (histCut: the last count cut off, at or below which nothing is known).

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

// settledSince reports whether every event since job j was added
// affected only jobs added after it: S(j) > j (see the comment at the
// top). The first event with count ≥ j on the stack holds S(j).
func (b *Book[A, X]) settledSince(j uint64) bool {
	if j <= b.histCut {
		return false
	}
	h := b.hist
	lo, hi := 0, len(h)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if h[m].count < j {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo == len(h) || h[lo].seq > j
}

// unknownUpTo is the largest number j for which settledSince is false
// for every job numbered at most j because an event affected every job
// (seq 0, at the bottom of the stack) or the history was cut.
func (b *Book[A, X]) unknownUpTo() uint64 {
	if len(b.hist) > 0 && b.hist[0].seq == 0 {
		return max(b.histCut, b.hist[0].count)
	}
	return b.histCut
}

// maxScan bounds the events keepBelow looks at.
const maxScan = 64
