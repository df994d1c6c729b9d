package deadline

import "github.com/backfill-hpc/backfill/profile"

// fitMemo remembers the earliest fits found during one admission decision
// so that later searches need not scan again the part of the profile that
// earlier ones found blocked.
//
// An entry (n, d, t) says: no window [u, u+d) with u < t had n processors
// free, when it was recorded. A job of n' ≥ n processors and duration
// d' ≥ d cannot fit where that one did not (its window contains the
// other's and needs more), so its earliest fit is at or after t while the
// profile only gains holds. Capacity released since (a hold of [a, b)
// taken out) can only make room for windows that meet [a, b), i.e. that
// start after a − d'; so with floor the earliest such a since the entry
// was recorded, the job's search may start at min(t, floor − d' + 1),
// and EarliestFit from there is EarliestFit from now. The memo keeps the
// last size entries (a few dozen; QoPS, whose placements cross the whole
// packed schedule when its first point succeeds, more: measured, CPU time
// at Q = 10,000, QoPS's full re-placement 53 → 25 ms with 128 instead of
// 32, ~22 ms with 256 (memoSize), while MSB and MRT, which release
// capacity far more often, are ~20 % slower with 128); the searches'
// results do not depend on it
// (TestAdmissionEqualsReference, TestFitMemo).
type fitMemo struct {
	size int // 0: off
	e    [memoMax]memoEntry
	n    int // entries in use
	i    int // next slot to overwrite
}

type memoEntry struct {
	n     int
	d, t  int64
	floor int64
}

// The numbers of fits remembered: by default, by QoPS, and at most.
const (
	memoCap     = 32
	memoCapQoPS = 256
	memoMax     = memoCapQoPS
	// QoPS keeps memoCapQoPS fits from memoBigWait waiting jobs on, and
	// memoCap below: on KTH-SP2 at offered load 0.95 (queues of
	// hundreds to a few thousand, points that fail after a few hundred
	// placements) 32 fits cost 17 % less CPU than 128 (12.4 against 14.9 s);
	// at 10,000 the full re-placement needs many: 256 fits against 128
	// cost 22.3–22.9 against 25.7–26.3 ms CPU at the median
	// (BenchmarkAdmission), 64 cost 36–37 ms.
	memoBigWait = 4096
)

// memoMinWait is the least queue for which a decision keeps any fits: a
// variable only so that tests can turn the memo on for short queues (the
// searches' results do not depend on it).
var memoMinWait = 256

// memoSize is the number of fits a decision of scheduler kind remembers
// with n jobs waiting: none below memoMinWait, where the searches are
// short and the memo's upkeep (a pass over it for every search and every
// released hold) costs more than it saves — measured on the traces' queues
// of 100–250 jobs (CTC, SDSC-SP2; 15,000 jobs, user CPU): QoPS 0.82 →
// 0.55 s without it, MSB 1.67 → 1.29 s, MRT equal; at 1,000 it still
// shortens QoPS's and MSB's slowest decisions (BenchmarkAdmission p99
// 0.87 against 1.19 ms, 139 against 244 ms), at 10,000 QoPS's by 8×.
func memoSize(kind string, n int) int {
	switch {
	case n < memoMinWait:
		return 0
	case kind == "qops" && n >= memoBigWait:
		return memoCapQoPS
	}
	return memoCap
}

// reset empties the memo and sets its size (0: off, every bound is now).
func (m *fitMemo) reset(size int) {
	m.size, m.n, m.i = min(size, memoMax), 0, 0
}

// bound is where the search for a job of n processors and duration d may
// start, at or after now.
func (m *fitMemo) bound(now int64, n int, d int64) int64 {
	b := now
	for k := 0; k < m.n; k++ {
		e := &m.e[k]
		if e.n <= n && e.d <= d {
			b = max(b, min(e.t, e.floor-d+1))
		}
	}
	return b
}

// record notes that a job of n processors and duration d fits first at t.
func (m *fitMemo) record(n int, d, t int64) {
	if m.size == 0 {
		return
	}
	m.e[m.i] = memoEntry{n: n, d: d, t: t, floor: profile.Infinity}
	m.i = (m.i + 1) % m.size
	m.n = max(m.n, m.i)
	if m.i == 0 {
		m.n = m.size
	}
}

// released notes that capacity starting at a was released.
func (m *fitMemo) released(a int64) {
	for k := 0; k < m.n; k++ {
		m.e[k].floor = min(m.e[k].floor, a)
	}
}

// memoFit is x's earliest fit from now in the profile as it stands, its
// search started where the memo allows.
func (s *Policy) memoFit(now int64, x *djob) int64 { return s.memoFitAfter(now, x) }

// memoFitMoving is x's earliest fit from now in the profile as it stands
// but for x's own hold at own, which counts as free
// (Profile.EarliestFitMoving): at most own. The memo's bound is lowered as
// if that hold had been released.
func (s *Policy) memoFitMoving(now int64, x *djob, own int64) int64 {
	e, n := x.J.Estimate, x.J.Procs
	if e < 1 {
		e = 1
	}
	b := max(now, min(s.fm.bound(now, n, e), own-e+1))
	t := s.run.Prof.EarliestFitMoving(b, e, n, own)
	s.fm.record(n, e, t)
	return t
}

// memoFitAfter is memoFit for a search known to find nothing before after.
func (s *Policy) memoFitAfter(after int64, x *djob) int64 {
	e, n := x.J.Estimate, x.J.Procs
	if e < 1 {
		e = 1
	}
	t := s.run.Prof.EarliestFit(s.fm.bound(after, n, e), e, n)
	s.fm.record(n, e, t)
	return t
}
