package slurm

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/slurm"
)

var (
	_ policy.Snapshotter = (*Policy)(nil)
	_ policy.Adopter     = (*Policy)(nil)
)

// snapshot is the saved state of the slurm policy (version 1): the
// running jobs' holds (and, on a single node, their planned ends), the
// waiting list in its current order (whether it is sorted decides when
// the next cycle sees a new order), the timers of the main scheduler and
// the backfill agent, the pending requests of the background loop (the
// first's and the last's seconds), the second of the last change, and the
// multifactor priority's own state (fair-share usage, decay clock,
// priorities; policy.OrderSnapshotter) — with another order, that
// order's state too. A backfill cycle's reservations live for one cycle
// only, so none is saved. The limits' counters follow from the jobs and
// are counted again.
type snapshot struct {
	V         int                  `json:"v"`
	Run       []policy.RunningHold `json:"run"`
	Ends      [][3]int64           `json:"ends,omitempty"` // single node: end, CPUs, ID
	Wait      []int                `json:"wait"`           // job IDs in the list's order
	Stale     bool                 `json:"stale"`
	Epoch     int                  `json:"epoch"`
	SeenEpoch int                  `json:"seen_epoch"`
	Changed   bool                 `json:"changed"`
	LastBf    int64                `json:"last_bf"`
	LastSched int64                `json:"last_sched"`
	LastFull  int64                `json:"last_full"`
	Req       int64                `json:"req"`
	ReqLast   int64                `json:"req_last,omitempty"`   // the latest pending request's second
	ChangedAt int64                `json:"changed_at,omitempty"` // the last change's second
	Rej       map[int]string       `json:"rej,omitempty"`
	MF        json.RawMessage      `json:"multifactor"`
	Order     json.RawMessage      `json:"order,omitempty"` // another order's state
}

// snapshotable reports why the configuration cannot be saved: the
// sub-second phases of a recording (Options.Phases) keep per-job
// fractions that are not saved.
func (s *Policy) snapshotable() error {
	if s.ph != nil {
		return errors.New("slurm: snapshot with the phases of a recording is not supported")
	}
	return nil
}

// Snapshot implements policy.Snapshotter.
func (s *Policy) Snapshot() ([]byte, error) {
	if err := s.snapshotable(); err != nil {
		return nil, err
	}
	mf, err := s.mf.SnapshotOrder()
	if err != nil {
		return nil, fmt.Errorf("slurm: %w", err)
	}
	sn := snapshot{V: 1, Run: s.run.Holds(), Wait: make([]int, len(s.wait)), Stale: s.stale, Epoch: s.epoch, SeenEpoch: s.seenEpoch,
		Changed: s.changed, LastBf: s.lastBf, LastSched: s.lastSched, LastFull: s.lastFull, Req: s.req, ReqLast: s.reqLast, ChangedAt: s.changedAt, MF: mf}
	for i, j := range s.wait {
		sn.Wait[i] = j.ID
	}
	for _, e := range s.ends {
		sn.Ends = append(sn.Ends, [3]int64{e.end, int64(e.cpus), int64(e.id)})
	}
	if len(s.rej) > 0 {
		sn.Rej = s.rej
	}
	if s.ord.O != policy.Order(s.mf) {
		if sn.Order, err = s.ord.Snapshot(); err != nil {
			return nil, fmt.Errorf("slurm: %w", err)
		}
	}
	return json.Marshal(&sn)
}

// Restore implements policy.Snapshotter.
func (s *Policy) Restore(now int64, data []byte, lookup func(id int) *job.Request) error {
	if err := s.snapshotable(); err != nil {
		return err
	}
	var sn snapshot
	if err := policy.DecodeSnapshot("slurm", s.run.Len() == 0 && len(s.wait) == 0, data, &sn, &sn.V, 1); err != nil {
		return err
	}
	if err := s.mf.RestoreOrder(now, sn.MF, lookup); err != nil {
		return fmt.Errorf("slurm: %w", err)
	}
	if s.ord.O != policy.Order(s.mf) {
		if err := s.ord.Restore(now, sn.Order, lookup); err != nil {
			return fmt.Errorf("slurm: %w", err)
		}
	}
	if err := s.run.RestoreHolds("slurm", sn.Run, lookup); err != nil {
		return err
	}
	seen := map[int]bool{}
	for _, h := range sn.Run {
		seen[h.ID] = true
		s.count(lookup(h.ID), true)
	}
	for _, id := range sn.Wait {
		j := lookup(id)
		if j == nil || seen[id] {
			return fmt.Errorf("slurm: snapshot: waiting job %d is unknown or listed twice", id)
		}
		seen[id] = true
		s.wait = append(s.wait, j)
		s.count(j, false)
	}
	s.minProcs = 0 // (unknown: the next cycle's scan sets it)
	for _, e := range sn.Ends {
		if !seen[int(e[2])] || e[1] < 0 {
			return fmt.Errorf("slurm: snapshot: the planned end of job %d is not a running job's", e[2])
		}
		s.ends = append(s.ends, runEnd{end: e[0], cpus: int(e[1]), id: int(e[2])})
	}
	if sn.Rej != nil {
		s.rej = sn.Rej
	}
	s.stale, s.epoch, s.seenEpoch, s.changed = sn.Stale, sn.Epoch, sn.SeenEpoch, sn.Changed
	s.lastBf, s.lastSched, s.lastFull, s.req = sn.LastBf, sn.LastSched, sn.LastFull, sn.Req
	s.reqLast, s.changedAt = sn.ReqLast, sn.ChangedAt
	s.run.Prof.Forget(now)
	return nil
}

// count counts job j (running or waiting) against its association's and
// QOS's limits, as Insert and the start did (when a limit reads the
// counts: Policy.counts).
func (s *Policy) count(j *job.Request, running bool) {
	if !s.counts {
		return
	}
	a, q := s.mf.Job(j)
	in := s.mf.Info(j)
	for x := a; x != nil; x = x.Parent {
		slurm.CountSubmit(x, 1)
	}
	slurm.CountQOSSubmit(q, in.User, 1)
	if running {
		slurm.CountRun(a, q, in.User, int64(j.Procs), 1)
	}
}

// Adopt implements policy.Adopter: the running jobs' holds go into the
// profile, they count against their limits, the priority knows them as
// running (they add fair-share usage from now on; the usage of the
// policy they come from is not carried over), and on a single node their
// planned ends are the ends of their holds.
func (s *Policy) Adopt(now int64, holds []policy.RunningHold, lookup func(id int) *job.Request) error {
	if err := s.snapshotable(); err != nil {
		return err
	}
	if s.run.Len() > 0 || len(s.wait) > 0 {
		return errors.New("slurm: adopt into a policy that is not fresh")
	}
	if err := s.run.AdoptHolds("slurm", holds, lookup); err != nil {
		return err
	}
	hs := slices.Clone(holds)
	slices.SortFunc(hs, func(a, b policy.RunningHold) int { return a.ID - b.ID })
	for _, h := range hs {
		j := lookup(h.ID)
		s.mf.Adopted(now, j, h.Start)
		if s.ord.O != policy.Order(s.mf) {
			s.ord.Submitted(now, j)
			s.ord.Started(now, j)
		}
		s.count(j, true)
		if s.node {
			s.ends = append(s.ends, runEnd{h.End, j.Procs, j.ID})
		}
	}
	s.run.Prof.Forget(now)
	return nil
}
