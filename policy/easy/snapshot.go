package easy

import (
	"encoding/json"
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
	Wait []int                `json:"wait"` // job IDs in arrival order (general order: the queue's order)
	// Order is a general order's own state (policy.OrderSnapshotter),
	// absent for a stateless one.
	Order json.RawMessage `json:"order,omitempty"`
}

// snapshotable reports why the configuration cannot be saved, or nil: a
// runtime predictor learns from history, which is not saved. A general
// order (Config.Prio) that keeps state of its own (fair share) is saved
// with the policy when it can save it (policy.OrderSnapshotter).
func (e *Policy) snapshotable() error {
	if e.plan.Params() != "" {
		return fmt.Errorf("easy: snapshot with predict=%s/correct=%s is not supported", e.plan.P.Name(), e.plan.C.Name())
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
		if e.prio != nil {
			// Wait is in the order's order at the last pass (sorted
			// again at the next), kept so for the plan shown until then
			var err error
			if s.Order, err = policy.NewOrdering(e.prio).Snapshot(); err != nil {
				return nil, fmt.Errorf("easy: %w", err)
			}
		}
	} else {
		for _, j := range e.fifo[e.fifoFirst:] {
			if e.state[j.ID] != stGone {
				s.Wait = append(s.Wait, j.ID)
			}
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
	var s snapshot
	if err := policy.DecodeSnapshot("easy", e.run.Len() == 0 && len(e.queue) == 0 && len(e.fifo) == 0, data, &s, &s.V, 1); err != nil {
		return err
	}
	if err := e.run.RestoreHolds("easy", s.Run, lookup); err != nil {
		return err
	}
	if e.prio != nil {
		if err := policy.NewOrdering(e.prio).Restore(now, s.Order, lookup); err != nil {
			return fmt.Errorf("easy: snapshot: %w", err)
		}
		// the restored order knows the waiting jobs already
		obs := e.obs
		e.obs = nil
		defer func() { e.obs = obs }()
	}
	// a general order lists the waiting jobs in its own order
	if err := policy.ReinsertWaiting("easy", s.Wait, e.prio == nil, lookup, func(j *job.Request) { e.Insert(now, j) }); err != nil {
		return err
	}
	e.run.Prof.Forget(now)
	return nil
}
