package lookahead

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

// snapshot is the saved state of lookahead (version 1): the running jobs'
// holds and the waiting jobs with their skip counts. The queue's order
// follows from the set (arrival, or (estimate, ID) for sjf), and no
// reservation is held between passes.
type snapshot struct {
	V    int                  `json:"v"`
	Run  []policy.RunningHold `json:"run"`
	Wait [][2]int             `json:"wait"` // job ID, skips; in ID order
	// Order is the queue order's own state (policy.OrderSnapshotter),
	// absent for a stateless one.
	Order json.RawMessage `json:"order,omitempty"`
}

// snapshotable reports why the configuration cannot be saved: never (a
// priority order that keeps state of its own is saved with the policy
// when it can save it, policy.OrderSnapshotter).
func (l *Policy) snapshotable() error { return nil }

// Snapshot implements policy.Snapshotter.
func (l *Policy) Snapshot() ([]byte, error) {
	if err := l.snapshotable(); err != nil {
		return nil, err
	}
	s := snapshot{V: 1, Run: l.run.Holds(), Wait: [][2]int{}}
	for i := 0; i < l.q.End(); i++ {
		if j := l.q.At(i); j != nil {
			s.Wait = append(s.Wait, [2]int{j.ID, int(l.skips[j.ID])})
		}
	}
	slices.SortFunc(s.Wait, func(a, b [2]int) int { return a[0] - b[0] })
	var err error
	if s.Order, err = l.ord.Snapshot(); err != nil {
		return nil, fmt.Errorf("lookahead: %w", err)
	}
	return json.Marshal(s)
}

// Restore implements policy.Snapshotter.
func (l *Policy) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	if err := l.snapshotable(); err != nil {
		return err
	}
	var s snapshot
	if err := policy.DecodeSnapshot("lookahead", l.run.Len() == 0 && l.q.Len() == 0, data, &s, &s.V, 1); err != nil {
		return err
	}
	if err := l.run.RestoreHolds("lookahead", s.Run, lookup); err != nil {
		return err
	}
	// the restored order knows the waiting jobs already
	done, err := l.ord.RestoreQuiet("lookahead", now, s.Order, lookup)
	if err != nil {
		return err
	}
	defer done()
	last := -1
	for _, w := range s.Wait {
		j, err := policy.SnapshotJob("lookahead", lookup, int64(w[0]))
		if err != nil {
			return err
		}
		if w[0] <= last || w[1] < 0 {
			return errors.New("lookahead: snapshot: waiting jobs out of order or a negative skip count")
		}
		last = w[0]
		l.Insert(now, j)
		l.skips[j.ID] = int32(w[1])
	}
	l.run.Prof.Forget(now)
	return nil
}

// Adopt implements policy.Adopter: the running jobs' holds go into the
// profile (the shadow time is computed from them at every pass).
func (l *Policy) Adopt(now int64, holds []policy.RunningHold, lookup func(id int) *job.Request) error {
	if l.run.Len() > 0 || l.q.Len() > 0 {
		return errors.New("lookahead: adopt into a policy that is not fresh")
	}
	if err := l.run.AdoptHolds("lookahead", holds, lookup); err != nil {
		return err
	}
	l.run.Prof.Forget(now)
	return nil
}
