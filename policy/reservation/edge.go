package reservation

// The instant just before a reservation (the edge test).
//
// A job reserved at s (amount n, duration d) whose candidate windows all
// contain the instant s−1 — every start t the search would try has t ≥
// from and from+d ≥ s, so the window [t, min(t+d, s)) reaches s−1 — can
// move only if n is free at s−1. When the book is fitted (replan.go:
// every reservation an earliest fit given all the others, and since then
// holds only added or lengthened, and capacity released only within the
// instant's releases), n was not free at s−1 when the job was placed (the
// start s−1 did not fit, its window cut at s), and the free count at s−1
// has grown since only if s−1 lies in released capacity: the instant's
// releases, or the old slot a job moved in this pass left. So when s−1 is
// in none of them the job cannot move, and the search, which would find
// nothing, is not run. On RICC at its original load most failed searches
// are of this kind (docs/PERFORMANCE.md); for vectors the argument holds
// in each resource (the start s−1 did not fit: some resource lacked at
// s−1, and nothing was freed there since).
//
// edgeSet keeps the released intervals of a pass and answers "is x in
// one of them" for non-decreasing x (the waiting list is walked in
// reservation order): the intervals not yet reached wait in list[head:],
// sorted by start (an insertion is a binary search and a short copy: a
// moved job's old slot lies ahead of the walk, usually after most of
// those waiting), and reach is the latest end of those that start at or
// before the last x asked; x is in an interval iff reach > x.
type edgeSet struct {
	on    bool
	list  []span
	head  int
	reach int64
}

// span is a released interval [from, to).
type span struct{ from, to int64 }

// reset starts a pass: on tells whether the test may be used (a fitted
// book, the compression's bounds in use); [from, to) is the released
// capacity of the instant.
func (s *edgeSet) reset(on bool, from, to int64) {
	s.on = on
	s.list, s.head = s.list[:0], 0
	s.reach = -1 << 62
	if on {
		s.add(from, to)
	}
}

// add records the released interval [from, to).
func (s *edgeSet) add(from, to int64) {
	if !s.on || from >= to {
		return
	}
	l := s.list
	if s.head > 0 && s.head == len(l) {
		l, s.head = l[:0], 0
	}
	i := len(l)
	for i > s.head && l[i-1].from > from {
		i--
		if i-s.head > 8 { // far from the end: bisect the rest
			lo, hi := s.head, i
			for lo < hi {
				m := int(uint(lo+hi) >> 1)
				if l[m].from <= from {
					lo = m + 1
				} else {
					hi = m
				}
			}
			i = lo
			break
		}
	}
	l = append(l, span{})
	copy(l[i+1:], l[i:])
	l[i] = span{from, to}
	s.list = l
}

// freed reports whether x lies in a released interval; x must not
// decrease from one call to the next within a pass.
func (s *edgeSet) freed(x int64) bool {
	l, h := s.list, s.head
	for h < len(l) && l[h].from <= x {
		s.reach = max(s.reach, l[h].to)
		h++
	}
	s.head = h
	return s.reach > x
}

// limit is where the search of a job reserved at start, of duration d,
// may stop (starts before it only), given its bound lim: lim itself, or,
// when start−1 was not freed, no later than start−d, since every start
// from there on has a window that reaches start−1. A job whose search
// would begin at or after it cannot move.
func (s *edgeSet) limit(lim, d, start int64) int64 {
	if s.on && !s.freed(start-1) {
		return min(lim, start-max(d, 1))
	}
	return lim
}
