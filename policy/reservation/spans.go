package reservation

import (
	"slices"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/profile"
)

// relSpans rules out, in a compression pass, the jobs that no released
// interval has room for, when the releases of the instant are apart.
//
// The merged bounds of the releases (freed, released) cover everything
// between them: two cancellations at one instant, one in the middle of the
// schedule and one at its end (the live service's clients), make every job
// between them a candidate, each searched over its whole window. But a job
// can only move to a window that meets released capacity (Compress: before
// the releases no job could move earlier, and since then the profile only
// gained free capacity inside the released intervals — the instant's
// releases and the old slots of the jobs moved in the pass — and lost it
// elsewhere): some instant x < own of the new window, inside a released
// interval, has n free. So when no released interval has an instant with n
// free before own, the job cannot move, and it is not searched. Each
// interval's largest free count is taken once, when it is released (later
// holds only lower it, and what later releases free is in their own
// intervals), so a job costs one comparison per interval.
//
// The test only skips searches that would find nothing, so it changes no
// schedule; it is on when the instant's releases leave a gap between them
// (otherwise their union is [freed, released), which PrefixMax and the
// bounds already use) and off beyond maxRelSpans intervals.
type relSpans struct {
	on     bool
	from   []int64
	to     []int64
	free   []int
	lo, hi []int64 // search's scratch
}

// maxRelSpans is the most released intervals a pass tests one by one.
const maxRelSpans = 32

// reset starts a pass with the instant's releases spans (nil: not known
// apart).
func (r *relSpans) reset(prof *profile.Profile, now, freed, released int64, spans []policy.Span, memo bool) {
	r.on = false
	r.from, r.to, r.free = r.from[:0], r.to[:0], r.free[:0]
	if !memo || len(spans) < 2 {
		return
	}
	ss := slices.Clone(spans)
	slices.SortFunc(ss, func(a, b policy.Span) int {
		if a.From != b.From {
			if a.From < b.From {
				return -1
			}
			return 1
		}
		return 0
	})
	end := ss[0].To
	gap := false
	for _, s := range ss[1:] {
		if s.From > end {
			gap = true
		}
		end = max(end, s.To)
	}
	if !gap {
		return
	}
	r.on = true
	for _, s := range ss {
		r.add(prof, now, s.From, s.To)
	}
}

// add records the released interval [from, to).
func (r *relSpans) add(prof *profile.Profile, now, from, to int64) {
	if !r.on {
		return
	}
	if len(r.from) == maxRelSpans {
		r.on = false
		return
	}
	from = max(from, now)
	if to <= from {
		return
	}
	r.from = append(r.from, from)
	r.to = append(r.to, to)
	r.free = append(r.free, prof.MaxFree(from, to))
}

// search is the earliest start t in [from, limit) at which a job of n
// processors and duration d, reserved at own ≥ limit, fits (its own hold
// counting as free), or own if there is none, searching only the starts
// whose window meets a released interval with n free (admit): the others
// cannot fit, so the answer is EarliestFitMovingBefore's over [from,
// limit). The candidate ranges (f − d, r) ∩ [from, limit) are merged and
// searched in order; the first fit is the earliest.
func (r *relSpans) search(prof *profile.Profile, from, d int64, n int, own, limit int64) int64 {
	limit = min(limit, own)
	lo, hi := r.lo[:0], r.hi[:0]
	for i, f := range r.from {
		if f >= own || r.free[i] < n {
			continue
		}
		a, b := max(from, f-d+1), min(limit, r.to[i])
		if a >= b {
			continue
		}
		// insertion by start (a few ranges)
		k := len(lo)
		lo, hi = append(lo, a), append(hi, b)
		for k > 0 && lo[k-1] > a {
			lo[k], hi[k] = lo[k-1], hi[k-1]
			k--
		}
		lo[k], hi[k] = a, b
	}
	r.lo, r.hi = lo, hi
	for k := 0; k < len(lo); {
		a, b := lo[k], hi[k]
		k++
		for k < len(lo) && lo[k] <= b {
			b = max(b, hi[k])
			k++
		}
		if t := prof.EarliestFitMovingBefore(a, d, n, own, b); t < b {
			return t
		}
	}
	return own
}

// admit reports whether a job of n processors reserved at own may move:
// some released interval starting before own has n free somewhere (true
// when the test is off).
func (r *relSpans) admit(own int64, n int) bool {
	if !r.on {
		return true
	}
	for i, f := range r.from {
		if f < own && r.free[i] >= n {
			return true
		}
	}
	return false
}
