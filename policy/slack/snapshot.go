package slack

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/reservation"
)

var (
	_ policy.Snapshotter = (*Policy)(nil)
	_ policy.Adopter     = (*Policy)(nil)
)

// snapshot is the saved state of slack-based backfilling (version 1): the
// running jobs' holds and priorities (Extend), every waiting job's slot,
// first slot, scheduler priority SP (p and s0 follow from it) and bound,
// and the releases of the current instant not yet repriced. The profile is
// the sum of the holds and slots, rebuilt by Restore.
type snapshot struct {
	V    int                  `json:"v"`
	Run  []policy.RunningHold `json:"run"`
	RunP []runP               `json:"run_p"`
	Wait []waitEntry          `json:"wait"` // in (slot, ID) order
	Pend *[3]int64            `json:"pend,omitempty"`
	// Order is the queue order's own state (policy.OrderSnapshotter),
	// absent for a stateless one.
	Order json.RawMessage `json:"order,omitempty"`
}

// runP is a running job's priority p (strconv: −Inf for over quota).
type runP struct {
	ID int    `json:"id"`
	P  string `json:"p"`
}

type waitEntry struct {
	ID    int     `json:"id"`
	Start int64   `json:"start"`
	First int64   `json:"first"`
	SP    float64 `json:"sp"`
	Bound int64   `json:"bound"`
}

// snapshotable reports why the configuration cannot be saved: never (a
// queue order that keeps state of its own, such as fair share, is saved
// with the policy when it can save it, policy.OrderSnapshotter).
func (s *Policy) snapshotable() error { return nil }

// Snapshot implements policy.Snapshotter.
func (s *Policy) Snapshot() ([]byte, error) {
	if err := s.snapshotable(); err != nil {
		return nil, err
	}
	sn := snapshot{V: 1, Run: s.run.Holds(), RunP: []runP{}, Wait: []waitEntry{}}
	for _, h := range sn.Run {
		if p, ok := s.runP[h.ID]; ok {
			sn.RunP = append(sn.RunP, runP{ID: h.ID, P: strconv.FormatFloat(p, 'g', -1, 64)})
		}
	}
	for _, x := range s.book.Wait() {
		sn.Wait = append(sn.Wait, waitEntry{ID: x.J.ID, Start: x.Start, First: x.First, SP: x.X.sp, Bound: x.X.bound})
	}
	if now, freed, rel, ok := s.book.Pending(); ok {
		sn.Pend = &[3]int64{now, freed, rel}
	}
	var err error
	if sn.Order, err = s.ord.Snapshot(); err != nil {
		return nil, fmt.Errorf("slack: %w", err)
	}
	return json.Marshal(sn)
}

// Restore implements policy.Snapshotter.
func (s *Policy) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	if err := s.snapshotable(); err != nil {
		return err
	}
	var sn snapshot
	if err := policy.DecodeSnapshot("slack", s.run.Len() == 0 && s.book.Len() == 0, data, &sn, &sn.V, 1); err != nil {
		return err
	}
	if err := s.run.RestoreHolds("slack", sn.Run, lookup); err != nil {
		return err
	}
	if err := s.ord.Restore(now, sn.Order, lookup); err != nil {
		return fmt.Errorf("slack: snapshot: %w", err)
	}
	for _, rp := range sn.RunP {
		p, err := strconv.ParseFloat(rp.P, 64)
		if err != nil {
			return fmt.Errorf("slack: snapshot: priority of job %d: %w", rp.ID, err)
		}
		s.runP[rp.ID] = p
	}
	for _, w := range sn.Wait {
		j, err := policy.SnapshotJob("slack", lookup, int64(w.ID))
		if err != nil {
			return err
		}
		if _, dup := s.book.Get(j.ID); dup {
			return fmt.Errorf("slack: snapshot: job %d waits twice", j.ID)
		}
		x := newJob(j)
		x.Start, x.First = w.Start, w.First
		setPriority(x, w.SP, &s.prm)
		x.X.bound = w.Bound
		if x.Start != reservation.Infinity {
			if err := s.run.Prof.Add(x.Start, x.Start+x.Dur, j.Procs); err != nil {
				return fmt.Errorf("slack: snapshot: slot of job %d: %w", j.ID, err)
			}
		}
		s.book.SetWait(append(s.book.Wait(), x))
		s.book.Index(x)
	}
	if !slices.IsSortedFunc(s.book.Wait(), cmpWait) {
		return errors.New("slack: snapshot: slots out of order")
	}
	if sn.Pend != nil {
		s.book.AddPending(sn.Pend[0], sn.Pend[1], sn.Pend[2])
	}
	s.run.Prof.Forget(now)
	return nil
}

// Adopt implements policy.Adopter: the running jobs' holds go into the
// profile (with priority 1 for Extend, which the service does not use:
// it kills jobs at their limits).
func (s *Policy) Adopt(now int64, holds []policy.RunningHold, lookup func(id int) *job.Request) error {
	if s.run.Len() > 0 || s.book.Len() > 0 {
		return errors.New("slack: adopt into a policy that is not fresh")
	}
	if err := s.run.AdoptHolds("slack", holds, lookup); err != nil {
		return err
	}
	for _, h := range holds {
		s.runP[h.ID] = 1
	}
	s.run.Prof.Forget(now)
	return nil
}
