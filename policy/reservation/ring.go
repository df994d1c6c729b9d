package reservation

import "math"

// ring is the scalar compression's memory of the last maxFailed queries of
// a pass (its failed searches, or its fits): the same set as a list that
// drops its oldest entry beyond maxFailed, kept as a ring of columns, so
// that adding one moves nothing and a bound is a branch-free scan
// (failBound and foundBound are asked at most visited jobs of a pass).
type ring struct {
	n            [maxFailed]int
	d            [maxFailed]int64
	after, limit [maxFailed]int64
	len, next    int // entries held; the slot the next one takes
}

// reset empties the ring.
func (r *ring) reset() { r.len, r.next = 0, 0 }

// put records q, replacing the oldest entry beyond maxFailed.
func (r *ring) put(q query[int]) {
	k := r.next
	r.n[k], r.d[k], r.after[k], r.limit[k] = q.n, q.d, q.after, q.limit
	r.next = (k + 1) % maxFailed
	r.len = min(r.len+1, maxFailed)
}

// b2i is 1 for true, 0 for false (compiled without a branch).
func b2i(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

// failBound is the latest end of a failed search remembered in this pass
// for a job that q's dominates (no more processors, no longer duration, a
// search from no later), or math.MinInt64: q's job fits at no start before
// it. The argument of foundBound covers the starts of [f.after, f.limit),
// from q.after ≥ f.after on; and it survives the moves made since the
// failure: a job that moved came later in the list, so the old slot it
// released starts at or after the failed job's reservation, past the
// instant x that blocked each start, and its new hold only lowers free
// counts. So the failures are kept across moves (for vectors too:
// failBoundVector), and a failure with f.limit ≥ q.limit skips q's search
// altogether.
func (r *ring) failBound(q query[int]) int64 {
	from := int64(math.MinInt64)
	for k := range r.len {
		ok := b2i(r.n[k] <= q.n) & b2i(r.d[k] <= q.d) & b2i(r.after[k] <= q.after)
		mask := -ok // all ones if f dominates q's job, else 0
		from = max(from, r.limit[k]&mask|math.MinInt64&^mask)
	}
	return from
}

// foundBound is the latest start found in this pass (held as after) for a
// job that q's dominates, or math.MinInt64: a job earlier in the waiting
// list, with no more processors and no longer duration, whose earliest fit
// was t. No start before t fits q's job: every start before t met an
// instant x < s (s the earlier job's reservation, its window being cut
// there) with fewer than its processors free; the jobs that moved since
// (the earlier job among them) released only old slots, which start at s
// or later, and took capacity elsewhere, so x still has fewer free, and x
// lies in q's window too (q's duration is no shorter and its reservation,
// later in the list, no earlier). The earliest fit of q's job is therefore
// at t or later.
func (r *ring) foundBound(q query[int]) int64 {
	from := int64(math.MinInt64)
	for k := range r.len {
		ok := b2i(r.n[k] <= q.n) & b2i(r.d[k] <= q.d)
		mask := -ok
		from = max(from, r.after[k]&mask|math.MinInt64&^mask)
	}
	return from
}
