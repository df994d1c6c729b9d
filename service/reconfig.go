package service

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/backfill-hpc/backfill/engine"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/service/store"
)

// Reconfiguration (issue 18): the policy and the machine size of a live
// service change — through the admin API (POST /v1/reconfigure) or at a
// restart with other --policy/--procs flags than the state's — without
// losing the queue. The rule, applied at one instant t:
//
//  1. The running jobs keep running, on the processors they hold, until
//     their limits. A machine smaller than the processors they hold now is
//     refused (drain first: stop submitting to the nodes, wait for their
//     jobs to end, then shrink).
//  2. A fresh policy with the new parameters on the new machine takes
//     over the running jobs (policy.Adopter: their holds up to their
//     limits), then every waiting job is inserted again at t, in arrival
//     (id) order, as if submitted then in that order.
//  3. A waiting job larger than the new machine, or refused by the new
//     policy's admission control (a deadline it cannot guarantee), is
//     cancelled, with the reason.
//  4. A guarantee (latest start) given before is kept where the new policy
//     meets it: if the new policy guarantees a start ≤ the old guarantee,
//     the old one stands. Otherwise the job is re-planned: its guarantee
//     becomes the new policy's (none, if the new policy gives none) and
//     it is reported.
//
// The reconfiguration is one record of the log (kind "reconfigure":
// policy, machine size, and what was cancelled and re-planned); a replay
// applies it again and checks that it decides the same, so a crash after
// it restarts to the same state. The answer, the record and the service's
// log report every job cancelled or re-planned.

// KindReconfig is the log record of a reconfiguration.
const KindReconfig = "reconfigure"

// Replanned is a waiting job whose guarantee a reconfiguration could not
// keep.
type Replanned struct {
	ID  int64 `json:"id"`
	Old int64 `json:"old_guarantee"`
	New int64 `json:"new_guarantee"` // -1: the new policy gives none
}

// Dropped is a waiting job a reconfiguration cancelled.
type Dropped struct {
	ID     int64  `json:"id"`
	Reason string `json:"reason"`
}

// ReconfigReport is what a reconfiguration did.
type ReconfigReport struct {
	Time      int64       `json:"time"`
	Policy    string      `json:"policy"`
	Procs     int         `json:"procs"`
	OldPolicy string      `json:"old_policy"`
	OldProcs  int         `json:"old_procs"`
	Running   int         `json:"running"` // running jobs taken over
	Kept      int         `json:"kept"`    // waiting jobs whose guarantee (if any) was kept
	Replanned []Replanned `json:"replanned"`
	Cancelled []Dropped   `json:"cancelled"`
	Note      string      `json:"note,omitempty"`
}

// Reconfigure changes the policy (a spec, as policy.New takes) and the
// machine size at instant t (after Advance(t)), by the rule above, and
// logs it. On error nothing changes.
func (e *Engine) Reconfigure(t int64, spec string, procs int, note string) (*ReconfigReport, error) {
	if err := e.Advance(t); err != nil {
		return nil, err
	}
	// the jobs whose limit is t leave first (as before a submission)
	if err := e.killDue(); err != nil {
		return nil, err
	}
	rep, err := e.reconfigure(spec, procs, note, nil)
	if err != nil {
		return nil, err
	}
	e.emit(KindReconfig, e.cur, rep)
	return rep, nil
}

// reconfigure applies a reconfiguration at the current instant; want, on
// replay, is the logged report, which the new one must equal.
func (e *Engine) reconfigure(spec string, procs int, note string, want *ReconfigReport) (*ReconfigReport, error) {
	if procs < 1 {
		return nil, &apiError{400, fmt.Sprintf("machine size must be at least 1, got %d", procs)}
	}
	if err := e.core.Err(); err != nil {
		return nil, err
	}
	sched, err := policy.New(spec, procs)
	if err != nil {
		return nil, &fieldError{"policy", err.Error()}
	}
	_, _, busy := e.Counts()
	if busy > procs {
		return nil, &apiError{409, fmt.Sprintf("the running jobs hold %d processors; the machine cannot shrink to %d before they end (drain first: wait for the jobs on the nodes to go)", busy, procs)}
	}
	core, err := engine.New(sched, engine.Config{Procs: procs, Guarantees: true})
	if err != nil {
		return nil, err
	}
	now := e.cur
	var running []*job.Request
	var starts []int64
	var waiting []*Job
	for _, j := range e.jobs.Slice() {
		switch {
		case j == nil:
		case j.State == Running:
			running = append(running, &j.Req)
			starts = append(starts, j.Start)
		case j.State == Waiting:
			waiting = append(waiting, j)
		}
	}
	if err := core.Adopt(now, e.jobs.Len(), running, starts); err != nil {
		return nil, &apiError{409, err.Error()}
	}
	rep := &ReconfigReport{Time: now, Policy: sched.Name(), Procs: procs, OldPolicy: e.Policy(), OldProcs: e.procs,
		Running: len(running), Replanned: []Replanned{}, Cancelled: []Dropped{}, Note: note}
	type change struct {
		j     *Job
		guar  int64
		drop  string
		admit bool
	}
	changes := make([]change, 0, len(waiting))
	for _, j := range waiting {
		if j.Req.Procs > procs {
			changes = append(changes, change{j: j, drop: fmt.Sprintf("reconfiguration: %d processors requested, the machine now has %d", j.Req.Procs, procs)})
			continue
		}
		a, err := core.Resubmit(now, &j.Req)
		if err != nil {
			return nil, err
		}
		if !a.Admitted {
			r := a.Reason
			if r == "" {
				r = "rejected by admission control"
			}
			changes = append(changes, change{j: j, drop: "reconfiguration: policy " + rep.Policy + ": " + r})
			continue
		}
		changes = append(changes, change{j: j, guar: a.Bound, admit: true})
	}
	for _, c := range changes {
		j := c.j
		switch {
		case !c.admit:
			rep.Cancelled = append(rep.Cancelled, Dropped{ID: j.ID(), Reason: c.drop})
		case j.Guarantee >= 0 && (c.guar < 0 || c.guar > j.Guarantee):
			rep.Replanned = append(rep.Replanned, Replanned{ID: j.ID(), Old: j.Guarantee, New: c.guar})
		default:
			rep.Kept++
		}
	}
	if want != nil {
		a, _ := json.Marshal(rep)
		b, _ := json.Marshal(want)
		if string(a) != string(b) {
			return nil, fmt.Errorf("replay diverged: the reconfiguration now gives %s, the log says %s", a, b)
		}
	}
	// commit: the new policy takes over
	e.core, e.plan, e.procs = core, core.Planner(), procs
	// the waiting jobs were just inserted: the plan is settled (as after
	// a submission)
	e.wake, e.dirty, e.planFresh = policy.NoWake, true, !e.replay
	for _, c := range changes {
		j := c.j
		switch {
		case !c.admit:
			j.State, j.End, j.Reason = Cancelled, now, c.drop
			e.outstanding[j.owner()] -= int64(j.Req.Procs) * j.Req.Estimate
			e.touch(j)
			e.effects = append(e.effects, Effect{Kind: "cancel", Job: j})
			e.retire(j)
		case j.Guarantee < 0 || c.guar < 0 || c.guar > j.Guarantee:
			j.Guarantee = c.guar // re-planned (or a first guarantee)
			e.touch(j)
		}
	}
	return rep, nil
}

// logReconfig logs a reconfiguration and every job it cancelled or
// re-planned.
func (s *Service) logReconfig(rep *ReconfigReport) {
	s.log.Warn("reconfigured", "policy", rep.Policy, "procs", rep.Procs, "was_policy", rep.OldPolicy, "was_procs", rep.OldProcs,
		"running", rep.Running, "kept", rep.Kept, "replanned", len(rep.Replanned), "cancelled", len(rep.Cancelled), "note", rep.Note)
	for _, r := range rep.Replanned {
		s.log.Warn("guarantee re-planned by the reconfiguration", "id", r.ID, "old_guarantee", r.Old, "new_guarantee", r.New)
	}
	for _, d := range rep.Cancelled {
		s.log.Warn("job cancelled by the reconfiguration", "id", d.ID, "reason", d.Reason)
	}
}

// ReconfigRequest is the body of POST /v1/reconfigure: the new policy
// spec and machine size (either may be left out: unchanged) and a note
// for the log.
type ReconfigRequest struct {
	Policy *string `json:"policy,omitempty"`
	Procs  *int    `json:"procs,omitempty"`
	Note   string  `json:"note,omitempty"`
}

// Reconfigure changes the live service's policy and machine size by the
// rule of this file, recorded in the log; the report lists what was
// cancelled and re-planned.
func (s *Service) Reconfigure(req ReconfigRequest) (*ReconfigReport, error) {
	if err := checkString("note", req.Note, maxName); err != nil {
		return nil, err
	}
	if req.Policy != nil {
		if err := checkString("policy", *req.Policy, maxName); err != nil {
			return nil, err
		}
	}
	if req.Procs != nil && (*req.Procs < 1 || *req.Procs > MaxProcs) {
		return nil, &fieldError{"procs", fmt.Sprintf("must be in [1, %d], got %d", MaxProcs, *req.Procs)}
	}
	now := s.clock.Now()
	var rep *ReconfigReport
	err := s.do(func(e *Engine) error {
		spec, procs := e.Policy(), e.procs
		if req.Policy != nil {
			spec = *req.Policy
			if err := s.checkFiles(spec, e.Policy()); err != nil {
				return err
			}
		}
		if req.Procs != nil {
			procs = *req.Procs
		}
		var err error
		rep, err = e.Reconfigure(max(now, e.cur), spec, procs, req.Note)
		return err
	})
	if err != nil {
		return nil, err
	}
	s.logReconfig(rep)
	return rep, nil
}

// fileParams are the policy parameters whose values are files the policy
// reads (slurm.conf, the shares file, the sidecar of an import).
var fileParams = []string{"slurmconf", "shares", "sidecar"}

// checkFiles refuses a live reconfiguration to spec when one of its
// parameters names a file other than those of the service's own
// configuration (the --policy it was started with and created with, and
// the current policy): the service would read any file it can, and a
// parse error quotes the file's lines back to the caller — a file-read
// oracle for whoever holds the admin token. A site that needs another
// file restarts the service with it in --policy (the operator's choice,
// applied as a reconfiguration at the restart). The message names the
// parameter, never the file's content.
func (s *Service) checkFiles(spec, current string) error {
	_, params, err := policy.Parse(spec)
	if err != nil {
		return &fieldError{"policy", err.Error()}
	}
	known := map[string]bool{}
	for _, own := range []string{s.cfg.Policy, s.logSpec, current} {
		if _, p, err := policy.Parse(own); err == nil {
			for _, k := range fileParams {
				if v := p[k]; v != "" {
					known[k+"="+v] = true
				}
			}
		}
	}
	for _, k := range fileParams {
		if v, ok := params[k]; ok && v != "" && !known[k+"="+v] {
			return &fieldError{"policy", fmt.Sprintf("parameter %s names a file the service was not started with; a live reconfiguration may use only the files of its --policy (restart with the new file in --policy instead)", k)}
		}
	}
	return nil
}

func (s *Service) reconfigure(w http.ResponseWriter, r *http.Request, u store.User) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	var req ReconfigRequest
	if err := decodeStrict(body, &req); err != nil {
		return err
	}
	if req.Policy == nil && req.Procs == nil {
		return &fieldError{"policy", "give the new policy, procs, or both"}
	}
	if req.Note == "" {
		req.Note = "by " + u.Name
	}
	rep, err := s.Reconfigure(req)
	if err != nil {
		return err
	}
	writeJSON(w, 200, rep)
	return nil
}
