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
func (s *Policy) qopsAt(now int64, x *djob, p int) bool {
	W := s.book.Wait()
	rest := W[p:]
	// a failed point goes back to this snapshot in O(B) instead of undoing
	// every hold it made and re-holding every released job
	if s.snap == nil {
		s.snap = profile.New(1)
	}
	s.snap.CopyFrom(s.run.Prof)
	s.release(rest)
	// TL: the released jobs (positions ≥ p) in the heuristic's order, taken
	// from s.byKey; x first, or sorted in with Params.Sorted
	tl := s.tl[:0]
	if !s.prm.Sorted {
		tl = append(tl, x)
	}
	in := !s.prm.Sorted
	for _, w := range s.byKey {
		if w.X.pos < p {
			continue
		}
		if !in && cmpKey(x, w) < 0 {
			tl = append(tl, x)
			in = true
		}
		tl = append(tl, w)
	}
	if !in {
		tl = append(tl, x)
	}
	placed := s.placed[:0]
	violations := 0
	ok := true
	for len(tl) > 0 {
		c := tl[0]
		tl = tl[1:]
		t := s.fit(now, c)
		if t+c.J.Estimate <= c.X.d {
			c.Start = t
			s.hold(c, t)
			placed = append(placed, c)
			continue
		}
		violations++
		s.Stats.Violations++
		T := p + len(placed)
		mid := (p + T) / 2
		if violations > s.prm.K || mid == T {
			ok = false
			break
		}
		moved := placed[mid-p:]
		for _, m := range moved {
			s.unhold(m, m.Start)
		}
		// TL := sort(rest of TL + moved), with c at its head
		back := make([]*djob, 0, len(tl)+len(moved)+1)
		back = append(back, tl...)
		back = append(back, moved...)
		s.sortHeuristic(back)
		back = slices.Insert(back, 0, c)
		placed = placed[:mid-p]
		tl = back
	}
	s.tl = tl[:0]
	if !ok {
		s.run.Prof.CopyFrom(s.snap)
		for _, c := range rest {
			c.Start = c.X.old
		}
		s.placed = placed[:0]
		return false
	}
	// the new schedule: W[:p] unchanged, then every placed job
	nw := make([]*djob, 0, len(W)+1)
	nw = append(nw, W[:p]...)
	nw = append(nw, placed...)
	slices.SortFunc(nw, cmpWait)
	s.book.SetWait(nw)
	s.placed = placed[:0]
	return true
}
