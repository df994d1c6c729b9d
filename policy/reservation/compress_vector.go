package reservation

import (
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/profile"
)

// compressVector is Compress's loop for requirement vectors (FF-CONS):
// compressScalar's, with each step taken in every resource. The arguments
// of compressScalar hold resource by resource, since a window fits a
// vector iff it fits in every resource:
//
//   - a run of identical jobs (same reservation, vector and duration)
//     moves as moveRunVector does: the copies placed at t are as many as
//     every resource needing some has room for over [t, min(t+d, s));
//   - a fit found in the pass (foundBoundVector) or a failure remembered
//     across moves (failBoundVector) bounds the search of a job that
//     needs no less in any resource and no shorter duration: the instant
//     that blocked each earlier start lacks capacity in some resource the
//     dominated job needs, and so does it for the dominating job;
//   - the jumps over jobs that cannot move (skipping, skipVector): a
//     failure covers the later jobs that need no less in every resource,
//     and the filter's bound, in the resource that filtered a job after
//     the released capacity, the later jobs that need more there;
//   - the jobs nothing was freed for are skipped (history.go), the moved
//     jobs are merged back into order (mergeMoved), and the filter's walks
//     go on over a move that did not touch their largest free count, or
//     restart at the moved job's new start (keepMaxAt, per resource).
//
// The grid of compressScalar (fits in classes of sizes) is not kept for
// vectors: the searches are the plain bounded ones (Multi.
// EarliestFitMovingBefore). With one resource (ff-cons without a second
// one) the memories of failures and fits are compressScalar's rings on the
// one amount: the same entries as the lists, so the same bounds, without
// a loop over the vector per entry.
func compressVector[X any](b *Book[[]int, X], v *vector, now, freed, released int64, memo bool) {
	v.resetMax(now)
	b.failed = b.failed[:0]
	b.found = b.found[:0]
	// one resource: the memories are the scalar compression's rings, on
	// the one amount (the same entries, so the same bounds, scanned
	// without a loop over the vector per entry)
	one := len(v.pms) == 1
	b.sfailed.reset()
	b.sfound.reset()
	b.moved, b.movedAt = b.moved[:0], b.movedAt[:0]
	b.lastListed, b.keptPred, b.maxListed = -1, nil, nil
	unknown := b.unknownUpTo()
	minMoved := uint64(math.MaxUint64)
	w := b.wait
	edge := &b.edge
	edge.reset(memo && b.fitted, min(freed, b.freedFrom), released)
	// the jumps of compressScalar (skipping): the filter's bound in
	// resource fr (fv; fr -1: none), the cuts, the index
	b.vcuts = b.vcuts[:0]
	fr, fv, indexed := -1, 0, false
	for i := 0; i < len(w); {
		if indexed && (fr >= 0 || len(b.vcuts) > 0) {
			if i = b.skipVector(w, i, fr, fv); i == len(w) {
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
		for r < len(w) && w[r].Start == e.Start && w[r].Dur == e.Dur && slices.Equal(w[r].Need, e.Need) {
			r++
		}
		if res, val, ok := v.belowIn(min(e.Start, released), e.Need); ok {
			if memo && e.Start >= released {
				fr, fv = res, val // every later job is asked the same in res
				if !indexed {
					buildSkipVector(&b.ix, w, i, len(e.Need))
					indexed = true
				}
			}
			i = r
			continue
		}
		d := e.Dur
		after := max(now, freed-d+1)
		if after >= e.Start {
			i = r
			continue
		}
		q := query[[]int]{n: e.Need, d: d, after: after, limit: min(released, e.Start)}
		lim := edge.limit(q.limit, d, e.Start) // edge.go
		from := after
		if memo && from < lim {
			if one {
				sq := query[int]{n: e.Need[0], d: d, after: after, limit: q.limit}
				from = max(from, b.sfound.foundBound(sq), b.sfailed.failBound(sq))
			} else {
				from = max(from, foundBoundVector(b.found, q), failBoundVector(b.failed, q))
			}
			if from >= q.limit {
				i = r // dominated: no search
				continue
			}
		}
		t := e.Start
		if from < lim {
			t = v.m.EarliestFitMovingBefore(from, d, e.Need, e.Start, lim)
		}
		if t >= e.Start {
			if memo {
				rememberVector(b, q, one)
				if q.after <= now && q.limit >= released && len(b.vcuts) < maxFailed {
					b.vcuts = append(b.vcuts, q)
					if !indexed {
						buildSkipVector(&b.ix, w, i, len(e.Need))
						indexed = true
					}
				}
			}
			i = r
			continue
		}
		if memo {
			if one {
				b.sfound.put(query[int]{n: e.Need[0], d: d, after: t})
			} else {
				b.found = appendBoundedVector(b.found, query[[]int]{n: e.Need, d: d, after: t})
			}
		}
		freed = min(freed, e.Start) // their old slots are released
		released = max(released, e.Start+d)
		b.vcuts = slices.DeleteFunc(b.vcuts, func(f query[[]int]) bool { return f.limit < released })
		fr = -1 // the profile changes
		s0 := e.Start
		edge.add(max(t+d, s0), s0+d) // what the moved copies leave
		k, last := moveRunVector(v.m, w[i:r], t)
		if k < r-i && memo {
			q.limit = e.Start // the rest of the run fits nowhere before s
			rememberVector(b, q, one)
		}
		for _, x := range w[i : i+k] {
			minMoved = min(minMoved, x.seq)
		}
		b.listMoved(w, i, k)
		// the walks go on where the new holds, on [t, min(last+d, s0)),
		// did not touch their largest free count (compressScalar)
		v.keepMaxAt(now, e.Start, t, min(last+d, s0)) // the jobs after start no earlier
		i = r
	}
	if minMoved != math.MaxUint64 {
		b.touch(minMoved) // their old slots are free
	}
	if len(b.moved) > 0 {
		b.mergeMoved()
	}
}

// rememberVector records the failed search q of the vector compression:
// in the ring on its one amount (one), else in the list.
func rememberVector[X any](b *Book[[]int, X], q query[[]int], one bool) {
	if one {
		b.sfailed.put(query[int]{n: q.n[0], d: q.d, after: q.after, limit: q.limit})
		return
	}
	b.remember(q)
}

// covered reports f ≤ q in every resource.
func covered(f, q []int) bool {
	for i := range f {
		if f[i] > q[i] {
			return false
		}
	}
	return true
}

// foundBoundVector is ring.foundBound for vectors: the latest fit found in the
// pass for a job needing no more in any resource, with no longer duration.
func foundBoundVector(found []query[[]int], q query[[]int]) int64 {
	from := int64(math.MinInt64)
	for _, f := range found {
		if f.d <= q.d && f.after > from && covered(f.n, q.n) {
			from = f.after
		}
	}
	return from
}

// failBoundVector is ring.failBound for vectors.
func failBoundVector(failed []query[[]int], q query[[]int]) int64 {
	from := int64(math.MinInt64)
	for _, f := range failed {
		if f.d <= q.d && f.after <= q.after && f.limit > from && covered(f.n, q.n) {
			from = f.limit
		}
	}
	return from
}

// appendBoundedVector appends q to list, dropping the oldest beyond
// maxFailed.
func appendBoundedVector(list []query[[]int], q query[[]int]) []query[[]int] {
	if len(list) < maxFailed {
		return append(list, q)
	}
	copy(list, list[1:])
	list[maxFailed-1] = q
	return list
}

// moveRunVector is moveRun for vectors: the copies that go to t are as
// many as the least, over the resources the job needs, of the free
// count over [t, min(t+d, s)) divided by the need. It returns how many
// moved and the latest start they moved to.
func moveRunVector[X any](m *profile.Multi, run []*Entry[[]int, X], t int64) (int, int64) {
	e := run[0]
	s, n, d := e.Start, e.Need, e.Dur
	k, last := 0, t
	for k < len(run) {
		c := len(run) - k
		if c > 1 {
			for i, x := range n {
				if x > 0 {
					c = min(c, m.Res(i).MinFree(t, min(t+d, s))/x)
				}
			}
		}
		for i, x := range n {
			m.Res(i).Move(s, t, d, c*x) // the search found room for each
		}
		last = t
		for _, x := range run[k : k+c] {
			x.Start = t
		}
		k += c
		if k == len(run) {
			break
		}
		t = m.EarliestFitMovingBefore(t+1, d, n, s, s)
		if t >= s {
			break
		}
	}
	return k, last
}

// skipVector is skip for vectors: the first position ≥ i whose job is
// neither filtered in resource fr (needs more than fv there; fr ≥ 0) nor
// dominated by a cut.
func (b *Book[A, X]) skipVector(w []*Entry[[]int, X], i, fr, fv int) int {
	ix := &b.ix
	for i < len(w) {
		e := w[i]
		if fr >= 0 && e.Need[fr] > fv {
			i = ix.needBelowK(fr, i, fv+1)
			continue
		}
		j := i
		for _, f := range b.vcuts {
			if e.Dur >= f.d && covered(f.n, e.Need) {
				j = ix.durBelow(i, f.d)
				for r, x := range f.n {
					if x > 0 {
						j = min(j, ix.needBelowK(r, i, x))
					}
				}
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
