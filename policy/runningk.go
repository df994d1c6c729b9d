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
	heap []runItemK // min-heap on (end, id)
	pos  []int32    // job ID → index in heap + 1 (0: not running)
}

type runItemK struct {
	end   int64
	id    int
	start int64
	j     *job.Request
	need  []int
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
func (r *RunningK) Len() int { return len(r.heap) }

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
	r.heap = append(r.heap, runItemK{end: end, id: j.ID, start: now, j: j, need: need})
	for j.ID >= len(r.pos) {
		r.pos = append(r.pos, 0)
	}
	i := len(r.heap) - 1
	r.pos[j.ID] = int32(i + 1)
	r.up(i)
	return nil
}

// Started reports the start time of j if it is running.
func (r *RunningK) Started(j *job.Request) (start int64, running bool) {
	if j.ID < 0 || j.ID >= len(r.pos) || r.pos[j.ID] == 0 {
		return 0, false
	}
	return r.heap[r.pos[j.ID]-1].start, true
}

// End records that running job j ended at now, releasing the rest of its
// hold; it reports whether j was running and whether it ended before the
// end of its hold.
func (r *RunningK) End(now int64, j *job.Request) (running, early bool) {
	if j.ID < 0 || j.ID >= len(r.pos) || r.pos[j.ID] == 0 {
		return false, false
	}
	i := int(r.pos[j.ID]) - 1
	it := r.heap[i]
	last := len(r.heap) - 1
	r.pos[it.id] = 0
	if i != last {
		r.heap[i] = r.heap[last]
		r.pos[r.heap[i].id] = int32(i + 1)
		r.heap = r.heap[:last]
		r.down(i)
		r.up(i)
	} else {
		r.heap = r.heap[:last]
	}
	if it.end > now {
		_ = r.Prof.Remove(now, it.end, it.need) // part of what StartFor added
		return true, true
	}
	return true, false
}

// Overrunning reports whether some running job has reached the end of its
// hold at now.
func (r *RunningK) Overrunning(now int64) bool {
	return len(r.heap) > 0 && r.heap[0].end <= now
}

// Stale reports whether some running job's hold ended before now: a job
// overrunning since an earlier pass (Running.Stale).
func (r *RunningK) Stale(now int64) bool {
	return len(r.heap) > 0 && r.heap[0].end < now
}

// OverrunUntil is Running.OverrunUntil: whether some job running past its
// estimate holds its requirements until t exactly.
func (r *RunningK) OverrunUntil(t int64) bool {
	var walk func(i int) bool
	walk = func(i int) bool {
		if i >= len(r.heap) || r.heap[i].end > t {
			return false
		}
		if it := &r.heap[i]; it.end == t && it.start+it.j.Estimate < t {
			return true
		}
		return walk(2*i+1) || walk(2*i+2)
	}
	return walk(0)
}

// CatchUp lengthens to now+1 every hold that ended before now (holds here
// are the estimates, so these jobs run past their estimates; see
// Running.CatchUp) and returns how many; the caller must first remove
// reservations that start before now+1.
func (r *RunningK) CatchUp(now int64) (int, error) {
	n := 0
	for len(r.heap) > 0 && r.heap[0].end < now {
		it := r.heap[0]
		if err := r.Prof.Add(it.end, now+1, it.need); err != nil {
			return n, fmt.Errorf("extending overrunning job %d: %w", it.id, err)
		}
		r.heap[0].end = now + 1
		r.down(0)
		n++
	}
	return n, nil
}

// Extend lengthens the hold of every overrunning job to now+1; the caller
// must first remove reservations that start before now+1.
func (r *RunningK) Extend(now int64) error {
	for len(r.heap) > 0 && r.heap[0].end <= now {
		it := r.heap[0]
		if err := r.Prof.Add(it.end, now+1, it.need); err != nil {
			return fmt.Errorf("extending overrunning job %d: %w", it.id, err)
		}
		r.heap[0].end = now + 1
		r.down(0)
	}
	return nil
}

func (r *RunningK) less(a, b int) bool {
	x, y := &r.heap[a], &r.heap[b]
	return x.end < y.end || (x.end == y.end && x.id < y.id)
}

func (r *RunningK) swap(a, b int) {
	r.heap[a], r.heap[b] = r.heap[b], r.heap[a]
	r.pos[r.heap[a].id] = int32(a + 1)
	r.pos[r.heap[b].id] = int32(b + 1)
}

func (r *RunningK) up(i int) {
	for i > 0 {
		p := (i - 1) / 2
		if !r.less(i, p) {
			return
		}
		r.swap(i, p)
		i = p
	}
}

func (r *RunningK) down(i int) {
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
