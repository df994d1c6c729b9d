package fcfs

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

var (
	_ policy.Snapshotter = (*Policy)(nil)
	_ policy.Adopter     = (*Policy)(nil)
)

// snapshot is the saved state of FCFS (version 1): the free processors
// (and units of the other resources) and the waiting jobs in arrival
// order. Nothing else decides its later passes.
type snapshot struct {
	V       int   `json:"v"`
	Free    int   `json:"free"`
	FreeRes []int `json:"free_res,omitempty"`
	Wait    []int `json:"wait"` // job IDs in arrival order
}

// Snapshot implements policy.Snapshotter.
func (f *Policy) Snapshot() ([]byte, error) {
	s := snapshot{V: 1, Free: f.free, FreeRes: f.freeRes, Wait: []int{}}
	for _, j := range f.queue[f.head:] {
		s.Wait = append(s.Wait, j.ID)
	}
	return json.Marshal(s)
}

// Restore implements policy.Snapshotter.
func (f *Policy) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	if len(f.queue) > 0 {
		return errors.New("fcfs: restore into a policy that is not fresh")
	}
	var s snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("fcfs: snapshot: %w", err)
	}
	if s.V != 1 {
		return fmt.Errorf("fcfs: snapshot version %d, expected 1", s.V)
	}
	if s.Free < 0 || len(s.FreeRes) != len(f.freeRes) {
		return fmt.Errorf("fcfs: snapshot of %d free processors and %d resources on a machine of %d resources", s.Free, len(s.FreeRes), len(f.freeRes)+1)
	}
	last := -1
	for _, id := range s.Wait {
		j := lookup(id)
		if j == nil {
			return fmt.Errorf("fcfs: snapshot: unknown job %d", id)
		}
		if id <= last {
			return errors.New("fcfs: snapshot: waiting jobs out of arrival order")
		}
		last = id
		f.Insert(now, j)
	}
	f.free = s.Free
	copy(f.freeRes, s.FreeRes)
	return nil
}

// Adopt implements policy.Adopter: the running jobs' processors (and
// units) are taken.
func (f *Policy) Adopt(now int64, holds []policy.RunningHold, lookup func(id int) *job.Request) error {
	if len(f.queue) > 0 {
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
