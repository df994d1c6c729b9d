package profile

// LastBelow returns the last instant t in [lo, hi) at which fewer than n
// processors are free, and whether there is one: O(log B) by two descents
// of the tree (the last blocked breakpoint inside the interval, then the
// first breakpoint after it, which frees the processors). Slack-based
// backfilling uses it to learn from which released instant on a waiting
// job could start earlier (policy/slack, settledFrom).
func (p *Profile) LastBelow(lo, hi int64, n int) (int64, bool) {
	if hi <= lo || n <= 0 {
		return 0, false
	}
	u := p.procs - n // an instant is blocked when more than u are used
	if p.root == 0 {
		if 0 > u {
			return hi - 1, true
		}
		return 0, false
	}
	// the last breakpoint in (lo, hi) that blocks; every later one in
	// (k, hi) frees, so the blocked run from k ends at the next breakpoint
	k, ok := p.lastAbove(p.root, p.height, 0, lo, hi, u)
	if !ok {
		// no breakpoint inside blocks: only the run that contains lo may
		if p.used(lo) <= u {
			return 0, false
		}
		k = lo
	}
	if next, ok := p.firstAtMost(p.root, p.height, 0, k, u); ok && next < hi {
		return next - 1, true
	}
	return hi - 1, true
}
