// Package engine drives a scheduling policy and checks every decision it makes.
//
// It is the one core shared by the simulator (package sim, which feeds it
// trace events) and the live service (package service, which feeds it
// requests on a wall clock): both call the policy only through an Engine,
// so a policy that misbehaves fails the same way in both.
//
// The protocol (policy.Scheduler) is, for each instant now: End or Cancel
// for every job that left the system, Submit for every job submitted, then
// one Pass (the policy's Tick). Several passes may happen at the same
// instant (a job that starts and ends at the same instant leads to a
// second pass); time never goes backwards. The driver decides when
// instants happen and which events they hold; the Engine keeps the job
// states and the free capacity, asks the policy's optional capabilities
// (policy.Admitter right after Insert, policy.Guarantor for the bound of
// an admitted job, policy.Predicting before Remove, policy.Extender on
// request) and checks:
//
//   - a started job is one the Engine knows (the very *job.Request
//     submitted), is waiting, and fits the free processors and the free
//     units of every other resource;
//   - the wake-up a pass returns is after now, and a pass does not leave
//     jobs waiting on an idle machine without asking for a wake-up (any
//     job fits an idle machine);
//   - jobs submitted fit the machine (1 ≤ size ≤ P, estimate ≥ 1,
//     resources within capacity), IDs are 0, 1, 2, … in submission order,
//     and time does not go backwards.
//
// A policy's mistake is sticky: after a pass fails, every later call
// returns the same *PolicyError, since the policy's state no longer
// matches the machine's.
package engine

import (
	"errors"
	"fmt"
	"github.com/backfill-hpc/backfill/internal/idwin"
	"math"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Config describes the machine an Engine drives a policy on.
type Config struct {
	// Procs is the number of processors P.
	Procs int
	// Res are the capacities of the resources beyond the processors
	// (resource i+1 has capacity Res[i]); nil for processors only.
	Res []int
	// Guarantees asks a policy.Guarantor for the bound of each admitted
	// job (the simulator does so only when jobs are killed at their
	// estimates, since the bounds hold only then).
	Guarantees bool
	// Extend lets Extend ask a policy.Extender for extensions.
	Extend bool
	// Jobs, if known, is the number of jobs to come (a capacity hint).
	Jobs int
	// Trace, when set, holds every job to come, job i at index i (the
	// simulator's input): job i's request must then be &Trace[i].Request,
	// and the Engine keeps no pointer per job (the simulator's hot path).
	// Without it, the Engine remembers each submitted request until the
	// job is done.
	Trace []job.Job
}

// Admission is the outcome of a submission.
type Admission struct {
	// Admitted is false when a policy.Admitter refused the job; the job
	// is then done: never started, never passed to Remove.
	Admitted bool
	// Reason is the Admitter's reason for a refusal (may be empty).
	Reason string
	// Bound is the start bound the policy.Guarantor promised (Config.
	// Guarantees), -1 for none.
	Bound int64
}

// Prediction is what a policy.Predicting planned a job with.
type Prediction struct {
	First       int64 // the first predicted duration
	Corrections int   // how many times it was corrected
	OK          bool  // false: planned with the estimate, or no Predicting policy
}

// PolicyError is a policy's violation of the protocol (a start that is not
// allowed, a wake-up in the past). It is sticky: the Engine returns it from
// every later call.
type PolicyError struct {
	Policy string
	Msg    string
}

func (e *PolicyError) Error() string { return "policy " + e.Policy + " " + e.Msg }

// Job states.
const (
	stWaiting uint8 = iota + 1
	stRunning
	stDone
)

// Engine drives one policy on one machine. It is not safe for concurrent
// use.
type Engine struct {
	sched policy.Scheduler
	name  string
	guar  policy.Guarantor
	adm   policy.Admitter
	pred  policy.Predicting
	ext   policy.Extender
	plan  policy.Planner

	procs, free  int
	res, freeRes []int

	trace []job.Job // Config.Trace
	// jobs are the jobs' states by job ID (and without a trace their
	// requests, nil once done), from the oldest job not done on: a job
	// below the window is done (a long-running service keeps no memory per
	// job ever submitted)
	jobs idwin.Window[slot]

	waiting, running int
	now              int64
	passes           int64
	err              error

	onStart func(*job.Request) // the driver's callback during a pass
	startFn func(*job.Request) // e.start, bound once
}

// New returns an Engine driving sched on the machine of cfg.
func New(sched policy.Scheduler, cfg Config) (*Engine, error) {
	if cfg.Procs < 1 {
		return nil, fmt.Errorf("engine: machine size must be at least 1, got %d", cfg.Procs)
	}
	for k, c := range cfg.Res {
		if c < 1 {
			return nil, fmt.Errorf("engine: resource %d has capacity %d (must be at least 1)", k+1, c)
		}
	}
	e := &Engine{sched: sched, name: sched.Name(), procs: cfg.Procs, free: cfg.Procs, now: math.MinInt64}
	if cfg.Res != nil {
		e.res = append([]int(nil), cfg.Res...)
		e.freeRes = append([]int(nil), cfg.Res...)
	}
	if cfg.Trace != nil {
		for i := range cfg.Trace {
			r := &cfg.Trace[i].Request
			if r.Procs >= 1 && r.Procs <= e.procs && r.Estimate >= 1 && len(r.Res) == 0 {
				continue // the common case, without a call (the simulator's hot path)
			}
			if err := e.fits(r); err != nil {
				return nil, err
			}
		}
		e.trace = cfg.Trace
		e.jobs.Reserve(len(cfg.Trace)) // no copies as the window grows
	}
	if cfg.Guarantees {
		e.guar, _ = sched.(policy.Guarantor)
	}
	if cfg.Extend {
		e.ext, _ = sched.(policy.Extender)
	}
	e.adm, _ = sched.(policy.Admitter)
	e.pred, _ = sched.(policy.Predicting)
	e.plan, _ = sched.(policy.Planner)
	e.startFn = e.start
	return e, nil
}

// Name is the policy's name.
func (e *Engine) Name() string { return e.name }

// Procs is the machine's number of processors.
func (e *Engine) Procs() int { return e.procs }

// Now is the instant of the last call.
func (e *Engine) Now() int64 { return e.now }

// Admits reports whether the policy does admission control.
func (e *Engine) Admits() bool { return e.adm != nil }

// Extends reports whether Extend may grant extensions (Config.Extend and a
// policy.Extender).
func (e *Engine) Extends() bool { return e.ext != nil }

// Planner is the policy's policy.Planner, or nil.
func (e *Engine) Planner() policy.Planner { return e.plan }

// Waiting is the number of admitted jobs waiting to start.
func (e *Engine) Waiting() int { return e.waiting }

// Running is the number of running jobs.
func (e *Engine) Running() int { return e.running }

// Busy is the number of processors held by running jobs.
func (e *Engine) Busy() int { return e.procs - e.free }

// Passes is the number of passes (Tick calls) so far.
func (e *Engine) Passes() int64 { return e.passes }

// Err is the policy's sticky error, or nil.
func (e *Engine) Err() error { return e.err }

func (e *Engine) at(now int64) error {
	if e.err != nil || now < e.now {
		return e.badTime(now) // out of line: at is inlined on the hot path
	}
	e.now = now
	return nil
}

func (e *Engine) badTime(now int64) error {
	if e.err != nil {
		return e.err
	}
	return fmt.Errorf("engine: time %d is before the current instant %d", now, e.now)
}

// known reports whether r is the request of a job submitted to e (a done
// job's request is not kept without a trace: any request with its ID is
// taken for it).
func (e *Engine) known(r *job.Request) bool {
	if r == nil || r.ID < 0 || r.ID >= e.jobs.Len() {
		return false
	}
	if e.trace != nil {
		return &e.trace[r.ID].Request == r
	}
	if !e.jobs.In(r.ID) {
		return true // done, dropped from the window
	}
	q := e.jobs.At(r.ID)
	return q.r == r || (q.r == nil && q.s == stDone)
}

// slot is a job's state and, without a trace, its request.
type slot struct {
	r *job.Request
	s uint8
}

// state is job id's state (done below the window).
func (e *Engine) state(id int) uint8 {
	if !e.jobs.In(id) {
		return stDone
	}
	return e.jobs.At(id).s
}

// slotOf is the slot of job id, nil below the window (done).
func (e *Engine) slotOf(id int) *slot {
	if !e.jobs.In(id) {
		return nil
	}
	return e.jobs.At(id)
}

// forget drops done job id's request and the done jobs at the head of
// the window. With a trace it does nothing: the simulator keeps the whole
// trace anyway, and the window's states stay valid (the simulator's hot
// path saves the trimming).
func (e *Engine) forget(id int) {
	if e.trace != nil {
		return
	}
	e.jobs.At(id).r = nil
	e.jobs.Trim(func(x slot) bool { return x.s == stDone })
}

var errUnknown = errors.New("engine: unknown job")

// fits checks that r fits the machine.
func (e *Engine) fits(r *job.Request) error {
	switch {
	case r.Procs < 1 || r.Procs > e.procs:
		return fmt.Errorf("engine: job %d needs %d processors; the machine has %d", r.SWFID, r.Procs, e.procs)
	case r.Estimate < 1:
		return fmt.Errorf("engine: job %d has estimate %d (must be at least 1 s)", r.SWFID, r.Estimate)
	case len(r.Res) > len(e.res):
		return fmt.Errorf("engine: job %d needs %d resources beyond processors; the machine has %d", r.SWFID, len(r.Res), len(e.res))
	}
	for k, n := range r.Res {
		if n < 0 || n > e.res[k] {
			return fmt.Errorf("engine: job %d needs %d units of resource %d; the machine has %d", r.SWFID, n, k+1, e.res[k])
		}
	}
	return nil
}

// Submit tells the policy that r was submitted at now (Insert), then asks
// a policy.Admitter whether it admitted r and a policy.Guarantor for its
// bound. r.ID must be the number of jobs submitted before it, and r must
// not change while the Engine knows it.
func (e *Engine) Submit(now int64, r *job.Request) (Admission, error) {
	if err := e.at(now); err != nil {
		return Admission{}, err
	}
	switch {
	case r.ID != e.jobs.Len():
		return Admission{}, fmt.Errorf("engine: job %d submitted with ID %d, expected %d", r.SWFID, r.ID, e.jobs.Len())
	case e.trace != nil:
		// the trace's jobs were checked by New
		if r.ID >= len(e.trace) || &e.trace[r.ID].Request != r {
			return Admission{}, fmt.Errorf("engine: job %d is not the trace's job %d", r.SWFID, r.ID)
		}
	default:
		if err := e.fits(r); err != nil {
			return Admission{}, err
		}
	}
	if e.trace == nil {
		e.jobs.Append(slot{r, stWaiting})
	} else {
		e.jobs.Append(slot{nil, stWaiting})
	}
	return e.admit(now, r), nil
}

// admit inserts waiting job r into the policy and asks for its admission
// and bound.
func (e *Engine) admit(now int64, r *job.Request) Admission {
	e.waiting++
	e.sched.Insert(now, r)
	if e.adm == nil && e.guar == nil {
		return Admission{Admitted: true, Bound: -1}
	}
	return e.decide(r)
}

// decide asks a policy.Admitter whether it admitted waiting job r and a
// policy.Guarantor for its bound.
func (e *Engine) decide(r *job.Request) Admission {
	a := Admission{Admitted: true, Bound: -1}
	if e.adm != nil {
		if ok, reason := e.adm.Admitted(r); !ok {
			e.jobs.At(r.ID).s = stDone
			if e.trace == nil {
				e.forget(r.ID)
			}
			e.waiting--
			return Admission{Reason: reason, Bound: -1}
		}
	}
	if e.guar != nil {
		a.Bound = e.guar.Guarantee(r)
	}
	return a
}

// Adopt sets a fresh Engine (nothing submitted) to take over the jobs of
// another one at now (a live service changing its policy or machine size):
// jobs is the number of job IDs given so far; running are the running
// jobs, each with its hold [start, start + estimate); every other ID is
// done until Resubmit submits it again. The policy must be a
// policy.Adopter when jobs run, and the running jobs must fit the machine.
func (e *Engine) Adopt(now int64, jobs int, running []*job.Request, starts []int64) error {
	if e.jobs.Len() > 0 || e.now != math.MinInt64 {
		return errors.New("engine: adopt into an engine that is not fresh")
	}
	if e.trace != nil || jobs < 0 || len(running) != len(starts) {
		return errors.New("engine: bad adoption")
	}
	// the window starts at the oldest running job (Resubmit covers the
	// waiting ones below it)
	base := jobs
	for _, r := range running {
		if r != nil && r.ID >= 0 {
			base = min(base, r.ID)
		}
	}
	reqs := make([]*job.Request, jobs-base)
	state := make([]uint8, jobs-base)
	for i := range state {
		state[i] = stDone
	}
	free, freeRes := e.procs, append([]int(nil), e.res...)
	holds := make([]policy.RunningHold, len(running))
	for i, r := range running {
		if r == nil || r.ID < base || r.ID >= jobs || state[r.ID-base] != stDone {
			return fmt.Errorf("engine: adopt: running job out of range or listed twice")
		}
		if err := e.fits(r); err != nil {
			return err
		}
		reqs[r.ID-base], state[r.ID-base] = r, stRunning
		free -= r.Procs
		for k, n := range r.Res {
			freeRes[k] -= n
		}
		holds[i] = policy.RunningHold{ID: r.ID, Start: starts[i], End: starts[i] + r.Estimate}
	}
	if free < 0 {
		return fmt.Errorf("engine: adopt: the running jobs hold %d processors; the machine has %d", e.procs-free, e.procs)
	}
	for k, f := range freeRes {
		if f < 0 {
			return fmt.Errorf("engine: adopt: the running jobs hold %d units of resource %d; the machine has %d", e.res[k]-f, k+1, e.res[k])
		}
	}
	if len(running) > 0 {
		ad, ok := e.sched.(policy.Adopter)
		if !ok {
			return fmt.Errorf("policy %s cannot take over running jobs (no policy.Adopter)", e.name)
		}
		if err := ad.Adopt(now, holds, func(id int) *job.Request {
			if id < base || id >= jobs || state[id-base] != stRunning {
				return nil
			}
			return reqs[id-base]
		}); err != nil {
			return err
		}
	}
	e.jobs.Reset(base)
	for i, st := range state {
		e.jobs.Append(slot{reqs[i], st})
	}
	e.free, e.freeRes = free, freeRes
	e.running = len(running)
	e.now = now
	return nil
}

// Resubmit submits again, at now, waiting job r of an adopted engine
// (Adopt): the policy's Insert, admission and bound, as Submit.
func (e *Engine) Resubmit(now int64, r *job.Request) (Admission, error) {
	if err := e.at(now); err != nil {
		return Admission{}, err
	}
	if r == nil || r.ID < 0 || r.ID >= e.jobs.Len() || e.state(r.ID) != stDone || e.jobs.In(r.ID) && e.jobs.At(r.ID).r != nil {
		return Admission{}, errors.New("engine: resubmit of a job that is not an adopted waiting job")
	}
	if err := e.fits(r); err != nil {
		return Admission{}, err
	}
	e.jobs.Cover(r.ID, slot{nil, stDone})
	*e.jobs.At(r.ID) = slot{r, stWaiting}
	return e.admit(now, r), nil
}

// Skip makes n the ID of the next job: the IDs from the number of jobs
// submitted so far up to n-1 are never submitted (done at once). A live
// service uses it after an accepted loss, so that the IDs of lost jobs are
// not given again; the policy then sees an ID jump, which the policies
// handle (they index jobs by ID in maps or in slices grown to the ID).
func (e *Engine) Skip(n int) error {
	if e.trace != nil {
		return errors.New("engine: Skip with a trace")
	}
	if n < e.jobs.Len() {
		return fmt.Errorf("engine: skip to job ID %d, but %d jobs were submitted", n, e.jobs.Len())
	}
	if n > 0 {
		e.jobs.Cover(n-1, slot{nil, stDone})
		e.jobs.Trim(func(x slot) bool { return x.s == stDone })
	}
	return nil
}

// End tells the policy that running job r ended at now (Remove), after
// asking a policy.Predicting what it predicted for r.
func (e *Engine) End(now int64, r *job.Request) (Prediction, error) {
	if err := e.at(now); err != nil {
		return Prediction{}, err
	}
	if !e.known(r) {
		return Prediction{}, errUnknown
	}
	sl := e.slotOf(r.ID)
	if sl == nil || sl.s != stRunning {
		return Prediction{}, fmt.Errorf("engine: job %d ended at %d but is not running", r.SWFID, now)
	}
	sl.s = stDone
	if e.trace == nil {
		e.forget(r.ID) // a finished job is not kept (a long-running service)
	}
	e.running--
	e.free += r.Procs
	for k, n := range r.Res {
		e.freeRes[k] += n
	}
	var p Prediction
	if e.pred != nil {
		p.First, p.Corrections, p.OK = e.pred.Prediction(r)
	}
	e.sched.Remove(now, r)
	return p, nil
}

// Cancel tells the policy that waiting job r was withdrawn at now (Remove).
// A running job that is cancelled ends: use End.
func (e *Engine) Cancel(now int64, r *job.Request) error {
	if err := e.at(now); err != nil {
		return err
	}
	if !e.known(r) {
		return errUnknown
	}
	if e.state(r.ID) != stWaiting {
		return fmt.Errorf("engine: job %d cancelled at %d but is not waiting", r.SWFID, now)
	}
	e.jobs.At(r.ID).s = stDone
	if e.trace == nil {
		e.forget(r.ID)
	}
	e.waiting--
	e.sched.Remove(now, r)
	return nil
}

// SettleAhead lets a policy.SettlerAhead react now to the releases of
// instant now (the end of a live request that released capacity), as its
// next call would; the decisions do not change. Other policies: nothing.
// It reports whether the policy reacted.
func (e *Engine) SettleAhead(now int64) (bool, error) {
	if err := e.at(now); err != nil {
		return false, err
	}
	if s, ok := e.sched.(policy.SettlerAhead); ok {
		return s.SettleAhead(now), nil
	}
	return false, nil
}

// Extend asks a policy.Extender (Config.Extend) whether running job r,
// which reached its limit at now, gets more time; it returns the extension
// in seconds, 0 to kill the job (always 0 without an Extender).
func (e *Engine) Extend(now int64, r *job.Request) (int64, error) {
	if err := e.at(now); err != nil {
		return 0, err
	}
	if !e.known(r) {
		return 0, errUnknown
	}
	if e.state(r.ID) != stRunning {
		return 0, fmt.Errorf("engine: extension asked at %d for job %d, which is not running", now, r.SWFID)
	}
	if e.ext == nil {
		return 0, nil
	}
	return max(e.ext.Extend(now, r), 0), nil
}

// Pass runs one scheduling pass at now (the policy's Tick). Every job the
// policy starts is checked (known, waiting, fits the free capacity) and
// then reported to started, in order. It returns the next wake-up the
// policy asked for (policy.NoWake for none), which must be after now, and
// must not be NoWake when jobs wait on an idle machine. On
// error the pass is over and the Engine is failed (the error is sticky).
func (e *Engine) Pass(now int64, started func(*job.Request)) (int64, error) {
	if err := e.at(now); err != nil {
		return 0, err
	}
	e.onStart = started
	wake := e.sched.Tick(now, e.startFn)
	e.onStart = nil
	e.passes++
	if e.err != nil {
		return 0, e.err
	}
	if wake <= now {
		e.err = &PolicyError{e.name, fmt.Sprintf("asked to be woken at %d, not after now (%d)", wake, now)}
		return 0, e.err
	}
	if e.waiting > 0 && e.running == 0 && wake == policy.NoWake {
		// any job fits an idle machine: without a wake-up, the jobs
		// would wait for an unrelated event, perhaps forever
		e.err = &PolicyError{e.name, fmt.Sprintf("leaves %d jobs waiting on an idle machine at %d with no wake-up", e.waiting, now)}
		return 0, e.err
	}
	return wake, nil
}

func (e *Engine) fail(format string, args ...any) {
	e.err = &PolicyError{e.name, fmt.Sprintf(format, args...)}
}

// start is the start callback given to Tick.
func (e *Engine) start(r *job.Request) {
	if e.err != nil {
		return
	}
	if !e.known(r) {
		e.fail("started an unknown job at %d", e.now)
		return
	}
	sl := e.slotOf(r.ID)
	switch {
	case sl == nil || sl.s != stWaiting:
		e.fail("started job %d at %d, which is not waiting", r.SWFID, e.now)
		return
	case r.Procs > e.free:
		e.fail("started job %d (%d processors) at %d with only %d free", r.SWFID, r.Procs, e.now, e.free)
		return
	}
	if len(r.Res) > 0 {
		for k, n := range r.Res {
			if n > e.freeRes[k] {
				e.fail("started job %d (%d units of resource %d) at %d with only %d free", r.SWFID, n, k+1, e.now, e.freeRes[k])
				return
			}
		}
		for k, n := range r.Res {
			e.freeRes[k] -= n
		}
	}
	e.free -= r.Procs
	sl.s = stRunning
	e.waiting--
	e.running++
	if e.onStart != nil {
		e.onStart(r)
	}
}
