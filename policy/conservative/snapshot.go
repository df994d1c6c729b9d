package conservative

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/reservation"
)

var _ policy.Snapshotter = (*Policy)(nil)

// snapshot is the saved state of conservative backfilling (version 1):
// the running jobs' holds, every waiting job's current reservation with
// its first one (the guarantee), and the releases of the current instant
// not yet compressed. The profile is not saved: it is the sum of the
// holds and reservations, rebuilt by Restore.
type snapshot struct {
	V    int                  `json:"v"`
	Run  []policy.RunningHold `json:"run"`
	Wait [][3]int64           `json:"wait"` // job ID, start, first, in (start, ID) order
	Pend *[4]int64            `json:"pend,omitempty"`
	// Order is the queue order's own state (policy.OrderSnapshotter),
	// absent for a stateless one.
	Order json.RawMessage `json:"order,omitempty"`
}

// snapshotable reports why the configuration cannot be saved, or nil: a
// runtime predictor learns from history, which is not saved (such
// configurations are replayed in full). A queue order that keeps state
// of its own (fair share) is saved with the policy when it can save it
// (policy.OrderSnapshotter).
func (c *Policy) snapshotable() error {
	if c.plan.Params() != "" {
		return fmt.Errorf("conservative: snapshot with predict=%s/correct=%s is not supported", c.plan.P.Name(), c.plan.C.Name())
	}
	return nil
}

// Snapshot implements policy.Snapshotter.
func (c *Policy) Snapshot() ([]byte, error) {
	if err := c.snapshotable(); err != nil {
		return nil, err
	}
	wait := c.book.Wait()
	s := snapshot{V: 1, Run: c.run.Holds(), Wait: make([][3]int64, len(wait))}
	for i, e := range wait {
		s.Wait[i] = [3]int64{int64(e.J.ID), e.Start, e.First}
	}
	if now, freed, rel, ok := c.book.Pending(); ok {
		s.Pend = &[4]int64{1, now, freed, rel}
	}
	if w, starts, now, freed, rel, ok := c.book.Unsettled(); ok {
		// a compression made ahead (SettleAhead) that a Remove at now
		// would undo: the state before it, so the restored policy does
		// the same
		for i, e := range w {
			s.Wait[i] = [3]int64{int64(e.J.ID), starts[i], e.First}
		}
		s.Pend = &[4]int64{1, now, freed, rel}
	}
	var err error
	if s.Order, err = c.ord.Snapshot(); err != nil {
		return nil, fmt.Errorf("conservative: %w", err)
	}
	return json.Marshal(s)
}

// Restore implements policy.Snapshotter.
func (c *Policy) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	if err := c.snapshotable(); err != nil {
		return err
	}
	var s snapshot
	if err := policy.DecodeSnapshot("conservative", c.run.Len() == 0 && c.book.Len() == 0, data, &s, &s.V, 1); err != nil {
		return err
	}
	if err := c.ord.Restore(now, s.Order, lookup); err != nil {
		return fmt.Errorf("conservative: snapshot: %w", err)
	}
	if err := c.run.RestoreHolds("conservative", s.Run, lookup); err != nil {
		return err
	}
	for _, w := range s.Wait {
		j, err := policy.SnapshotJob("conservative", lookup, w[0])
		if err != nil {
			return err
		}
		if _, dup := c.book.Get(j.ID); dup {
			return fmt.Errorf("conservative: snapshot: job %d waits twice", j.ID)
		}
		d := c.plan.Submit(now, j) // the estimate plan: records the duration
		e := &entry{J: j, Need: j.Procs, Dur: d, Start: w[1], First: w[2]}
		if err := c.run.Prof.Add(e.Start, e.Start+d, j.Procs); err != nil {
			return fmt.Errorf("conservative: snapshot: reservation of job %d: %w", j.ID, err)
		}
		c.book.SetWait(append(c.book.Wait(), e))
		c.book.Index(e)
	}
	if !slices.IsSortedFunc(c.book.Wait(), reservation.Cmp[int, struct{}]) {
		return errors.New("conservative: snapshot: reservations out of order")
	}
	if s.Pend != nil {
		c.book.AddPending(s.Pend[1], s.Pend[2], s.Pend[3])
	}
	c.run.Prof.Forget(now)
	return nil
}
