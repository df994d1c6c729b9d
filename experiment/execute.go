package experiment

import (
	"context"
	"fmt"
	"os"
	"runtime/debug"
	"sync"
	"time"

	"github.com/backfill-hpc/backfill/internal/pool"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/simulate"
)

// Options control Execute.
type Options struct {
	// Out is the results directory.
	Out string
	// Workers is the number of runs simulated at once (at least 1).
	Workers int
	// Shard selects the runs of this process (the zero Shard: all).
	Shard Shard
	// Force reruns finished runs too.
	Force bool
	// Audit checks every schedule with package audit (Spec.Sim.Audit).
	Audit bool
	// Version is the tool's version, recorded with every run.
	Version string
	// OnEvent, if set, is called (from one goroutine at a time) when a run
	// starts and when it ends.
	OnEvent func(Event)
}

// EventKind says what happened.
type EventKind int

// Event kinds.
const (
	RunStarted EventKind = iota
	RunDone
)

// Event reports progress.
type Event struct {
	Kind EventKind
	Run  *Run
	// Err is set when the run failed.
	Err error
	// Elapsed is the run's wall time (RunDone).
	Elapsed time.Duration
	// Done, Failed and Total count the runs of this execution so far.
	Done, Failed, Total int
}

// Report is the outcome of Execute.
type Report struct {
	// Planned is the number of runs of the shard; Finished of those were
	// already done (status ok) and skipped; Ran were executed now, of which
	// Failed failed.
	Planned, Finished, Ran, Failed int
	// Failures lists the failed runs with their errors, in plan order.
	Failures []Failure
	// Interrupted is true when the context was cancelled before every run
	// was started.
	Interrupted bool
}

// Failure is a failed run.
type Failure struct {
	Run *Run
	Err string
}

// Execute runs the runs of plan that belong to opt.Shard and are not
// finished yet (status ok in opt.Out, unless opt.Force), at most
// opt.Workers at a time, and records each in the results store as soon as
// it ends. A failing run is recorded with its error and does not stop the
// others. When ctx is cancelled no new run starts; the runs in progress
// finish and are recorded, and Execute returns with Report.Interrupted
// set. Results do not depend on the number of workers or the sharding.
func Execute(ctx context.Context, spec *Spec, plan *Plan, opt Options) (*Report, error) {
	store := Store{Dir: opt.Out}
	if err := store.Init(spec.Source, plan); err != nil {
		return nil, err
	}
	runs := plan.Shard(opt.Shard)
	rep := &Report{Planned: len(runs)}
	var todo []*Run
	for i := range runs {
		r := &runs[i]
		if !opt.Force && store.Status(r.ID) == StatusOK {
			rep.Finished++
			continue
		}
		todo = append(todo, r)
	}
	if len(todo) == 0 {
		return rep, nil
	}
	pending := make([]Run, len(todo))
	for i, r := range todo {
		pending[i] = *r
	}
	cache := newTraceCache(pending)
	var mu sync.Mutex // serializes events and the report
	failed := map[int]string{}
	event := func(e Event) {
		e.Total = len(todo)
		e.Done, e.Failed = rep.Ran, rep.Failed
		if opt.OnEvent != nil {
			opt.OnEvent(e)
		}
	}
	var saveErr error
	all := pool.RunContext(ctx, opt.Workers, len(todo), func(i int) {
		r := todo[i]
		mu.Lock()
		event(Event{Kind: RunStarted, Run: r})
		mu.Unlock()
		t0 := time.Now()
		out := runOne(spec, r, cache, opt)
		out.timing = Timing{Started: t0.UTC().Format(time.RFC3339), Seconds: time.Since(t0).Seconds(),
			Host: hostname(), Shard: opt.Shard.String(), PID: os.Getpid()}
		err := store.save(out)
		mu.Lock()
		defer mu.Unlock()
		rep.Ran++
		var runErr error
		if err != nil {
			saveErr = fmt.Errorf("saving run %s: %w", r.ID, err)
			runErr = saveErr
		} else if out.result.Status != StatusOK {
			runErr = fmt.Errorf("%s", out.result.Error)
		}
		if runErr != nil {
			rep.Failed++
			failed[r.Index] = runErr.Error()
		}
		event(Event{Kind: RunDone, Run: r, Err: runErr, Elapsed: time.Since(t0)})
	})
	rep.Interrupted = !all
	for _, r := range todo {
		if e, ok := failed[r.Index]; ok {
			rep.Failures = append(rep.Failures, Failure{Run: r, Err: e})
		}
	}
	if saveErr != nil {
		return rep, saveErr
	}
	return rep, nil
}

func hostname() string {
	h, _ := os.Hostname()
	return h
}

// runOne simulates one run and returns what to store. It never panics: a
// panic in a policy is recorded as the run's error.
func runOne(spec *Spec, r *Run, cache *traceCache, opt Options) (out *output) {
	c := &r.Config
	out = &output{
		config: RunConfig{ID: r.ID, Hash: r.Hash, Experiment: spec.Name, Label: r.Label, Version: opt.Version, Config: *c},
		result: Result{ID: r.ID, Status: StatusFailed},
		tau:    c.Tau,
	}
	defer func() {
		if p := recover(); p != nil {
			out.outcomes = nil
			// the stack goes to timing.json: it is not deterministic
			out.result = Result{ID: r.ID, Status: StatusFailed, Policy: out.result.Policy, Workload: out.result.Workload,
				Error: fmt.Sprintf("panic (a bug; the stack is in %s): %v", TimingFile, p)}
			out.panicStack = string(debug.Stack())
		}
	}()
	fail := func(err error) *output {
		out.result.Error = err.Error()
		return out
	}
	base, release, err := cache.get(r)
	if err != nil {
		release()
		return fail(err)
	}
	w, err := buildWorkload(r, base)
	release()
	if err != nil {
		return fail(fmt.Errorf("workload: %w", err))
	}
	out.result.Workload = &WorkloadInfo{Name: w.Name, Procs: w.Procs, MemCap: w.MemCap, ProcsSource: w.ProcsSource, Records: w.Records,
		Jobs: len(w.Jobs), Skipped: skippedMap(w.Skipped), OfferedLoad: w.OfferedLoad, Rules: w.Rules}
	specStr := c.Policy
	specs, note, err := simulate.ResolveAuto(w.Jobs, w.Procs, []string{specStr}, !c.Kill)
	if err != nil {
		return fail(err)
	}
	if note != "" {
		specStr = specs[0]
		w.Rules = append(w.Rules, note)
		out.result.Workload.Rules = w.Rules
	}
	sched, err := policy.NewK(specStr, w.Caps)
	if err != nil {
		return fail(err)
	}
	out.result.Policy = sched.Name()
	run, err := simulate.RunScheduler(w.Jobs, sched, simulate.Options{Procs: w.Procs, Res: w.ResCaps, NoKill: !c.Kill, Extend: c.Extend,
		NoAudit: !opt.Audit, Metrics: metrics.Options{Tau: c.Tau, WarmUp: c.WarmUp, Drain: c.Drain}})
	if err != nil {
		return fail(err)
	}
	res, sum := run.Sim, run.Summary
	out.result.Status = StatusOK
	out.result.Summary = &sum
	out.result.Sim = &SimInfo{Killed: res.Killed, Passes: res.Passes, Extensions: res.Extensions, Saved: res.Saved}
	out.outcomes = res.Outcomes
	return out
}
