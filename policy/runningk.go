package policy

import (
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/profile"
)

// RunningK is Running for K-resource policies: the running jobs held in a
// multi-resource profile (profile.Multi), each over [start, start+dur) with
// its requirement vector. As in Running, a job still running at the end of
// its hold (only without kills) is an overrun, whose hold Extend lengthens
// to now+1.
type RunningK struct {
	Prof *profile.Multi
	run  holds[[]int] // the holds; amt is the requirement vector
}

// NewRunningK returns a tracker with an empty profile of the given
// capacities (caps[0] processors).
func NewRunningK(caps []int) (*RunningK, error) {
	m, err := profile.NewMulti(caps)
	if err != nil {
		return nil, err
	}
	return &RunningK{Prof: m}, nil
}

// NeedVector is j's requirement vector on a machine of k resources:
// Need(0), …, Need(k−1). Requirements of resources beyond k are ignored
// (the engine refuses such jobs on a machine that lacks the resource).
func NeedVector(j *job.Request, k int) []int {
	v := make([]int, k)
	for i := range v {
		v[i] = j.Need(i)
	}
	return v
}

// Len is the number of running jobs.
func (r *RunningK) Len() int { return len(r.run.h) }

// StartFor records that j, with requirement vector need, started at now and
// holds need for dur seconds (≥ 1).
func (r *RunningK) StartFor(now int64, j *job.Request, need []int, dur int64) error {
	if dur < 1 {
		return fmt.Errorf("start of job %d at %d: planned duration %d is not positive", j.SWFID, now, dur)
	}
	end := now + dur
	if err := r.Prof.Add(now, end, need); err != nil {
		return fmt.Errorf("start of job %d at %d: %w", j.SWFID, now, err)
	}
	r.run.push(hold[[]int]{end: end, id: j.ID, start: now, j: j, amt: need})
	return nil
}

// Started reports the start time of j if it is running.
func (r *RunningK) Started(j *job.Request) (start int64, running bool) {
	i, ok := r.run.at(j.ID)
	if !ok {
		return 0, false
	}
	return r.run.h[i].start, true
}

// Hold reports the start of running job j and the end of its hold.
func (r *RunningK) Hold(j *job.Request) (start, end int64, running bool) {
	i, ok := r.run.at(j.ID)
	if !ok {
		return 0, 0, false
	}
	return r.run.h[i].start, r.run.h[i].end, true
}

// Overran lists the running jobs whose holds ended before now
// (Running.Overran; holds here are the estimates, so all of them).
func (r *RunningK) Overran(now int64) []*job.Request { return r.run.overran(now) }

// End records that running job j ended at now, releasing the rest of its
// hold; it reports whether j was running and whether it ended before the
// end of its hold.
func (r *RunningK) End(now int64, j *job.Request) (running, early bool) {
	i, ok := r.run.at(j.ID)
	if !ok {
		return false, false
	}
	it := r.run.removeAt(i)
	if it.end > now {
		_ = r.Prof.Remove(now, it.end, it.amt) // part of what StartFor added
		return true, true
	}
	return true, false
}

// Overrunning reports whether some running job has reached the end of its
// hold at now.
func (r *RunningK) Overrunning(now int64) bool {
	return len(r.run.h) > 0 && r.run.h[0].end <= now
}

// Stale reports whether some running job's hold ended before now: a job
// overrunning since an earlier pass (Running.Stale).
func (r *RunningK) Stale(now int64) bool {
	return len(r.run.h) > 0 && r.run.h[0].end < now
}

// OverrunUntil is Running.OverrunUntil: whether some job running past its
// estimate holds its requirements until t exactly.
func (r *RunningK) OverrunUntil(t int64) bool { return r.run.overrunUntil(t) }

// CatchUp lengthens to now+1 every hold that ended before now (holds here
// are the estimates, so these jobs run past their estimates; see
// Running.CatchUp) and returns how many; the caller must first remove
// reservations that start before now+1.
func (r *RunningK) CatchUp(now int64) (int, error) {
	n := 0
	for len(r.run.h) > 0 && r.run.h[0].end < now {
		it := r.run.h[0]
		if err := r.Prof.Add(it.end, now+1, it.amt); err != nil {
			return n, fmt.Errorf("extending overrunning job %d: %w", it.id, err)
		}
		r.run.lengthen(0, now+1)
		n++
	}
	return n, nil
}

// Extend lengthens the hold of every overrunning job to now+1; the caller
// must first remove reservations that start before now+1.
func (r *RunningK) Extend(now int64) error {
	for len(r.run.h) > 0 && r.run.h[0].end <= now {
		it := r.run.h[0]
		if err := r.Prof.Add(it.end, now+1, it.amt); err != nil {
			return fmt.Errorf("extending overrunning job %d: %w", it.id, err)
		}
		r.run.lengthen(0, now+1)
	}
	return nil
}
