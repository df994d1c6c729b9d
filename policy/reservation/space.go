package reservation

import (
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/profile"
)

// machine is what a book needs of the profile and of the running jobs,
// for one kind of amount A: processors (int, package profile's Profile
// with policy.Running) or requirement vectors ([]int, profile.Multi with
// policy.RunningK). Its methods are unexported: the two implementations
// are this package's.
type machine[A any] interface {
	// the profile
	earliestFit(after, dur int64, n A) int64
	fits(start, dur int64, n A) bool
	add(start, end int64, n A) error
	remove(start, end int64, n A) error
	forget(t int64)
	// the running jobs
	startFor(now int64, j *job.Request, n A, dur int64) error
	hold(j *job.Request) (start, end int64, running bool)
	end(now int64, j *job.Request) (running, early bool)
	overrunning(now int64) bool
	stale(now int64) bool
	overran(now int64) []*job.Request
	catchUp(now int64, jobs []*job.Request) error
	overrunUntil(t int64) bool
	extend(now int64) error
	running() int
	// holdsOnly empties the profile but for the running jobs' holds from
	// now on
	holdsOnly(now int64)
}

// scalar is the machine of processors: one Profile.
type scalar struct {
	run *policy.Running
	p   *profile.Profile
}

func (s *scalar) earliestFit(after, dur int64, n int) int64 { return s.p.EarliestFit(after, dur, n) }
func (s *scalar) fits(start, dur int64, n int) bool         { return s.p.Fits(start, dur, n) }
func (s *scalar) add(start, end int64, n int) error         { return s.p.Add(start, end, n) }
func (s *scalar) remove(start, end int64, n int) error      { return s.p.Remove(start, end, n) }
func (s *scalar) forget(t int64)                            { s.p.Forget(t) }
func (s *scalar) startFor(now int64, j *job.Request, _ int, dur int64) error {
	return s.run.StartFor(now, j, dur)
}
func (s *scalar) hold(j *job.Request) (int64, int64, bool) {
	start, ok := s.run.Started(j)
	if !ok {
		return 0, 0, false
	}
	end, _ := s.run.HoldEnd(j)
	return start, end, true
}
func (s *scalar) end(now int64, j *job.Request) (bool, bool) { return s.run.End(now, j) }
func (s *scalar) overrunning(now int64) bool                 { return s.run.Overrunning(now) }
func (s *scalar) stale(now int64) bool                       { return s.run.Stale(now) }
func (s *scalar) overran(now int64) []*job.Request           { return s.run.Overran(now) }
func (s *scalar) catchUp(now int64, jobs []*job.Request) error {
	return s.run.CatchUp(now, jobs)
}
func (s *scalar) overrunUntil(t int64) bool { return s.run.OverrunUntil(t) }
func (s *scalar) extend(now int64) error    { return s.run.Extend(now) }
func (s *scalar) running() int              { return s.run.Len() }
func (s *scalar) holdsOnly(now int64)       { s.run.HoldsOnly(now) }

// vector is the machine of K resources: a Multi, one Profile each.
type vector struct {
	run *policy.RunningK
	m   *profile.Multi
	pms []profile.PrefixMax
}

func (v *vector) earliestFit(after, dur int64, n []int) int64 { return v.m.EarliestFit(after, dur, n) }
func (v *vector) fits(start, dur int64, n []int) bool         { return v.m.Fits(start, dur, n) }
func (v *vector) add(start, end int64, n []int) error         { return v.m.Add(start, end, n) }
func (v *vector) remove(start, end int64, n []int) error      { return v.m.Remove(start, end, n) }
func (v *vector) forget(t int64)                              { v.m.Forget(t) }
func (v *vector) resetMax(now int64) {
	for i := range v.pms {
		v.pms[i] = v.m.Res(i).PrefixMax(now)
	}
}

// keepMaxAt brings the walks up to date after a move whose new holds
// raised the used counts before the old start only on [lo, hi): each walk
// whose largest free count lies elsewhere goes on (Profile.PrefixMaxKept),
// the others restart at now already advanced to x (Profile.PrefixMaxAt).
func (v *vector) keepMaxAt(now, x, lo, hi int64) {
	for i := range v.pms {
		p := v.m.Res(i)
		if pm, ok := p.PrefixMaxKept(v.pms[i], lo, hi); ok {
			v.pms[i] = pm
		} else {
			v.pms[i] = p.PrefixMaxAt(now, x)
		}
	}
}

// belowIn is below that tells which resource: the first resource r the
// job needs with fewer free than n[r] at every instant of [now, t), and
// the most free there.
func (v *vector) belowIn(t int64, n []int) (r, most int, ok bool) {
	for i, k := range n {
		if k > 0 {
			if f := v.pms[i].Before(t); f < k {
				return i, f, true
			}
		}
	}
	return -1, 0, false
}

func (v *vector) startFor(now int64, j *job.Request, n []int, dur int64) error {
	return v.run.StartFor(now, j, n, dur)
}
func (v *vector) hold(j *job.Request) (int64, int64, bool) { return v.run.Hold(j) }
func (v *vector) end(now int64, j *job.Request) (bool, bool) {
	return v.run.End(now, j)
}
func (v *vector) overrunning(now int64) bool       { return v.run.Overrunning(now) }
func (v *vector) stale(now int64) bool             { return v.run.Stale(now) }
func (v *vector) overran(now int64) []*job.Request { return v.run.Overran(now) }
func (v *vector) catchUp(now int64, jobs []*job.Request) error {
	return v.run.CatchUp(now, jobs)
}
func (v *vector) overrunUntil(t int64) bool { return v.run.OverrunUntil(t) }
func (v *vector) extend(now int64) error    { return v.run.Extend(now) }
func (v *vector) running() int              { return v.run.Len() }
func (v *vector) holdsOnly(now int64)       { v.run.HoldsOnly(now) }
