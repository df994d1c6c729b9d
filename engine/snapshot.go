package engine

import (
	"errors"
	"fmt"
	"math"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// State is an Engine's state saved with its policy's (policy.Snapshotter),
// so that a driver restarts from it and replays only the later events.
// The job requests themselves are not in it: the driver keeps its jobs
// and gives them back to Restore by ID.
type State struct {
	Now     int64  `json:"now"`
	Passes  int64  `json:"passes"`
	Jobs    int    `json:"jobs"`    // jobs submitted (the next ID)
	Waiting []int  `json:"waiting"` // IDs of the waiting jobs, increasing
	Running []int  `json:"running"` // IDs of the running jobs, increasing
	Policy  []byte `json:"policy"`  // the policy's snapshot
}

// CanSnapshot reports whether the policy implements policy.Snapshotter
// (Snapshot may still fail for a configuration it cannot save).
func (e *Engine) CanSnapshot() bool {
	_, ok := e.sched.(policy.Snapshotter)
	return ok
}

// Snapshot saves the Engine's and the policy's state. It fails when the
// policy cannot save its state (no policy.Snapshotter, or a configuration
// it does not save) or has failed; the driver then keeps replaying its
// full history. Take it between protocol steps (after a pass).
func (e *Engine) Snapshot() (State, error) {
	if e.err != nil {
		return State{}, e.err
	}
	sn, ok := e.sched.(policy.Snapshotter)
	if !ok {
		return State{}, fmt.Errorf("engine: policy %s cannot save its state", e.name)
	}
	data, err := sn.Snapshot()
	if err != nil {
		return State{}, err
	}
	st := State{Now: e.now, Passes: e.passes, Jobs: e.jobs.Len(), Policy: data, Waiting: []int{}, Running: []int{}}
	e.jobs.Each(func(id int, x slot) {
		switch x.s {
		case stWaiting:
			st.Waiting = append(st.Waiting, id)
		case stRunning:
			st.Running = append(st.Running, id)
		}
	})
	return st, nil
}

// Restore sets a fresh Engine (nothing submitted) and its fresh policy to
// st: lookup returns the request of each waiting or running job by ID
// (the very request the driver will pass to End or Cancel). Every job not
// listed is done. The free capacity is recomputed from the running jobs.
func (e *Engine) Restore(st State, lookup func(id int) *job.Request) error {
	if e.jobs.Len() > 0 || e.now != math.MinInt64 {
		return errors.New("engine: restore into an engine that is not fresh")
	}
	sn, ok := e.sched.(policy.Snapshotter)
	if !ok {
		return fmt.Errorf("engine: policy %s cannot restore a state", e.name)
	}
	if st.Jobs < 0 || len(st.Waiting)+len(st.Running) > st.Jobs {
		return fmt.Errorf("engine: snapshot of %d jobs lists %d waiting and %d running", st.Jobs, len(st.Waiting), len(st.Running))
	}
	// the window starts at the oldest job listed (every job below it is
	// done)
	base := st.Jobs
	for _, ids := range [][]int{st.Waiting, st.Running} {
		for _, id := range ids {
			if id >= 0 {
				base = min(base, id)
			}
		}
	}
	reqs := make([]*job.Request, st.Jobs-base)
	state := make([]uint8, st.Jobs-base)
	for i := range state {
		state[i] = stDone
	}
	free := e.procs
	freeRes := append([]int(nil), e.res...)
	set := func(ids []int, s uint8) error {
		for _, id := range ids {
			if id < 0 || id >= st.Jobs || state[id-base] != stDone {
				return fmt.Errorf("engine: snapshot lists job %d twice or out of range", id)
			}
			r := lookup(id)
			if r == nil || r.ID != id {
				return fmt.Errorf("engine: snapshot: job %d is unknown", id)
			}
			reqs[id-base], state[id-base] = r, s
			if s == stRunning {
				free -= r.Procs
				for k, n := range r.Res {
					if k >= len(freeRes) {
						return fmt.Errorf("engine: snapshot: job %d needs resource %d", id, k+1)
					}
					freeRes[k] -= n
				}
			}
		}
		return nil
	}
	if err := set(st.Waiting, stWaiting); err != nil {
		return err
	}
	if err := set(st.Running, stRunning); err != nil {
		return err
	}
	if free < 0 {
		return fmt.Errorf("engine: snapshot: running jobs hold %d processors of %d", e.procs-free, e.procs)
	}
	for k, f := range freeRes {
		if f < 0 {
			return fmt.Errorf("engine: snapshot: running jobs hold %d units of resource %d", e.res[k]-f, k+1)
		}
	}
	if err := sn.Restore(st.Now, st.Policy, func(id int) *job.Request {
		if id < base || id >= st.Jobs || state[id-base] == stDone {
			return nil
		}
		return reqs[id-base]
	}); err != nil {
		return err
	}
	e.jobs.Reset(base)
	for i, s := range state {
		r := reqs[i]
		if e.trace != nil {
			r = nil
		}
		e.jobs.Append(slot{r, s})
	}
	e.jobs.Trim(func(x slot) bool { return x.s == stDone })
	e.free, e.freeRes = free, freeRes
	e.waiting, e.running = len(st.Waiting), len(st.Running)
	e.now, e.passes = st.Now, st.Passes
	return nil
}
