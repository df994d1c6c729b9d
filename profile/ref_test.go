package profile

// The slice-based implementation that the treap replaced, kept verbatim
// (renamed) as the oracle for TestAgainstRef and FuzzProfile: two parallel
// sorted slices of breakpoint times and free counts.

import "fmt"

// refProfile is the free capacity of a machine of Procs() processors over time.
// The zero value is not usable; call New.
type refProfile struct {
	procs int
	times []int64 // breakpoints, strictly increasing
	free  []int   // free[i] holds on [times[i], times[i+1]); last is always procs
}

// New returns an empty profile (all processors free at all times).
func newRef(procs int) *refProfile {
	return &refProfile{procs: procs}
}

// Procs is the machine size.
func (p *refProfile) Procs() int { return p.procs }

// Len is the number of breakpoints (the B in the complexity bounds).
func (p *refProfile) Len() int { return len(p.times) }

// Reset empties the profile, keeping its storage.
func (p *refProfile) Reset() {
	p.times = p.times[:0]
	p.free = p.free[:0]
}

// seg returns the index of the step containing t, or -1 if t is before the
// first breakpoint.
func (p *refProfile) seg(t int64) int {
	// first index with times[i] > t, minus one
	lo, hi := 0, len(p.times)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if p.times[m] <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo - 1
}

// FreeAt is the number of free processors at time t.
func (p *refProfile) FreeAt(t int64) int {
	i := p.seg(t)
	if i < 0 {
		return p.procs
	}
	return p.free[i]
}

// split makes sure a breakpoint exists at t and returns its index.
func (p *refProfile) split(t int64) int {
	i := p.seg(t)
	if i >= 0 && p.times[i] == t {
		return i
	}
	f := p.procs
	if i >= 0 {
		f = p.free[i]
	}
	i++
	p.times = append(p.times, 0)
	p.free = append(p.free, 0)
	copy(p.times[i+1:], p.times[i:])
	copy(p.free[i+1:], p.free[i:])
	p.times[i] = t
	p.free[i] = f
	return i
}

// mergeAt removes breakpoint i if it does not change the step value.
func (p *refProfile) mergeAt(i int) {
	if i < 0 || i >= len(p.times) {
		return
	}
	prev := p.procs
	if i > 0 {
		prev = p.free[i-1]
	}
	if p.free[i] != prev {
		return
	}
	p.times = append(p.times[:i], p.times[i+1:]...)
	p.free = append(p.free[:i], p.free[i+1:]...)
}

// Add occupies n processors over [start, end). It returns an error, and
// changes nothing, if that would leave fewer than zero free processors at
// some instant.
func (p *refProfile) Add(start, end int64, n int) error {
	if end <= start || n == 0 {
		return nil
	}
	if n < 0 || n > p.procs {
		return fmt.Errorf("profile: cannot hold %d processors on a %d-processor machine", n, p.procs)
	}
	if !p.apply(start, end, -n) {
		return fmt.Errorf("profile: %d processors over [%d, %d) exceed the %d free", n, start, end, p.MinFree(start, end))
	}
	return nil
}

// Remove releases n processors over [start, end) that an earlier Add held.
// It returns an error, and changes nothing, if that would leave more than
// Procs() free at some instant (releasing what was never held).
func (p *refProfile) Remove(start, end int64, n int) error {
	if end <= start || n == 0 {
		return nil
	}
	if n < 0 {
		return fmt.Errorf("profile: cannot release %d processors", n)
	}
	if !p.apply(start, end, n) {
		return fmt.Errorf("profile: releasing %d processors over [%d, %d) exceeds the machine (%d free of %d)", n, start, end, p.MaxFree(start, end), p.procs)
	}
	return nil
}

// apply adds delta to free(t) on [start, end) if every step stays within
// [0, procs], in one pass; otherwise it restores the profile and reports
// false.
func (p *refProfile) apply(start, end int64, delta int) bool {
	i := p.split(start)
	j := p.split(end)
	ok := true
	k := i
	for ; k < j; k++ {
		f := p.free[k] + delta
		if f < 0 || f > p.procs {
			ok = false
			break
		}
		p.free[k] = f
	}
	if !ok {
		for k--; k >= i; k-- {
			p.free[k] -= delta
		}
	}
	p.mergeAt(j)
	p.mergeAt(i)
	return ok
}

// MinFree is the least number of free processors at any instant of
// [start, end); Procs() for an empty interval.
func (p *refProfile) MinFree(start, end int64) int {
	m := p.procs
	if end <= start {
		return m
	}
	i := p.seg(start)
	if i < 0 {
		i = 0
		if len(p.times) == 0 || p.times[0] >= end {
			return m
		}
	}
	for k := i; k < len(p.times) && p.times[k] < end; k++ {
		if p.free[k] < m {
			m = p.free[k]
		}
	}
	return m
}

// MaxFree is the largest number of free processors at any instant of
// [start, end); 0 for an empty interval.
func (p *refProfile) MaxFree(start, end int64) int {
	if end <= start {
		return 0
	}
	i := p.seg(start)
	m := 0
	if i < 0 {
		// the part before the first breakpoint is fully free
		return p.procs
	}
	for k := i; k < len(p.times) && p.times[k] < end; k++ {
		if p.free[k] > m {
			m = p.free[k]
		}
	}
	return m
}

// Fits reports whether n processors are free over all of [start, start+dur).
func (p *refProfile) Fits(start, dur int64, n int) bool {
	return p.MinFree(start, start+dur) >= n
}

// EarliestFit is the earliest time t ≥ after at which n processors are free
// over all of [t, t+dur). n must be at most Procs(); the answer then always
// exists, because every hold in the profile ends. A non-positive dur fits
// wherever FreeAt(t) ≥ n would, and is treated as dur = 1.
func (p *refProfile) EarliestFit(after, dur int64, n int) int64 {
	if n > p.procs {
		return Infinity
	}
	if dur < 1 {
		dur = 1
	}
	t := after
	i := p.seg(t)
	if i < 0 {
		// before the first breakpoint: free until times[0]
		if len(p.times) == 0 || t+dur <= p.times[0] || n <= 0 {
			return t
		}
		i = 0
		// the window reaches into the steps; check from step 0
	}
	// invariant: step i contains or follows t; scan the window [t, t+dur)
	k := i
	for k < len(p.times) {
		if p.times[k] >= t+dur && k > i {
			return t
		}
		if p.free[k] < n {
			// blocked on step k: the window must start after it
			if k+1 >= len(p.times) {
				// unreachable: the last step is always fully free
				return Infinity
			}
			t = p.times[k+1]
			i = k + 1
			k = i
			continue
		}
		k++
	}
	return t
}

// Steps returns a copy of the profile's steps, for tests and displays.
func (p *refProfile) Steps() []Step {
	s := make([]Step, len(p.times))
	for i := range p.times {
		s[i] = Step{p.times[i], p.free[i]}
	}
	return s
}

// Forget drops the breakpoints before t that no longer matter: the value at
// t is kept. Policies call it as time advances so that B stays proportional
// to the jobs still held.
func (p *refProfile) Forget(t int64) {
	i := p.seg(t)
	if i <= 0 {
		return
	}
	// keep step i (which contains t) but move its start to t
	n := copy(p.times, p.times[i:])
	copy(p.free, p.free[i:])
	p.times = p.times[:n]
	p.free = p.free[:n]
	p.times[0] = t
	if p.free[0] == p.procs {
		p.mergeAt(0)
	}
}

// refPrefixMax walks the profile forward from a time and answers "the largest
// number of free processors at any instant of [from, x)" for
// non-decreasing x, in O(1) amortized per step walked. It is invalidated by
// any change to the profile (start a new one).
type refPrefixMax struct {
	p    *refProfile
	from int64
	i    int // next step to fold in
	max  int
}

// refPrefixMax starts a forward walk at from.
func (p *refProfile) refPrefixMax(from int64) refPrefixMax {
	i := p.seg(from)
	pm := refPrefixMax{p: p, from: from}
	if i < 0 {
		// [from, times[0]) is fully free (or everything is, if empty)
		pm.max = p.procs
		pm.i = 0
	} else {
		pm.i = i
	}
	return pm
}

// Before is the largest free count over [from, x); x must not decrease
// between calls. It is 0 for an empty interval.
func (pm *refPrefixMax) Before(x int64) int {
	if x <= pm.from {
		return 0
	}
	p := pm.p
	for pm.i < len(p.times) && p.times[pm.i] < x {
		if p.free[pm.i] > pm.max {
			pm.max = p.free[pm.i]
		}
		pm.i++
	}
	if pm.i == len(p.times) && len(p.times) > 0 {
		// past the last breakpoint everything is free
		pm.max = p.procs
	}
	return pm.max
}

// EarliestFitMoving is EarliestFit for a job that already holds n
// processors over [own, own+dur) and may only move earlier: its own hold
// counts as free, and the answer is own when no earlier start fits. The
// profile is not changed, and the scan stops by own+dur. Conservative
// backfilling's compression uses it to learn, without touching the
// profile, whether a reservation can move. O(log B + k) for k steps
// visited.
func (p *refProfile) EarliestFitMoving(after, dur int64, n int, own int64) int64 {
	if dur < 1 {
		dur = 1
	}
	ownEnd := own + dur
	t := after
	x := t
	k := p.seg(x)
	for {
		if t >= own {
			return own
		}
		if x >= t+dur {
			return t
		}
		for k+1 < len(p.times) && p.times[k+1] <= x {
			k++
		}
		v := p.procs
		next := Infinity
		if k >= 0 {
			v = p.free[k]
		}
		if k+1 < len(p.times) {
			next = p.times[k+1]
		}
		// split the step at the own hold's boundaries
		if x < own {
			next = min(next, own)
		} else if x < ownEnd {
			v += n
			next = min(next, ownEnd)
		}
		if next == Infinity {
			return t
		}
		if v < n {
			t = next
		}
		x = next
	}
}
