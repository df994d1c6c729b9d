package easy

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

var _ policy.Snapshotter = (*Policy)(nil)

// snapshot is the saved state of EASY (version 1): the running jobs'
// holds and the waiting jobs in arrival order. EASY holds no reservation
// between passes (they are recomputed at every pass), so nothing else
// decides its future passes.
type snapshot struct {
	V    int                  `json:"v"`
	Run  []policy.RunningHold `json:"run"`
	Wait []int                `json:"wait"` // job IDs in arrival order
}

// snapshotable reports why the configuration cannot be saved, or nil: a
// runtime predictor learns from history, and a general order (Config.Prio)
// may keep state of its own (fair share), neither of which is saved.
func (e *Policy) snapshotable() error {
	if e.plan.Params() != "" {
		return fmt.Errorf("easy: snapshot with predict=%s/correct=%s is not supported", e.plan.P.Name(), e.plan.C.Name())
	}
	if e.prio != nil && !policy.StatelessOrder(e.prio) {
		return fmt.Errorf("easy: snapshot with order %s is not supported", e.prio.Name())
	}
	return nil
}

// Snapshot implements policy.Snapshotter.
func (e *Policy) Snapshot() ([]byte, error) {
	if err := e.snapshotable(); err != nil {
		return nil, err
	}
	s := snapshot{V: 1, Run: e.run.Holds(), Wait: []int{}}
	if e.order == FCFS {
		for _, j := range e.queue[e.first:] {
			if j != nil {
				s.Wait = append(s.Wait, j.ID)
			}
		}
	} else {
		for _, j := range e.fifo {
			s.Wait = append(s.Wait, j.ID)
		}
	}
	return json.Marshal(s)
}

// Restore implements policy.Snapshotter: the holds are restored and the
// waiting jobs inserted again in arrival order.
func (e *Policy) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	if err := e.snapshotable(); err != nil {
		return err
	}
	if e.run.Len() > 0 || len(e.queue) > 0 || len(e.fifo) > 0 {
		return errors.New("easy: restore into a policy that is not fresh")
	}
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("easy: snapshot: %w", err)
	}
	if s.V != 1 {
		return fmt.Errorf("easy: snapshot version %d, expected 1", s.V)
	}
	for _, h := range s.Run {
		j := lookup(h.ID)
		if j == nil {
			return fmt.Errorf("easy: snapshot: unknown job %d", h.ID)
		}
		if h.End <= h.Start {
			return fmt.Errorf("easy: snapshot: job %d holds [%d, %d)", h.ID, h.Start, h.End)
		}
		if err := e.run.Restore(j, h.Start, h.End); err != nil {
			return fmt.Errorf("easy: snapshot: %w", err)
		}
	}
	last := -1
	for _, id := range s.Wait {
		j := lookup(id)
		if j == nil {
			return fmt.Errorf("easy: snapshot: unknown job %d", id)
		}
		if id <= last {
			return errors.New("easy: snapshot: waiting jobs out of arrival order")
		}
		last = id
		e.Insert(now, j)
	}
	e.run.Prof.Forget(now)
	return nil
}
