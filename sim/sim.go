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
// The policy is called only through package engine, the core the live
// service drives too: it checks every start (a waiting job that fits the
// free processors and resources), every wake-up (after now) and that no
// pass leaves jobs waiting on an idle machine without a wake-up; a policy
// that breaks these rules makes Run fail with the engine's error.
//
// Node-level requests. With a Placer that is a constrained Fitter
// (package machine with jobs' whole-node, memory, GPU and partition
// requests), a job the policy starts on counts is launched only when its
// nodes are free: it waits, in the order the policy started the jobs, and
// is launched after the ends of a later instant (Outcome.NodeWait,
// Result.NodeWaited, NodeWait, NodeIdle; docs/simulator.md). No start
// bound is recorded then.
//
// A pass also happens at any time the policy asked to be woken at. Nothing
// depends on map order or goroutines: the same input gives the same
// schedule, byte for byte.
package sim

import (
	"fmt"

	"github.com/backfill-hpc/backfill/engine"
	"github.com/backfill-hpc/backfill/internal/hugepage"
	"github.com/backfill-hpc/backfill/internal/minheap"
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
	// Placer, if set, assigns concrete cores to every job the engine
	// starts (Place, right after the start is accepted) and frees them
	// when it ends (Release): package machine's Allocator. Its free count
	// must be Procs at the start. Policies still schedule on counts; the
	// schedule is the same with or without a Placer.
	Placer Placer
}

// Placer assigns concrete resources to started jobs (package machine).
type Placer interface {
	// Free is the number of free processors.
	Free() int
	// Place gives job id procs processors; it fails only when fewer are
	// free or the job holds some already.
	Place(id, procs int) error
	// Release frees the processors of job id.
	Release(id int) error
}

// Fitter is implemented by a Placer that may be unable to place a job
// whose processor count fits the free processors (package machine with
// node-level requests: whole nodes, memory, GPUs, partitions). When
// Constrained, the simulator launches a job the policy started only once
// Fits; until then the job waits for its nodes, in the order the policy
// started the jobs (docs/simulator.md, "Node-level requests").
type Fitter interface {
	// Constrained reports whether Fits can be false when the count fits.
	Constrained() bool
	// Fits reports whether job id of procs processors can be placed now.
	Fits(id, procs int) bool
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
	// NodeWaited is the number of jobs that waited for their nodes after
	// the policy started them (a constrained Fitter; Outcome.NodeWait),
	// NodeWait the total of their waits in seconds, and NodeIdle the free
	// processor-seconds while some started job waited for its nodes:
	// capacity the counts said was usable and the nodes were not.
	NodeWaited int
	NodeWait   int64
	NodeIdle   int64
}

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
		case j.Runtime < 0:
			return nil, fmt.Errorf("sim: job %d has negative runtime %d", j.SWFID, j.Runtime)
		}
	}
	if opt.Placer != nil && opt.Placer.Free() != P {
		return nil, fmt.Errorf("sim: the placer has %d free processors; the machine has %d", opt.Placer.Free(), P)
	}
	// the engine checks that every job fits the machine
	var fit Fitter
	if f, ok := opt.Placer.(Fitter); ok && f.Constrained() {
		fit = f
	}
	// a job that waits for its nodes starts after the bound the policy
	// promised on counts: no promise is recorded then
	eng, err := engine.New(sched, engine.Config{Procs: P, Res: opt.Res, Guarantees: !opt.NoKill && fit == nil, Extend: opt.Extend && !opt.NoKill, Trace: jobs})
	if err != nil {
		return nil, fmt.Errorf("sim: %w", err)
	}
	r := &run{jobs: jobs, opt: opt, eng: eng, fit: fit,
		res: &Result{Policy: sched.Name(), Procs: P, NoKill: opt.NoKill, Outcomes: make([]job.Outcome, len(jobs))}}
	hugepage.Advise(r.res.Outcomes) // several MB filled once: fewer page faults
	if opt.Res != nil {
		r.res.Res = append([]int(nil), opt.Res...)
	}
	if eng.Extends() {
		r.limit = make([]int64, len(jobs))
	}
	r.startFn = r.start
	return r.loop()
}

// run is one simulation: the trace's events fed to an engine.Engine.
type run struct {
	jobs    []job.Job
	opt     Options
	eng     *engine.Engine
	res     *Result
	ends    minheap.Heap[int64, bool]
	limit   []int64 // kill time per job, with Extend
	next    int     // next job to submit
	done    int
	now     int64
	startFn func(*job.Request)
	checks  []endItem // scratch: the kill checks of the instant
	err     error     // a Placer's failure during a pass
	// with a constrained Fitter: the jobs started by the policy and
	// waiting for their nodes, in start order, and the previous instant
	fit    Fitter
	launch []launchItem
	prev   int64
}

// launchItem is a job waiting for its nodes since t.
type launchItem struct {
	id int
	t  int64
}

// loop processes the instants in order until no event is left.
func (r *run) loop() (*Result, error) {
	wake := policy.NoWake
	for {
		// next instant
		t := wake
		if r.next < len(r.jobs) && r.jobs[r.next].Submit < t {
			t = r.jobs[r.next].Submit
		}
		if r.ends.Len() > 0 && r.ends.Min().Key < t {
			t = r.ends.Min().Key
		}
		if t == policy.NoWake {
			if len(r.launch) > 0 {
				return nil, fmt.Errorf("sim: job %d waits for nodes that no end will free", r.jobs[r.launch[0].id].SWFID)
			}
			break
		}
		if len(r.launch) > 0 {
			r.res.NodeIdle += int64(r.opt.Placer.Free()) * (t - r.prev)
		}
		r.now, r.prev = t, t
		// 1. ends, then the kill checks of the instant (Extend), so
		// that the policy prices an extension knowing every end of the
		// instant (inline: the hot path)
		r.checks = r.checks[:0]
		for r.ends.Len() > 0 && r.ends.Min().Key == t {
			it := r.ends.Pop()
			if it.Val {
				r.checks = append(r.checks, it)
				continue
			}
			if err := r.end(it.ID); err != nil {
				return nil, err
			}
		}
		if len(r.checks) > 0 {
			if err := r.killChecks(); err != nil {
				return nil, err
			}
		}
		if len(r.launch) > 0 { // only with a constrained Fitter
			if err := r.launchWaiting(); err != nil {
				return nil, err
			}
		}
		// 2. submissions
		for r.next < len(r.jobs) && r.jobs[r.next].Submit == t {
			if err := r.submit(); err != nil {
				return nil, err
			}
		}
		// 3. one pass
		var err error
		wake, err = r.eng.Pass(r.now, r.startFn)
		r.res.Passes++
		if err != nil {
			return nil, fmt.Errorf("sim: %w", err)
		}
		if r.err != nil {
			return nil, fmt.Errorf("sim: at %d: %w", r.now, r.err)
		}
	}
	if r.opt.Progress != nil {
		r.opt.Progress(r.done)
	}
	if r.done != len(r.jobs) {
		return nil, fmt.Errorf("sim: only %d of %d jobs completed", r.done, len(r.jobs))
	}
	return r.res, nil
}

// killChecks processes the kill checks at now (Extend), after every end
// of the instant.
func (r *run) killChecks() error {
	now := r.now
	for _, it := range r.checks {
		id := it.ID
		o := &r.res.Outcomes[id]
		x, err := r.eng.Extend(now, &r.jobs[id].Request)
		if err != nil {
			return fmt.Errorf("sim: %w", err)
		}
		if x > 0 {
			r.res.Extensions++
			o.Extension += x
			r.limit[id] = now + x
			if end := o.Start + r.jobs[id].Runtime; end <= r.limit[id] {
				o.End = end
				r.res.Saved++
				r.ends.Push(endItem{Key: end, ID: id})
			} else {
				r.ends.Push(endItem{Key: r.limit[id], ID: id, Val: true})
			}
			continue
		}
		o.End, o.Killed = now, true
		if err := r.end(id); err != nil {
			return err
		}
	}
	return nil
}

// end records that job id ended (completed or killed) at now and tells
// the engine.
func (r *run) end(id int) error {
	o := &r.res.Outcomes[id]
	r.done++
	if o.Killed {
		r.res.Killed++
	}
	p, err := r.eng.End(r.now, &r.jobs[id].Request)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if r.opt.Placer != nil {
		if err := r.opt.Placer.Release(id); err != nil {
			return fmt.Errorf("sim: at %d: %w", r.now, err)
		}
	}
	if p.OK {
		o.Predicted, o.Corrections = p.First, p.Corrections
	}
	if r.opt.Progress != nil && r.done&8191 == 0 {
		r.opt.Progress(r.done)
	}
	return nil
}

// submit processes the submission of the next job, at now.
func (r *run) submit() error {
	j := &r.jobs[r.next]
	o := &r.res.Outcomes[r.next]
	// Outcomes are zero (made by Run): set the fields in place rather
	// than copy a whole Outcome built aside
	o.Job = *j
	o.Start, o.End, o.Bound = -1, -1, -1
	a, err := r.eng.Submit(r.now, &j.Request)
	if err != nil {
		return fmt.Errorf("sim: %w", err)
	}
	if !a.Admitted {
		o.Rejected, o.Reason = true, a.Reason
		r.done++
		r.res.Rejected++
	}
	o.Bound = a.Bound
	r.next++
	return nil
}

// start records a start the engine accepted and schedules the job's end
// (or, with Extend, the check at its estimate).
func (r *run) start(q *job.Request) {
	id := q.ID
	if r.fit != nil && (len(r.launch) > 0 || !r.fit.Fits(id, r.jobs[id].Procs)) {
		// its nodes are not free: it waits, after those waiting already
		r.launch = append(r.launch, launchItem{id, r.now})
		return
	}
	r.begin(id)
}

// launchWaiting launches the jobs waiting for their nodes, in order, while
// the first of them fits.
func (r *run) launchWaiting() error {
	k := 0
	for k < len(r.launch) && r.fit.Fits(r.launch[k].id, r.jobs[r.launch[k].id].Procs) {
		it := r.launch[k]
		o := &r.res.Outcomes[it.id]
		o.NodeWait = r.now - it.t
		r.res.NodeWaited++
		r.res.NodeWait += o.NodeWait
		r.begin(it.id)
		k++
	}
	r.launch = r.launch[:copy(r.launch, r.launch[k:])]
	if r.err != nil {
		return fmt.Errorf("sim: at %d: %w", r.now, r.err)
	}
	return nil
}

// begin runs job id from now: its cores, and its end (or, with Extend,
// the check at its estimate).
func (r *run) begin(id int) {
	j := &r.jobs[id]
	o := &r.res.Outcomes[id]
	o.Start = r.now
	if r.opt.Placer != nil {
		if err := r.opt.Placer.Place(id, j.Procs); err != nil && r.err == nil {
			r.err = err
		}
	}
	run := j.Runtime
	if r.limit != nil && run > j.Estimate {
		// a check at the estimate: the policy may extend the job
		r.limit[id] = r.now + j.Estimate
		r.ends.Push(endItem{Key: r.limit[id], ID: id, Val: true})
		return
	}
	if !r.opt.NoKill && run > j.Estimate {
		run = j.Estimate
		o.Killed = true
	}
	o.End = r.now + run
	r.ends.Push(endItem{Key: o.End, ID: id})
}

// endItem is a pending end at Key of job ID, or with Val a kill check
// (Options.Extend) rather than an end; the heap of them is on (time, job
// ID).
type endItem = minheap.Item[int64, bool]
