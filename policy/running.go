package policy

import (
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/profile"
)

// Running tracks the running jobs of a reservation-based policy in an
// availability profile: a job started at s with estimate e holds its
// processors over [s, s+e). A job still running at the end of its hold
// (possible only when jobs are not killed at their estimates) is an
// overrun: Extend lengthens its hold to now+1, i.e. the policy assumes it
// may end at any moment, which is the only assumption a scheduler that
// cannot see the runtime can make.
type Running struct {
	Prof *profile.Profile
	heap []runItem // min-heap on (end, id)
	pos  []int32   // job ID → index in heap + 1 (0: not running); grows on demand
}

type runItem struct {
	end   int64
	id    int
	size  int
	start int64
	j     *job.Request
}

// NewRunning returns a tracker with an empty profile of procs processors.
func NewRunning(procs int) *Running {
	return &Running{Prof: profile.New(procs)}
}

// Len is the number of running jobs.
func (r *Running) Len() int { return len(r.heap) }

// Start records that j started at now and holds its processors in the
// profile until now+estimate.
func (r *Running) Start(now int64, j *job.Request) error {
	return r.StartFor(now, j, j.Estimate)
}

// StartFor records that j started at now and holds its processors in the
// profile for dur seconds, until now+dur: a policy that plans with a
// runtime prediction (package predict) passes the predicted duration.
// Start(now, j) is StartFor(now, j, j.Estimate). dur must be ≥ 1.
func (r *Running) StartFor(now int64, j *job.Request, dur int64) error {
	if dur < 1 {
		return fmt.Errorf("start of job %d at %d: planned duration %d is not positive", j.SWFID, now, dur)
	}
	end := now + dur
	if err := r.Prof.Add(now, end, j.Procs); err != nil {
		return fmt.Errorf("start of job %d at %d: %w", j.SWFID, now, err)
	}
	r.push(runItem{end: end, id: j.ID, size: j.Procs, start: now, j: j})
	return nil
}

// Started reports the start time of j if it is running.
func (r *Running) Started(j *job.Request) (start int64, running bool) {
	if j.ID < 0 || j.ID >= len(r.pos) || r.pos[j.ID] == 0 {
		return 0, false
	}
	return r.heap[r.pos[j.ID]-1].start, true
}

// HoldEnd reports the end of running job j's hold in the profile.
func (r *Running) HoldEnd(j *job.Request) (end int64, running bool) {
	if j.ID < 0 || j.ID >= len(r.pos) || r.pos[j.ID] == 0 {
		return 0, false
	}
	return r.heap[r.pos[j.ID]-1].end, true
}

// End records that running job j ended at now, releasing the rest of its
// hold. It reports whether j was running, and whether it ended before the
// end of its hold (an early end, which frees capacity in the future).
func (r *Running) End(now int64, j *job.Request) (running, early bool) {
	if j.ID >= len(r.pos) || r.pos[j.ID] == 0 {
		return false, false
	}
	i := int(r.pos[j.ID]) - 1
	it := r.heap[i]
	r.remove(i)
	if it.end > now {
		// cannot fail: the hold [now, end) is part of what Start added
		_ = r.Prof.Remove(now, it.end, it.size)
		return true, true
	}
	return true, false
}

// Overrunning reports whether some running job has reached the end of its
// hold at now.
func (r *Running) Overrunning(now int64) bool {
	return len(r.heap) > 0 && r.heap[0].end <= now
}

// Stale reports whether some running job's hold ended before now: a job
// still running past the end of its hold, not extended by a pass since.
func (r *Running) Stale(now int64) bool {
	return len(r.heap) > 0 && r.heap[0].end < now
}

// Overran lists the running jobs past their estimates whose holds ended
// before now: jobs still running past the end of their hold, not extended
// by a pass since (a policy skips the passes that would only extend them;
// see CatchUp). Holds that end at now are not listed (the job may end at
// now; only the pass knows), nor the holds of jobs still within their
// estimate (a policy with predictions corrects those at its pass). Its
// cost is proportional to the number of holds that ended before now.
func (r *Running) Overran(now int64) []*job.Request {
	var out []*job.Request
	var walk func(i int)
	walk = func(i int) {
		if i >= len(r.heap) || r.heap[i].end >= now {
			return
		}
		if it := r.heap[i]; it.start+it.j.Estimate <= it.end {
			out = append(out, it.j)
		}
		walk(2*i + 1)
		walk(2*i + 2)
	}
	walk(0)
	return out
}

// OverrunUntil reports whether some job running past its estimate holds
// its processors until t exactly: a hold that Extend or CatchUp lengthened
// to t (the job may end at any moment), not a hold that ends with the
// job's estimate or prediction. A policy uses it to skip the pass at t
// that would only extend such holds again (see package conservative,
// Tick).
func (r *Running) OverrunUntil(t int64) bool {
	var walk func(i int) bool
	walk = func(i int) bool {
		if i >= len(r.heap) || r.heap[i].end > t {
			return false
		}
		if it := r.heap[i]; it.end == t && it.start+it.j.Estimate < t {
			return true
		}
		return walk(2*i+1) || walk(2*i+2)
	}
	return walk(0)
}

// CatchUp lengthens the holds of jobs (from Overran(now)) to now+1: Extend's
// rule, the job may end at any moment, applied at now. The caller must
// first make room; CatchUp returns an error if the profile has none.
func (r *Running) CatchUp(now int64, jobs []*job.Request) error {
	for _, j := range jobs {
		i := int(r.pos[j.ID]) - 1
		it := r.heap[i]
		if err := r.Prof.Add(it.end, now+1, it.size); err != nil {
			return fmt.Errorf("extending the hold of job %d: %w", it.id, err)
		}
		r.heap[i].end = now + 1
		r.down(i)
	}
	return nil
}

// Extend lengthens the hold of every overrunning job to now+1. The caller
// must first make room (remove reservations that start before now+1);
// Extend returns an error if the profile has no room.
func (r *Running) Extend(now int64) error {
	for len(r.heap) > 0 && r.heap[0].end <= now {
		it := r.heap[0]
		if err := r.Prof.Add(it.end, now+1, it.size); err != nil {
			return fmt.Errorf("extending overrunning job %d: %w", it.id, err)
		}
		r.heap[0].end = now + 1
		r.down(0)
	}
	return nil
}

// ExtendWith is Extend with a rule for the new end: the hold of every
// running job whose hold has ended by now is lengthened to next(j, start,
// end), where start is the job's start and end the end of its hold; a
// value ≤ now is replaced by now+1 (Extend's rule). A policy that plans
// with predictions passes the rule of its predict.Plan, which gives a job
// that outlived its prediction a corrected one. It returns the number of
// holds lengthened. As for Extend, the caller must first make room;
// ExtendWith returns an error if the profile has none.
func (r *Running) ExtendWith(now int64, next func(j *job.Request, start, end int64) int64) (int, error) {
	n := 0
	for len(r.heap) > 0 && r.heap[0].end <= now {
		it := r.heap[0]
		end := next(it.j, it.start, it.end)
		if end <= now {
			end = now + 1
		}
		if err := r.Prof.Add(it.end, end, it.size); err != nil {
			return n, fmt.Errorf("extending the hold of job %d: %w", it.id, err)
		}
		r.heap[0].end = end
		r.down(0)
		n++
	}
	return n, nil
}

// ExtendJob lengthens the hold of running job j, which has ended by now,
// to end (> now), and leaves every other hold alone: the tick strategy
// (policy.Extender) decides job by job, and another job whose hold ends at
// the same instant gets its own decision. The caller must first make room;
// ExtendJob returns an error, changing nothing, if the profile has none or
// j is not running with an ended hold.
func (r *Running) ExtendJob(now int64, j *job.Request, end int64) error {
	if j.ID < 0 || j.ID >= len(r.pos) || r.pos[j.ID] == 0 {
		return fmt.Errorf("extending job %d: not running", j.SWFID)
	}
	i := int(r.pos[j.ID]) - 1
	it := r.heap[i]
	if it.end > now || end <= now {
		return fmt.Errorf("extending job %d at %d: its hold ends at %d, new end %d", j.SWFID, now, it.end, end)
	}
	if err := r.Prof.Add(it.end, end, it.size); err != nil {
		return fmt.Errorf("extending the hold of job %d: %w", it.id, err)
	}
	r.heap[i].end = end
	r.down(i)
	return nil
}

func (r *Running) less(a, b int) bool {
	x, y := r.heap[a], r.heap[b]
	return x.end < y.end || (x.end == y.end && x.id < y.id)
}

func (r *Running) swap(a, b int) {
	r.heap[a], r.heap[b] = r.heap[b], r.heap[a]
	r.pos[r.heap[a].id] = int32(a + 1)
	r.pos[r.heap[b].id] = int32(b + 1)
}

func (r *Running) push(it runItem) {
	r.heap = append(r.heap, it)
	i := len(r.heap) - 1
	for it.id >= len(r.pos) {
		r.pos = append(r.pos, 0)
	}
	r.pos[it.id] = int32(i + 1)
	r.up(i)
}

func (r *Running) remove(i int) {
	last := len(r.heap) - 1
	r.pos[r.heap[i].id] = 0
	if i != last {
		r.heap[i] = r.heap[last]
		r.pos[r.heap[i].id] = int32(i + 1)
		r.heap = r.heap[:last]
		r.down(i)
		r.up(i)
	} else {
		r.heap = r.heap[:last]
	}
}

func (r *Running) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !r.less(i, p) {
			return
		}
		r.swap(i, p)
		i = p
	}
}

func (r *Running) down(i int) {
	n := len(r.heap)
	for {
		l := 2*i + 1
		if l >= n {
			return
		}
		m := l
		if l+1 < n && r.less(l+1, l) {
			m = l + 1
		}
		if !r.less(m, i) {
			return
		}
		r.swap(i, m)
		i = m
	}
}
