// Package policy defines the scheduling-policy interface and the registry of policies.
//
// It defines the small interface every scheduling policy
// implements, mirroring the event-driven scheduler of the papers (Talby &
// Feitelson §2.1: Insert(j), Remove(j), Tick()), and a registry through
// which the CLI, experiments and the live service find policies by name.
//
// A policy sees only what a real scheduler sees: the *job.Request (submit
// time, size, estimate, user, group, queue). It never sees a job's actual
// runtime; it learns that a job ended when Remove is called.
package policy

import (
	"fmt"
	"math"
	"sort"
	"strings"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/spec"
)

// NoWake is returned by Tick when the policy needs no wake-up call.
const NoWake int64 = math.MaxInt64

// Scheduler is a scheduling policy driven by events. The caller (the
// simulation engine, or the live service) guarantees, for each instant now:
// first Remove for every job that ended at now, then Insert for every job
// submitted at now, then exactly one Tick(now). Time never goes backwards.
type Scheduler interface {
	// Name is the policy's name with its parameters, e.g. "easy" or
	// "easy:depth=4".
	Name() string
	// Insert tells the policy that j was submitted at now.
	Insert(now int64, j *job.Request)
	// Remove tells the policy that j left the system at now: a running
	// job ended (completed, or killed at its estimate), or a waiting job
	// was cancelled.
	Remove(now int64, j *job.Request)
	// Tick asks the policy which waiting jobs start now; it calls start
	// for each, in the order they start, and returns the next time it
	// wants to be called even if no event happens (NoWake for none).
	Tick(now int64, start func(j *job.Request)) (wake int64)
}

// Guarantor is implemented by policies that promise each job, at
// submission, an upper bound on its start time (requirement IX of Talby &
// Feitelson). The bound holds when jobs are killed at their estimates.
type Guarantor interface {
	// Guarantee is the bound promised to j when it was inserted, or -1.
	Guarantee(j *job.Request) int64
}

// Predicting is implemented by policies that may plan with runtime
// predictions instead of the users' estimates (package predict). The
// engine asks it, when a job ends, what was predicted for the job, and
// records the answer in the job's Outcome (Predicted, Corrections).
type Predicting interface {
	// Prediction reports the duration first predicted for j and how many
	// times the prediction was corrected because j was still running at
	// its predicted end; ok is false when the policy planned j with its
	// estimate (no prediction).
	Prediction(j *job.Request) (first int64, corrections int, ok bool)
}

// Extender is implemented by policies that decide whether a job that
// reaches the end of its estimate without ending gets more time (Talby &
// Feitelson §4.7, the "tick strategy"). The engine asks only in its
// Extend mode; a real scheduler sees the same thing: a job still running
// at its limit.
type Extender interface {
	// Extend is called at now, the job's current limit, while j still
	// runs; it returns the extension in seconds, or 0 to kill j now.
	Extend(now int64, j *job.Request) int64
}

// Admitter is implemented by policies with admission control (deadline
// scheduling: QoPS, MSB, MRT). The caller calls Insert as for any policy and
// then, at once, Admitted: a rejected job is forgotten by the policy (it is
// never started and never passed to Remove), and the caller reports the
// rejection to the user. An admission decision never changes afterwards.
//
// Refinements (package policy/deadline, docs/policies.md): Admitted must
// be asked before the next Insert (the simulator asks at once, for each
// job of an instant in turn); asked later, it reports whether j is
// admitted and still waiting. The deadline policies also implement
// Guarantor: the bound of an admitted job is its latest start, deadline −
// estimate (a job without a deadline has an artificial one), -1 for a
// rejected job. A deadline earlier than submission + estimate is rejected.
type Admitter interface {
	// Admitted reports whether j, just inserted, was admitted, and if not,
	// a short human-readable reason.
	Admitted(j *job.Request) (ok bool, reason string)
}

// Planner is implemented by policies that hold a planned start (a
// reservation) for waiting jobs: conservative and slack-based backfilling
// for every waiting job, EASY for the first waiting jobs (its reservation
// depth). The live service reports the plan to users (the "reserved
// start") and draws the schedule from it. A plan is not a promise: it may
// move earlier when jobs end early, and, for EASY and slack-based
// backfilling, later; the promise is Guarantor's.
type Planner interface {
	// Planned reports the start currently planned at now for waiting job
	// j, or ok false when j holds no reservation (it is not waiting, or
	// the policy plans only the first jobs).
	Planned(now int64, j *job.Request) (start int64, ok bool)
	// Reservations calls fn for every waiting job that holds a
	// reservation at now, with its planned start, in increasing (start,
	// job ID) order.
	Reservations(now int64, fn func(j *job.Request, start int64))
}

// ArrivalOrdered is implemented by policies that may promise to start jobs
// strictly in arrival order (FCFS): the auditor then checks that no job
// starts before one that arrived earlier (InArrivalOrder).
type ArrivalOrdered interface {
	// StartsInArrivalOrder reports whether the policy, as configured,
	// starts jobs in arrival order.
	StartsInArrivalOrder() bool
}

// InArrivalOrder reports whether s promises starts in arrival order
// (ArrivalOrdered): the one switch of the auditor's FCFS-order check.
func InArrivalOrder(s Scheduler) bool {
	a, ok := s.(ArrivalOrdered)
	return ok && a.StartsInArrivalOrder()
}

// Params are a policy's parameters, parsed from "name:key=value:key=value"
// (package spec's Params, with its typed getters Int, Float, Bool, Enum):
// every policy is built from them (Info.New, Info.NewK).
type Params = spec.Params

// Param documents one parameter of a policy.
type Param struct {
	Name, Default, Doc string
}

// Info describes a registered policy.
type Info struct {
	Name   string
	Doc    string
	Params []Param
	New    func(procs int, p Params) (Scheduler, error)
	// NewK, when set, builds the policy for a machine of several
	// independently allocatable resources (K-resource scheduling): caps[0]
	// is the number of processors, caps[i] the capacity of resource i,
	// which a job requires Request.Need(i) of. Policies without NewK
	// schedule processors only.
	NewK func(caps []int, p Params) (Scheduler, error)
}

var registry = map[string]Info{}

// Register makes a policy available by name. It is called from the init
// functions of the policy packages; registering a name twice panics (a
// programming error, caught by any test).
func Register(info Info) {
	if _, dup := registry[info.Name]; dup {
		panic("policy: duplicate registration of " + info.Name)
	}
	registry[info.Name] = info
}

// List returns the registered policies sorted by name.
func List() []Info {
	out := make([]Info, 0, len(registry))
	for _, i := range registry {
		out = append(out, i)
	}
	sort.Slice(out, func(a, b int) bool { return out[a].Name < out[b].Name })
	return out
}

// Parse splits a policy spec "name:key=value:key=value" into name and
// parameters (package spec: a key given twice is an error).
func Parse(text string) (string, Params, error) {
	name, args, err := spec.Parse("policy", text)
	if err != nil {
		return "", nil, err
	}
	return name, Params(args), nil
}

// New builds the policy described by spec for a machine of procs
// processors. Unknown names and unknown parameters are errors.
func New(spec string, procs int) (Scheduler, error) {
	info, params, err := lookup(spec)
	if err != nil {
		return nil, err
	}
	if procs < 1 {
		return nil, fmt.Errorf("policy %s: machine size must be at least 1, got %d", info.Name, procs)
	}
	return info.New(procs, params)
}

// lookup finds the registered policy of spec and checks its parameters.
func lookup(spec string) (Info, Params, error) {
	name, params, err := Parse(spec)
	if err != nil {
		return Info{}, nil, err
	}
	info, ok := registry[name]
	if !ok {
		names := make([]string, 0, len(registry))
		for _, i := range List() {
			names = append(names, i.Name)
		}
		return Info{}, nil, fmt.Errorf("unknown policy %q (known: %s)", name, strings.Join(names, ", "))
	}
	for k := range params {
		if !Accepts(info, k) {
			return Info{}, nil, fmt.Errorf("policy %s has no parameter %q", name, k)
		}
	}
	return info, params, nil
}

// NewK builds the policy described by spec for a machine of K = len(caps)
// resources, caps[0] processors and caps[i] units of resource i. With
// K = 1 every policy can be built (for a policy without Info.NewK it is
// New(spec, caps[0])); with K > 1 only the policies that register NewK,
// the others being an error that names those that can.
func NewK(spec string, caps []int) (Scheduler, error) {
	info, params, err := lookup(spec)
	if err != nil {
		return nil, err
	}
	if len(caps) == 0 {
		return nil, fmt.Errorf("policy %s: the machine needs at least one resource", info.Name)
	}
	for i, c := range caps {
		if c < 1 {
			return nil, fmt.Errorf("policy %s: resource %d has capacity %d (must be at least 1)", info.Name, i, c)
		}
	}
	if info.NewK != nil {
		return info.NewK(caps, params)
	}
	if len(caps) == 1 {
		return info.New(caps[0], params)
	}
	var names []string
	for _, i := range List() {
		if i.NewK != nil {
			names = append(names, i.Name)
		}
	}
	return nil, fmt.Errorf("policy %s schedules processors only, not %d resources (K-resource policies: %s)", info.Name, len(caps), strings.Join(names, ", "))
}
