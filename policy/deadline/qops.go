package deadline

import (
	"slices"

	"github.com/backfill-hpc/backfill/profile"
)

// Points returns QoPS's insertion points for a schedule of n waiting jobs:
// the positions n − ⌊n/2^k⌋ for k = 0, 1, 2, …, i.e. 0, n/2, 3n/4, 7n/8, …
// down to the end of the schedule (position n), distinct and ascending;
// about log2(n) + 2 of them.
func Points(n int) []int {
	var ps []int
	for k := 0; ; k++ {
		p := n
		if k < 63 {
			p = n - n>>k
		}
		if len(ps) == 0 || p != ps[len(ps)-1] {
			ps = append(ps, p)
		}
		if p == n {
			return ps
		}
	}
}

// qops is the admission test of Figure 3. The waiting jobs are in
// reservation order (the book's waiting list). For each insertion point p, the first
// that yields a feasible schedule admits x, which is then in the profile
// and in the waiting list; when none does, the schedule is as before and x is
// rejected.
func (s *Policy) qops(now int64, x *djob) bool {
	if s.refAdmit != nil {
		return s.refAdmit(now, x)
	}
	W := s.book.Wait()
	for i, w := range W {
		w.X.pos = i
	}
	s.setKey(x)
	for _, p := range Points(len(W)) {
		s.Stats.Points++
		if s.qopsAt(now, x, p) {
			return true
		}
	}
	return false
}

// qopsAt tries insertion point p: the jobs W[:p] keep their reservations;
// the others form the temporary list TL, sorted by the heuristic, and x
// is placed first, at position p, then the jobs of TL one by one, each at
// its earliest fit (§3: "we then create a reservation for the newly
// arrived job, and finally generate reservations for the remaining jobs in
// the order specified by TL"). With Params.Sorted, x is sorted into TL
// with the others instead. Positions count in placement
// order from the start of the schedule: the kept jobs are 0..p−1, the k-th
// job placed from TL is at p+k. When the job at position T would miss its
// deadline, the jobs placed at positions mid = ⌊(p+T)/2⌋ … T−1 are
// removed and put back into TL, TL is re-sorted, and the failed job goes
// to its head, so that it is placed right after position mid−1. A
// violation with mid = T (nothing to move: the job misses its deadline
// right after the kept jobs) cannot be repaired and abandons the point at
// once, as does the (K+1)-th violation.
//
// The work does not grow with the queue behind the point when the point
// fails early in time (the usual case near saturation), by three exact
// shortcuts (qopsTry):
//
//   - Lazy release. The jobs W[p:] are released (their holds taken out of
//     the profile) in reservation order only as far as the placements need:
//     while every job still held starts at or after the frontier F, an
//     earliest fit whose window ends by F is the fit in the fully released
//     profile (the windows it tried lie before F, where both profiles
//     agree), and a fit that ends after F is settled by releasing up to
//     min(its end, the job's deadline) and searching again: either the new
//     fit ends by the new frontier, or it ends after the deadline, which
//     is then a violation in the fully released profile too. A job is
//     released before its own placement in any case.
//   - The temporary list is never re-sorted: TL is the waiting jobs of
//     positions ≥ p in the heuristic's order (s.byKey, filtered lazily),
//     merged with a small sorted list of the jobs a repair sent back, with
//     the failed job at its head: the same order as sorting them all.
//   - A failed point is undone hold by hold (the placed jobs taken out, the
//     released ones put back at their reservations), not by copying the
//     profile — except at point 0 when more jobs wait than run and the
//     profile is small enough to copy (Policy.snapshot): every waiting job
//     is released there at once, by rebuilding the profile from the
//     running jobs' holds (Running.HoldsOnly, the fully released profile
//     itself), and a failure copies the profile back. Point 0 releases
//     the whole queue, one update per job, and puts it back when it fails
//     (most decisions near saturation); this costs one update per running
//     job and two copies of O(B) words.
//
// TestAdmissionEqualsReference checks decisions, reservations and counts
// against the literal version (ref_test.go) on random sequences.
func (s *Policy) qopsAt(now int64, x *djob, p int) bool {
	q := &s.qs
	q.reset(s, x, p)
	// at point 0 with more jobs waiting than running, every job is
	// released at once (the profile rebuilt from the running jobs' holds)
	// and a failed point copies the profile back (whole)
	whole := p == 0 && s.run.Len() < len(q.wait) && s.snapshot(len(q.wait))
	if whole {
		for _, w := range q.wait {
			q.mark(w)
		}
		q.r = len(q.wait)
		s.run.HoldsOnly(now)
		s.fm.released(now)
	}
	ok := s.qopsTry(now, x, p)
	if !ok && whole {
		freed := profile.Infinity
		for _, c := range q.placed {
			freed = min(freed, c.Start)
		}
		s.run.Prof.CopyFrom(s.snap)
		s.fm.released(freed)
		for _, c := range q.rel {
			c.Start = c.X.old
		}
		return false
	}
	if !ok {
		// placed jobs back where they were; a job of W[p:] placed at its
		// own reservation never left it (qopsFit)
		for _, c := range q.placed {
			if c != x && c.Start == c.X.old {
				c.X.rel = -q.epoch // still held
				continue
			}
			s.unhold(c, c.Start)
		}
		for _, c := range q.rel {
			if c.X.rel != -q.epoch {
				s.hold(c, c.X.old)
			}
			c.Start = c.X.old
		}
		return false
	}
	// the new schedule: W[:p] unchanged, then every placed job
	W := s.book.Wait()
	nw := make([]*djob, 0, len(W)+1)
	nw = append(nw, W[:p]...)
	nw = append(nw, q.placed...)
	slices.SortFunc(nw, cmpWait)
	s.book.SetWait(nw)
	return true
}

// qopsTry places TL at point p (qopsAt); it reports whether every job met
// its deadline within the K-factor. The profile then holds the placed jobs
// (q.placed) and not the released ones (q.rel).
func (s *Policy) qopsTry(now int64, x *djob, p int) bool {
	q := &s.qs
	violations := 0
	for {
		c := q.pop()
		if c == nil {
			return true
		}
		if t, ok, held := s.qopsFit(now, c); ok {
			c.Start = t
			if !held {
				s.hold(c, t)
			}
			q.placed = append(q.placed, c)
			continue
		}
		violations++
		s.Stats.Violations++
		T := p + len(q.placed)
		mid := (p + T) / 2
		if violations > s.prm.K || mid == T {
			return false
		}
		moved := q.placed[mid-p:]
		for _, m := range moved {
			s.unhold(m, m.Start)
		}
		q.sendBack(moved, c)
		q.placed = q.placed[:mid-p]
	}
}

// qopsFit is c's earliest fit in the profile with every job of W[p:]
// released, computed with only some of them released (see qopsAt), and
// whether it meets c's deadline; when it does not, the time is not
// meaningful. When it does, held says whether c already holds its
// reservation in the profile.
//
// A job of W[p:] that no advance released yet is not taken out of the
// profile for its search: its own hold counts as free
// (Profile.EarliestFitMoving, exact, since a job fits where it is), so
// that a job that goes back to its reservation — most of them, when the
// point succeeds — costs one search and no change to the profile, and one
// that moves costs one Move. It is taken out only if it misses its
// deadline, since it is then not in the schedule.
func (s *Policy) qopsFit(now int64, c *djob) (t int64, ok, held bool) {
	q := &s.qs
	s.Stats.Placements++
	own := int64(-1) // c's reservation while it still holds it
	if c != q.x && c.X.rel != q.epoch {
		own = c.Start
		q.mark(c)
	}
	e := c.J.Estimate
	for {
		if own >= 0 {
			t = s.memoFitMoving(now, c, own)
		} else {
			t = s.memoFit(now, c)
		}
		F := q.frontier()
		if t+e <= F || F >= c.X.d {
			ok = t+e <= c.X.d && t+e <= F
			break
		}
		q.advance(s, min(t+e, c.X.d))
	}
	if own < 0 {
		return t, ok, false
	}
	if !ok {
		s.unhold(c, own)
		return t, false, false
	}
	if t != own {
		s.run.Prof.Move(own, t, c.Dur, c.Need)
		s.fm.released(own)
	}
	return t, true, true
}

// qopsState is the scratch of one insertion point of QoPS.
type qopsState struct {
	x      *djob
	p      int
	epoch  int // djob.X.rel == epoch: released at this point
	r      int // frontier: every job of W[p:r] is released
	k      int // next index into s.byKey
	byKey  []*djob
	wait   []*djob
	head   *djob   // the failed job, first in TL
	extra  []*djob // jobs sent back by repairs (and x with Sorted), in the heuristic's order
	alt    []*djob // the buffer the next merge of sendBack writes to
	ex     int     // next index into extra
	placed []*djob
	rel    []*djob // released jobs of W[p:]
	buf    []*djob
}

func (q *qopsState) reset(s *Policy, x *djob, p int) {
	q.x, q.p, q.r, q.k = x, p, p, 0
	q.epoch++
	q.byKey, q.wait = s.byKey, s.book.Wait()
	q.head = nil
	q.extra, q.ex = q.extra[:0], 0
	q.placed, q.rel = q.placed[:0], q.rel[:0]
	if s.prm.Sorted {
		q.extra = append(q.extra, x)
	} else {
		q.head = x
	}
}

// frontier is the reservation of the first job of W[p:] not released by
// advance: every job still held in the profile starts at or after it.
func (q *qopsState) frontier() int64 {
	for q.r < len(q.wait) && q.wait[q.r].X.rel == q.epoch {
		q.r++
	}
	if q.r == len(q.wait) {
		return profile.Infinity
	}
	return q.wait[q.r].Start
}

// advance releases the jobs of W[p:] whose reservations start before t.
func (q *qopsState) advance(s *Policy, t int64) {
	for ; q.r < len(q.wait) && q.wait[q.r].Start < t; q.r++ {
		if w := q.wait[q.r]; w.X.rel != q.epoch {
			q.release(s, w)
		}
	}
}

// release takes w's hold out of the profile, keeping its reservation in
// w.X.old.
func (q *qopsState) release(s *Policy, w *djob) {
	q.mark(w)
	s.unhold(w, w.Start)
}

// mark records w as released at this point, keeping its reservation in
// w.X.old, without touching the profile (qopsFit takes it out or moves it).
func (q *qopsState) mark(w *djob) {
	w.X.old = w.Start
	w.X.rel = q.epoch
	q.rel = append(q.rel, w)
}

// pop takes the next job of TL, nil when TL is empty.
func (q *qopsState) pop() *djob {
	if c := q.head; c != nil {
		q.head = nil
		return c
	}
	for q.k < len(q.byKey) && q.byKey[q.k].X.pos < q.p {
		q.k++
	}
	var m *djob
	if q.k < len(q.byKey) {
		m = q.byKey[q.k]
	}
	if q.ex < len(q.extra) && (m == nil || cmpKey(q.extra[q.ex], m) < 0) {
		c := q.extra[q.ex]
		q.ex++
		return c
	}
	if m != nil {
		q.k++
	}
	return m
}

// sendBack puts moved back into TL in the heuristic's order, with c at its
// head. The keys are fixed (set when a job is admitted, and for x when the
// decision starts), so merging the sorted moved jobs into the sorted rest
// of TL gives the order a sort of them all would.
func (q *qopsState) sendBack(moved []*djob, c *djob) {
	b := append(q.buf[:0], moved...)
	slices.SortFunc(b, cmpKey)
	rest := q.extra[q.ex:]
	out := q.alt[:0] // q.extra's twin, so that a merge allocates nothing once both have grown
	i, j := 0, 0
	for i < len(rest) || j < len(b) {
		if j == len(b) || (i < len(rest) && cmpKey(rest[i], b[j]) < 0) {
			out = append(out, rest[i])
			i++
		} else {
			out = append(out, b[j])
			j++
		}
	}
	q.buf = b[:0]
	q.alt = q.extra[:0]
	q.extra, q.ex = out, 0
	q.head = c
}
