package fcfs

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

var (
	_ policy.Snapshotter = (*Policy)(nil)
	_ policy.Adopter     = (*Policy)(nil)
)

// snapshot is the saved state of FCFS (version 1): the free processors
// (and units of the other resources), the waiting jobs in arrival order,
// and, with a queue order that keeps state of its own (fair share), that
// state. Nothing else decides its later passes: with another order the
// queue is sorted again at insertion (a key order) or at each pass.
type snapshot struct {
	V       int             `json:"v"`
	Free    int             `json:"free"`
	FreeRes []int           `json:"free_res,omitempty"`
	Wait    []int           `json:"wait"` // job IDs in arrival order
	Order   json.RawMessage `json:"order,omitempty"`
}

// Snapshot implements policy.Snapshotter.
func (f *Policy) Snapshot() ([]byte, error) {
	s := snapshot{V: 1, Free: f.free, FreeRes: f.freeRes, Wait: []int{}}
	for _, j := range f.queue[f.head:] {
		s.Wait = append(s.Wait, j.ID)
	}
	if f.q != nil {
		f.q.Each(func(j *job.Request) { s.Wait = append(s.Wait, j.ID) })
		slices.Sort(s.Wait)
		var err error
		if s.Order, err = f.ord.Snapshot(); err != nil {
			return nil, fmt.Errorf("fcfs: %w", err)
		}
	}
	return json.Marshal(s)
}

// Restore implements policy.Snapshotter.
func (f *Policy) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	var s snapshot
	if err := policy.DecodeSnapshot("fcfs", len(f.queue) == 0 && (f.q == nil || f.q.Len() == 0), data, &s, &s.V, 1); err != nil {
		return err
	}
	// the restored order knows the waiting jobs already
	done, err := f.ord.RestoreQuiet("fcfs", now, s.Order, lookup)
	if err != nil {
		return err
	}
	defer done()
	if s.Free < 0 || len(s.FreeRes) != len(f.freeRes) {
		return fmt.Errorf("fcfs: snapshot of %d free processors and %d resources on a machine of %d resources", s.Free, len(s.FreeRes), len(f.freeRes)+1)
	}
	if err := policy.ReinsertWaiting("fcfs", s.Wait, true, lookup, func(j *job.Request) { f.Insert(now, j) }); err != nil {
		return err
	}
	f.free = s.Free
	copy(f.freeRes, s.FreeRes)
	return nil
}

// Adopt implements policy.Adopter: the running jobs' processors (and
// units) are taken.
func (f *Policy) Adopt(now int64, holds []policy.RunningHold, lookup func(id int) *job.Request) error {
	if len(f.queue) > 0 || (f.q != nil && f.q.Len() > 0) {
		return errors.New("fcfs: adopt into a policy that is not fresh")
	}
	for _, h := range holds {
		j := lookup(h.ID)
		if j == nil {
			return fmt.Errorf("fcfs: adopt: unknown job %d", h.ID)
		}
		if j.Procs > f.free {
			return fmt.Errorf("fcfs: adopt: job %d needs %d processors, %d free", j.ID, j.Procs, f.free)
		}
		f.free -= j.Procs
		if f.freeRes != nil {
			f.hold(j, 1)
		}
	}
	return nil
}
