// Package sim is the discrete-event simulation engine. It replays jobs
// (sorted by submit time) on a machine of P identical processors, and lets
// a policy.Scheduler decide who starts when.
//
// Events and their order. Time is int64 seconds. At each instant t the
// engine processes, in this order:
//
//  1. ends: every running job whose end is t — completion at start+runtime,
//     or, in kill mode, kill at start+estimate when the runtime exceeds the
//     estimate — in increasing job ID, each followed by policy.Remove;
//     then, with Options.Extend, the jobs reaching their limit at t, in
//     increasing job ID, each offered an extension (policy.Extender) and
//     killed (policy.Remove) without one. The reservation-based policies
//     react to the ends of an instant only once all are known (see
//     docs/simulator.md, "Same-instant events"), so the order of the ends
//     does not change the schedule;
//  2. submissions: every job submitted at t, in increasing job ID, each
//     followed by policy.Insert (and, for a policy.Guarantor, the bound it
//     promises);
//  3. one scheduling pass: policy.Tick(t), which starts jobs.
//
// Admission control. For a policy.Admitter (deadline scheduling: QoPS,
// MSB, MRT) the engine asks Admitted(j) right after Insert(j), before the
// next submission of the same instant. A rejected job is done at once: its
// Outcome has Rejected set, the policy's Reason, Start = End = -1; it is
// never started (starting it is an error) nor passed to Remove, and
// Result.Rejected counts it.
//
// A pass also happens at any time the policy asked to be woken at. Nothing
// depends on map order or goroutines: the same input gives the same
// schedule, byte for byte.
package sim

import (
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Options control a simulation.
type Options struct {
	// Procs is the machine size P.
	Procs int
	// NoKill lets jobs run past their estimate to their full runtime. By
	// default (as in the papers' simulations) a job is killed when it has
	// run for its estimate.
	NoKill bool
	// Extend asks a policy that implements policy.Extender, when a job
	// reaches the end of its estimate (or of an extension) without ending,
	// whether to extend it (Talby & Feitelson §4.7); the job is killed when
	// the policy gives no extension. Without NoKill only; ignored for
	// policies that do not implement policy.Extender (they kill).
	Extend bool
	// Progress, if set, is called with the number of ended jobs from time
	// to time (every 8192 ends) and at the end.
	Progress func(done int)
	// Res are the capacities of the resources beyond the processors
	// (K-resource scheduling; resource i+1 has capacity Res[i]), nil for a
	// machine of processors only. When set, every job's Request.Res must
	// have at most len(Res) entries, each within its capacity, and the
	// engine refuses a start that would put any resource over capacity.
	// Jobs with a Res on a machine without one are an error.
	Res []int
}

// Result is a finished simulation.
type Result struct {
	Policy   string
	Procs    int
	NoKill   bool
	Outcomes []job.Outcome // indexed by job ID
	Killed   int
	// Extensions is the number of extensions granted (Options.Extend);
	// Saved the number of jobs that completed thanks to them.
	Extensions, Saved int
	Passes            int // scheduling passes (Tick calls)
	// Rejected is the number of jobs a policy.Admitter refused at
	// submission (Outcome.Rejected).
	Rejected int
	// Res are the capacities of the resources beyond the processors
	// (Options.Res).
	Res []int
}

const (
	stWaiting = iota + 1
	stRunning
	stDone
)

// Run simulates jobs under sched. jobs must have IDs 0..len-1 in order and
// non-decreasing submit times, sizes in [1, Procs] and estimates ≥ 1 (as
// package workload produces them). It returns an error, never panics, if
// the policy misbehaves (starts a job twice, over capacity, or leaves jobs
// waiting on an idle machine).
func Run(jobs []job.Job, sched policy.Scheduler, opt Options) (*Result, error) {
	P := opt.Procs
	if P < 1 {
		return nil, fmt.Errorf("sim: machine size must be at least 1, got %d", P)
	}
	for i := range jobs {
		j := &jobs[i]
		switch {
		case j.ID != i:
			return nil, fmt.Errorf("sim: job at index %d has ID %d (IDs must be 0..N-1 in order)", i, j.ID)
		case i > 0 && j.Submit < jobs[i-1].Submit:
			return nil, fmt.Errorf("sim: job %d submitted at %d, before the previous job (%d)", j.SWFID, j.Submit, jobs[i-1].Submit)
		case j.Procs < 1 || j.Procs > P:
			return nil, fmt.Errorf("sim: job %d needs %d processors; the machine has %d", j.SWFID, j.Procs, P)
		case j.Estimate < 1:
			return nil, fmt.Errorf("sim: job %d has estimate %d (must be at least 1 s)", j.SWFID, j.Estimate)
		case j.Runtime < 0:
			return nil, fmt.Errorf("sim: job %d has negative runtime %d", j.SWFID, j.Runtime)
		case len(j.Res) > len(opt.Res):
			return nil, fmt.Errorf("sim: job %d needs %d resources beyond processors; the machine has %d (sim.Options.Res)", j.SWFID, len(j.Res), len(opt.Res))
		}
		for k, r := range j.Res {
			if r < 0 || r > opt.Res[k] {
				return nil, fmt.Errorf("sim: job %d needs %d units of resource %d; the machine has %d", j.SWFID, r, k+1, opt.Res[k])
			}
		}
	}
	for k, c := range opt.Res {
		if c < 1 {
			return nil, fmt.Errorf("sim: resource %d has capacity %d (must be at least 1)", k+1, c)
		}
	}
	// free units of the resources beyond processors (nil: processors only)
	freeRes := append([]int(nil), opt.Res...)
	guar, _ := sched.(policy.Guarantor)
	pred, _ := sched.(policy.Predicting)
	adm, _ := sched.(policy.Admitter)
	var ext policy.Extender
	if opt.Extend && !opt.NoKill {
		ext, _ = sched.(policy.Extender)
	}
	limit := []int64(nil) // kill time per job, with Extend
	if ext != nil {
		limit = make([]int64, len(jobs))
	}
	res := &Result{Policy: sched.Name(), Procs: P, NoKill: opt.NoKill, Outcomes: make([]job.Outcome, len(jobs))}
	if freeRes != nil {
		res.Res = append([]int(nil), opt.Res...)
	}
	state := make([]uint8, len(jobs))
	var ends endHeap
	free := P
	next := 0 // next job to submit
	done := 0
	waiting := 0
	wake := policy.NoWake
	var now int64
	var startErr error

	startFn := func(r *job.Request) {
		if startErr != nil {
			return
		}
		id := r.ID
		if id < 0 || id >= len(jobs) || &jobs[id].Request != r {
			startErr = fmt.Errorf("sim: policy %s started an unknown job", res.Policy)
			return
		}
		if state[id] != stWaiting {
			startErr = fmt.Errorf("sim: policy %s started job %d at %d, which is not waiting", res.Policy, r.SWFID, now)
			return
		}
		if r.Procs > free {
			startErr = fmt.Errorf("sim: policy %s started job %d (%d processors) at %d with only %d free", res.Policy, r.SWFID, r.Procs, now, free)
			return
		}
		for k, n := range r.Res {
			if n > freeRes[k] {
				startErr = fmt.Errorf("sim: policy %s started job %d (%d units of resource %d) at %d with only %d free", res.Policy, r.SWFID, n, k+1, now, freeRes[k])
				return
			}
		}
		for k, n := range r.Res {
			freeRes[k] -= n
		}
		j := &jobs[id]
		free -= r.Procs
		state[id] = stRunning
		waiting--
		o := &res.Outcomes[id]
		o.Start = now
		run := j.Runtime
		if ext != nil && run > j.Estimate {
			// a check at the estimate: the policy may extend the job
			limit[id] = now + j.Estimate
			ends.push(endItem{t: limit[id], id: int32(id), check: true})
			return
		}
		if !opt.NoKill && run > j.Estimate {
			run = j.Estimate
			o.Killed = true
		}
		o.End = now + run
		ends.push(endItem{t: o.End, id: int32(id)})
	}

	// endJob records that job id ended (completed or killed) at now and
	// tells the policy
	endJob := func(id int) {
		state[id] = stDone
		free += jobs[id].Procs
		for k, n := range jobs[id].Res {
			freeRes[k] += n
		}
		done++
		if res.Outcomes[id].Killed {
			res.Killed++
		}
		if pred != nil {
			if first, n, ok := pred.Prediction(&jobs[id].Request); ok {
				res.Outcomes[id].Predicted, res.Outcomes[id].Corrections = first, n
			}
		}
		sched.Remove(now, &jobs[id].Request)
		if opt.Progress != nil && done&8191 == 0 {
			opt.Progress(done)
		}
	}
	var checks []endItem

	for {
		// next instant
		t := wake
		if next < len(jobs) && jobs[next].Submit < t {
			t = jobs[next].Submit
		}
		if len(ends) > 0 && ends[0].t < t {
			t = ends[0].t
		}
		if t == policy.NoWake {
			break
		}
		now = t
		// 1. ends; kill checks (Options.Extend) after every end of the
		// instant, so that the policy prices an extension knowing all of
		// them
		checks = checks[:0]
		for len(ends) > 0 && ends[0].t == now {
			it := ends.pop()
			if it.check {
				checks = append(checks, it)
				continue
			}
			endJob(int(it.id))
		}
		for _, it := range checks {
			id := int(it.id)
			o := &res.Outcomes[id]
			x := ext.Extend(now, &jobs[id].Request)
			if x > 0 {
				res.Extensions++
				o.Extension += x
				limit[id] = now + x
				if end := o.Start + jobs[id].Runtime; end <= limit[id] {
					o.End = end
					res.Saved++
					ends.push(endItem{t: end, id: it.id})
				} else {
					ends.push(endItem{t: limit[id], id: it.id, check: true})
				}
				continue
			}
			o.End, o.Killed = now, true
			endJob(id)
		}
		// 2. submissions
		for next < len(jobs) && jobs[next].Submit == now {
			j := &jobs[next]
			res.Outcomes[next] = job.Outcome{Job: *j, Start: -1, End: -1, Bound: -1}
			state[next] = stWaiting
			waiting++
			sched.Insert(now, &j.Request)
			if adm != nil {
				if ok, reason := adm.Admitted(&j.Request); !ok {
					o := &res.Outcomes[next]
					o.Rejected, o.Reason = true, reason
					state[next] = stDone
					waiting--
					done++
					res.Rejected++
					next++
					continue
				}
			}
			if guar != nil && !opt.NoKill {
				res.Outcomes[next].Bound = guar.Guarantee(&j.Request)
			}
			next++
		}
		// 3. one pass
		wake = sched.Tick(now, startFn)
		res.Passes++
		if startErr != nil {
			return nil, startErr
		}
		if wake <= now {
			return nil, fmt.Errorf("sim: policy %s asked to be woken at %d, not after now (%d)", res.Policy, wake, now)
		}
		if waiting > 0 && len(ends) == 0 && next == len(jobs) && wake == policy.NoWake {
			return nil, fmt.Errorf("sim: policy %s leaves %d jobs waiting on an idle machine at %d", res.Policy, waiting, now)
		}
	}
	if opt.Progress != nil {
		opt.Progress(done)
	}
	if done != len(jobs) {
		return nil, fmt.Errorf("sim: only %d of %d jobs completed", done, len(jobs))
	}
	return res, nil
}

type endItem struct {
	t     int64
	id    int32
	check bool // a kill check (Options.Extend), not an end
}

// endHeap is a binary min-heap on (time, job ID).
type endHeap []endItem

func (h endHeap) less(a, b int) bool {
	return h[a].t < h[b].t || (h[a].t == h[b].t && h[a].id < h[b].id)
}

func (h *endHeap) push(it endItem) {
	*h = append(*h, it)
	s := *h
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !s.less(i, p) {
			break
		}
		s[i], s[p] = s[p], s[i]
		i = p
	}
}

func (h *endHeap) pop() endItem {
	s := *h
	top := s[0]
	last := len(s) - 1
	s[0] = s[last]
	s = s[:last]
	i := 0
	for {
		l := 2*i + 1
		if l >= len(s) {
			break
		}
		m := l
		if l+1 < len(s) && s.less(l+1, l) {
			m = l + 1
		}
		if !s.less(m, i) {
			break
		}
		s[i], s[m] = s[m], s[i]
		i = m
	}
	*h = s
	return top
}
