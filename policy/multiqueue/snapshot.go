package multiqueue

import (
	"encoding/json"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

var _ policy.Snapshotter = (*Policy)(nil)

// snapshot is the saved state of the multiple-queue policy (version 1):
// each running job's hold on the whole machine and the processors it
// takes in each partition until the end of its hold, and the waiting jobs
// (each in the queue of its class; the order follows from the set). The
// partitions' profiles are the sums of the takes, rebuilt by Restore.
type snapshot struct {
	V    int        `json:"v"`
	Run  []runEntry `json:"run"`
	Wait []int      `json:"wait"` // job IDs in arrival order
	// Order is the queue order's own state (policy.OrderSnapshotter),
	// absent for a stateless one.
	Order json.RawMessage `json:"order,omitempty"`
}

type runEntry struct {
	policy.RunningHold
	HoldEnd int64   `json:"hold_end"` // end of the partitions' holds
	Take    []int32 `json:"take"`
}

// snapshotable reports why the configuration cannot be saved: never (a
// priority order that keeps state of its own is saved with the policy
// when it can save it, policy.OrderSnapshotter).
func (m *Policy) snapshotable() error { return nil }

// Snapshot implements policy.Snapshotter.
func (m *Policy) Snapshot() ([]byte, error) {
	if err := m.snapshotable(); err != nil {
		return nil, err
	}
	s := snapshot{V: 1, Run: []runEntry{}, Wait: []int{}}
	for _, h := range m.run.Holds() {
		r := m.runs[h.ID]
		s.Run = append(s.Run, runEntry{RunningHold: h, HoldEnd: r.end, Take: r.take})
	}
	var wait []int
	for _, q := range m.qs {
		for i := 0; i < q.End(); i++ {
			if j := q.At(i); j != nil {
				wait = append(wait, j.ID)
			}
		}
	}
	slices.Sort(wait)
	s.Wait = append(s.Wait, wait...)
	var err error
	if s.Order, err = m.ord.Snapshot(); err != nil {
		return nil, fmt.Errorf("multiqueue: %w", err)
	}
	return json.Marshal(s)
}

// Restore implements policy.Snapshotter.
func (m *Policy) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	if err := m.snapshotable(); err != nil {
		return err
	}
	fresh := m.run.Len() == 0
	for _, q := range m.qs {
		fresh = fresh && q.Len() == 0
	}
	var s snapshot
	if err := policy.DecodeSnapshot("multiqueue", fresh, data, &s, &s.V, 1); err != nil {
		return err
	}
	for _, r := range s.Run {
		j, err := policy.SnapshotJob("multiqueue", lookup, int64(r.ID))
		if err != nil {
			return err
		}
		if len(r.Take) != len(m.prof) {
			return fmt.Errorf("multiqueue: snapshot: job %d takes from %d partitions, the policy has %d", r.ID, len(r.Take), len(m.prof))
		}
		if err := m.run.RestoreHolds("multiqueue", []policy.RunningHold{r.RunningHold}, lookup); err != nil {
			return err
		}
		for j.ID >= len(m.runs) {
			m.runs = append(m.runs, make([]running, max(64, len(m.runs)))...)
		}
		m.runs[j.ID] = running{end: r.HoldEnd, take: append([]int32(nil), r.Take...)}
		q := m.Class(j.Estimate)
		for p, t := range r.Take {
			if t < 0 {
				return fmt.Errorf("multiqueue: snapshot: job %d takes %d processors", r.ID, t)
			}
			if t == 0 {
				continue
			}
			if r.HoldEnd > now {
				m.base++
				if err := m.prof[p].Add(now, r.HoldEnd, int(t)); err != nil {
					return fmt.Errorf("multiqueue: snapshot: job %d in partition %d: %w", r.ID, p, err)
				}
			}
			m.held[p][q] += int(t)
		}
	}
	// the restored order knows the waiting jobs already
	done, err := m.ord.RestoreQuiet("multiqueue", now, s.Order, lookup)
	if err != nil {
		return err
	}
	defer done()
	if err := policy.ReinsertWaiting("multiqueue", s.Wait, true, lookup, func(j *job.Request) { m.Insert(now, j) }); err != nil {
		return err
	}
	m.run.Prof.Forget(now)
	return nil
}
