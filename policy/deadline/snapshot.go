package deadline

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/reservation"
)

var (
	_ policy.Snapshotter = (*Policy)(nil)
	_ policy.Adopter     = (*Policy)(nil)
)

// snapshot is the saved state of QoPS, MSB and MRT (version 1): the
// running jobs' holds, every admitted waiting job's reservation and the
// deadline the scheduler guarantees it (its own, the artificial one, or —
// for a job without a deadline admitted at the end of the schedule — the
// extended one, which no request field gives back), and the releases of
// the current instant not yet compressed. The profile is the sum of the
// holds and reservations, and QoPS's heuristic order of the waiting jobs
// follows from the deadlines (setKey): both are rebuilt by Restore. The
// rest of the policy is scratch of one decision, or the answer for the
// job inserted last (Admitted), which a driver asks right after Insert,
// before any snapshot; Stats are counts, not state.
type snapshot struct {
	V    int                  `json:"v"`
	Run  []policy.RunningHold `json:"run"`
	Wait [][3]int64           `json:"wait"` // job ID, reservation, deadline, in (reservation, ID) order
	Pend *[3]int64            `json:"pend,omitempty"`
}

// Snapshot implements policy.Snapshotter.
func (s *Policy) Snapshot() ([]byte, error) {
	wait := s.book.Wait()
	sn := snapshot{V: 1, Run: s.run.Holds(), Wait: make([][3]int64, len(wait))}
	for i, x := range wait {
		sn.Wait[i] = [3]int64{int64(x.J.ID), x.Start, x.X.d}
	}
	if now, freed, rel, ok := s.book.Pending(); ok {
		sn.Pend = &[3]int64{now, freed, rel}
	}
	return json.Marshal(sn)
}

// Restore implements policy.Snapshotter.
func (s *Policy) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	var sn snapshot
	if err := policy.DecodeSnapshot(s.kind, s.run.Len() == 0 && s.book.Len() == 0, data, &sn, &sn.V, 1); err != nil {
		return err
	}
	if err := s.run.RestoreHolds(s.kind, sn.Run, lookup); err != nil {
		return err
	}
	for _, w := range sn.Wait {
		j, err := policy.SnapshotJob(s.kind, lookup, w[0])
		if err != nil {
			return err
		}
		if _, dup := s.book.Get(j.ID); dup {
			return fmt.Errorf("%s: snapshot: job %d waits twice", s.kind, j.ID)
		}
		x := newJob(j, w[2])
		x.Start = w[1]
		if x.Start != reservation.Infinity {
			if err := s.run.Prof.Add(x.Start, x.Start+x.Dur, j.Procs); err != nil {
				return fmt.Errorf("%s: snapshot: reservation of job %d: %w", s.kind, j.ID, err)
			}
		}
		s.book.SetWait(append(s.book.Wait(), x))
		s.book.Index(x)
		s.keyInsert(x)
	}
	if !slices.IsSortedFunc(s.book.Wait(), cmpWait) {
		return fmt.Errorf("%s: snapshot: reservations out of order", s.kind)
	}
	if sn.Pend != nil {
		s.book.AddPending(sn.Pend[0], sn.Pend[1], sn.Pend[2])
	}
	s.run.Prof.Forget(now)
	return nil
}

// Adopt implements policy.Adopter: the running jobs' holds go into the
// profile; the driver then inserts the waiting jobs again in arrival
// order, each through the admission test at the new configuration (a
// job without a deadline gets its artificial deadline from its submission
// again; a job the new schedule cannot admit is rejected, which the live
// service reports as cancelled by the reconfiguration).
func (s *Policy) Adopt(now int64, holds []policy.RunningHold, lookup func(id int) *job.Request) error {
	if s.run.Len() > 0 || s.book.Len() > 0 {
		return errors.New(s.kind + ": adopt into a policy that is not fresh")
	}
	if err := s.run.AdoptHolds(s.kind, holds, lookup); err != nil {
		return err
	}
	s.run.Prof.Forget(now)
	return nil
}
