package service

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/service/store"
)

// The archive: a job that finishes (completed, timeout, cancelled,
// rejected) leaves the engine's memory and is written to the store's
// archive table in the same transaction as the record that finished it,
// so memory is bounded by the waiting and running jobs. Until that
// transaction commits the job stays in pending, where lookups (by id, by
// idempotency key) find it. GET /v1/jobs/{id}, the list, and idempotent
// retries read the archive.

// encodeArchived is the archive row of finished job j: the Job as JSON
// (an over-quota job's political priority −∞, which JSON cannot hold, is
// restored from OverQuota).
func encodeArchived(j *Job) store.Archived {
	c := *j
	if math.IsInf(c.Req.PP, 0) || math.IsNaN(c.Req.PP) {
		c.Req.PP = 0
	}
	data, err := json.Marshal(&c)
	if err != nil {
		panic("service: archiving job: " + err.Error()) // unreachable: plain fields, PP made finite
	}
	return store.Archived{ID: j.ID(), User: j.owner(), Key: j.Key, State: string(j.State), End: j.End, Data: data}
}

func decodeArchived(a store.Archived) (*Job, error) {
	var j Job
	if err := json.Unmarshal(a.Data, &j); err != nil {
		return nil, fmt.Errorf("archived job %d: %w", a.ID, err)
	}
	if j.OverQuota {
		j.Req.PP = math.Inf(-1)
	}
	return &j, nil
}

type pendingArchive struct {
	byID  map[int64]*Job
	byKey map[string]*Job
}

// archived finds a retired job (Engine.Archived; called with s.mu held):
// by public id, or, with id 0, by owner and idempotency key.
func (s *Service) archived(id int64, owner, key string) *Job {
	s.amu.Lock()
	var j *Job
	if id > 0 {
		j = s.pending.byID[id]
	} else {
		j = s.pending.byKey[owner+"\x00"+key]
	}
	s.amu.Unlock()
	if j != nil {
		return j
	}
	var a store.Archived
	var ok bool
	var err error
	if id > 0 {
		a, ok, err = s.st.ArchivedJob(id)
	} else {
		a, ok, err = s.st.ArchivedByKey(owner, key)
	}
	if err != nil {
		s.log.Error("reading the archive", "id", id, "err", err)
		return nil
	}
	if !ok {
		return nil
	}
	j, err = decodeArchived(a)
	if err != nil {
		s.log.Error("reading the archive", "id", id, "err", err)
		return nil
	}
	return j
}

// takeFinishedLocked moves the engine's retired jobs to pending and
// returns their archive rows (s.mu held).
func (s *Service) takeFinishedLocked() ([]store.Archived, []*Job) {
	fin := s.eng.TakeFinished()
	if len(fin) == 0 {
		return nil, nil
	}
	arch := make([]store.Archived, len(fin))
	s.amu.Lock()
	defer s.amu.Unlock()
	for i, j := range fin {
		arch[i] = encodeArchived(j)
		s.pending.byID[j.ID()] = j
		if j.Key != "" {
			s.pending.byKey[j.owner()+"\x00"+j.Key] = j
		}
	}
	return arch, fin
}

// archivedDone drops committed jobs from pending (the committer, without
// the engine lock).
func (s *Service) archivedDone(fin []*Job) {
	if len(fin) == 0 {
		return
	}
	s.amu.Lock()
	for _, j := range fin {
		s.views.archive = append(s.views.archive, j.Req.ID)
		if s.pending.byID[j.ID()] == j {
			delete(s.pending.byID, j.ID())
		}
		if j.Key != "" && s.pending.byKey[j.owner()+"\x00"+j.Key] == j {
			delete(s.pending.byKey, j.owner()+"\x00"+j.Key)
		}
	}
	s.amu.Unlock()
}

// archivedViews lists the archived (and pending) jobs of owners (all when
// nil) in states (all final states when nil), in id order; with limit >
// 0, only the newest limit. Called without s.mu.
func (s *Service) archivedViews(owners []string, keep func(*Job) bool, states []State, limit int) ([]JobView, error) {
	var finals []string
	for _, st := range []State{Completed, Timeout, Cancelled, Rejected} {
		if states == nil || slices.Contains(states, st) {
			finals = append(finals, string(st))
		}
	}
	if len(finals) == 0 {
		return nil, nil
	}
	seen := map[int64]bool{}
	var out []JobView
	add := func(j *Job) {
		if seen[j.ID()] || !keep(j) {
			return
		}
		seen[j.ID()] = true
		out = append(out, viewOf(j, -1))
	}
	// the finished jobs whose archive rows are not yet committed are in
	// the read view
	v := s.readView()
	v.each(func(j *Job) {
		if j.State.Final() && (owners == nil || slices.Contains(owners, j.owner())) && slices.Contains(finals, string(j.State)) {
			add(j)
		}
	})
	for _, st := range finals {
		err := s.st.ArchivedJobs(store.ArchiveQuery{Users: owners, State: st, Limit: limit, Desc: limit > 0}, func(a store.Archived) error {
			j, err := decodeArchived(a)
			if err != nil {
				return err
			}
			add(j)
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	slices.SortFunc(out, func(a, b JobView) int { return int(a.ID - b.ID) })
	if limit > 0 && len(out) > limit {
		out = out[len(out)-limit:]
	}
	return out, nil
}

// mergeViews merges the active jobs' views with the archived ones, by id;
// a job in both (it finished while the list was being made) is taken from
// the archive.
func mergeViews(active, arch []JobView) []JobView {
	if len(arch) == 0 {
		return active
	}
	in := make(map[int64]bool, len(arch))
	for _, v := range arch {
		in[v.ID] = true
	}
	out := make([]JobView, 0, len(active)+len(arch))
	for _, v := range active {
		if !in[v.ID] {
			out = append(out, v)
		}
	}
	out = append(out, arch...)
	slices.SortFunc(out, func(a, b JobView) int { return int(a.ID - b.ID) })
	return out
}

// archivedNoLock reads the job of public id (a decimal string) from the
// committed archive, without the engine lock; nil when it is not there
// (not finished, finished but not yet committed, or no such job).
func (s *Service) archivedNoLock(id string) *Job {
	n, ok := parseJobID(id)
	if !ok {
		return nil
	}
	a, ok, err := s.st.ArchivedJob(n)
	if err != nil || !ok {
		return nil
	}
	j, err := decodeArchived(a)
	if err != nil {
		return nil
	}
	return j
}
