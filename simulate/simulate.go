// Package simulate runs a policy on a workload and audits the schedule.
//
// It is the one path from a policy spec to checked numbers that the CLI,
// the experiment workbench and the reproductions share: build the policy
// (policy.NewK), simulate (sim.Run), audit the schedule (package audit:
// capacity, start ≥ submit, run lengths, guarantees, completeness; the
// FCFS order when the policy is fcfs; deadlines when it does admission
// control), then summarize it (package metrics). It also resolves
// awt=auto (ResolveAuto) and computes the EASY response times that
// deadline workloads are built from (EASYResponses). And it prepares a
// trace for a run: LoadTrace, the machine's Nodes, ApplyDeadlines.
//
// The policies must be registered (import package policy/all).
package simulate

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/machine"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// Options control one audited run.
type Options struct {
	// Procs is the machine size P.
	Procs int
	// Res are the capacities of the resources beyond the processors
	// (K-resource scheduling, sim.Options.Res), nil for processors only.
	Res []int
	// NoKill lets jobs run past their estimates (sim.Options.NoKill).
	NoKill bool
	// Extend offers extensions to jobs reaching their estimates
	// (sim.Options.Extend).
	Extend bool
	// NoAudit skips the audit.
	NoAudit bool
	// Metrics configure the summary; its Procs is set to Procs.
	Metrics metrics.Options
	// Progress is passed to sim.Options.Progress.
	Progress func(done int)
	// Machine, if set, is the machine's nodes (package machine); Procs
	// must be its core count. Every started job is then given concrete
	// cores by the rule Alloc (Result.Alloc), the audit checks that no
	// core is held twice, and the schedule is unchanged.
	Machine *machine.Machine
	Alloc   machine.Rule
	// Demands are the jobs' node-level requests (by job ID, from
	// machine.Apply), nil for none: with them a job the policy starts may
	// wait for its nodes (docs/simulator.md, "Node-level requests").
	Demands []machine.Demand
}

// Result is a finished, audited run.
type Result struct {
	// Policy is the policy's name with its parameters (Scheduler.Name).
	Policy string
	// Sim is the simulation's result (outcomes by job ID, counts).
	Sim *sim.Result
	// Summary is the metrics summary of the outcomes.
	Summary metrics.Summary
	// Alloc holds every job's cores when Options.Machine was set, else nil.
	Alloc *machine.Allocator
}

// Run builds the policy of spec for the machine of opt, simulates jobs
// under it, audits the schedule and summarizes it.
func Run(jobs []job.Job, spec string, opt Options) (*Result, error) {
	s, err := policy.NewK(spec, append([]int{opt.Procs}, opt.Res...))
	if err != nil {
		return nil, err
	}
	return RunScheduler(jobs, s, opt)
}

// RunScheduler is Run with a policy already built.
func RunScheduler(jobs []job.Job, s policy.Scheduler, opt Options) (*Result, error) {
	so := sim.Options{Procs: opt.Procs, Res: opt.Res, NoKill: opt.NoKill, Extend: opt.Extend, Progress: opt.Progress}
	var alloc *machine.Allocator
	if opt.Machine != nil {
		if opt.Machine.Procs() != opt.Procs {
			return nil, fmt.Errorf("the machine has %d cores but the run is for %d processors", opt.Machine.Procs(), opt.Procs)
		}
		alloc = machine.NewAllocator(opt.Machine, opt.Alloc, len(jobs))
		if opt.Demands != nil {
			if err := alloc.SetDemands(opt.Demands); err != nil {
				return nil, err
			}
		}
		so.Placer = alloc
	}
	res, err := sim.Run(jobs, s, so)
	if err != nil {
		return nil, err
	}
	if !opt.NoAudit {
		rep := Audit(res, s, len(jobs))
		if alloc != nil {
			rep = AuditCores(res, s, len(jobs), alloc)
		}
		if !rep.OK() {
			return nil, fmt.Errorf("the schedule fails the audit (a bug in the policy or the engine):\n%s", rep.String())
		}
		if alloc != nil && alloc.Constrained() {
			if bad := machine.AuditNodes(opt.Machine, res.Outcomes, opt.Demands, alloc.Intervals); bad != nil {
				return nil, fmt.Errorf("the allocation fails the node audit (a bug in package machine or the engine):\n%s", strings.Join(bad, "\n"))
			}
		}
	}
	mo := opt.Metrics
	mo.Procs = opt.Procs
	return &Result{Policy: res.Policy, Sim: res, Summary: metrics.Summarize(res.Outcomes, mo), Alloc: alloc}, nil
}

// AuditCores is Audit with the check that the allocator never gave a core
// to two jobs at once and gave each job exactly its size in cores.
func AuditCores(res *sim.Result, s policy.Scheduler, n int, alloc *machine.Allocator) audit.Report {
	o := auditOptions(res, s, n)
	o.Cores = alloc.Intervals
	return audit.Audit(res.Outcomes, o)
}

// Audit checks the schedule of res, a simulation of n jobs under s, with
// every check that applies to it: the outcomes carry the true runtimes;
// the FCFS order is checked when s promises it (policy.InArrivalOrder),
// the deadlines when s does admission control (policy.Admitter), the
// other resources when the machine has them.
func Audit(res *sim.Result, s policy.Scheduler, n int) audit.Report {
	return audit.Audit(res.Outcomes, auditOptions(res, s, n))
}

// auditOptions are the checks of Audit.
func auditOptions(res *sim.Result, s policy.Scheduler, n int) audit.Options {
	_, admits := s.(policy.Admitter)
	return audit.Options{Procs: res.Procs, Res: res.Res, Kill: !res.NoKill, KnownRuntime: true,
		FCFS: policy.InArrivalOrder(s), Expect: n, Deadlines: admits}
}

// AutoAWT is the spec value that ResolveAuto replaces.
const AutoAWT = "awt=auto"

// ResolveAuto replaces awt=auto in specs by the mean wait of a
// conservative-backfilling run on the same jobs (Talby & Feitelson's AWT,
// the system's average wait time, which for a trace is best estimated this
// way), rounded to a whole second, at least 1. The run is made once, and
// only when some spec asks for it; note says what was done ("" when
// nothing was).
func ResolveAuto(jobs []job.Job, procs int, specs []string, noKill bool) (out []string, note string, err error) {
	out = make([]string, len(specs))
	awt := ""
	for i, spec := range specs {
		out[i] = spec
		if !strings.Contains(spec, AutoAWT) {
			continue
		}
		if awt == "" {
			s, err := policy.New("conservative", procs)
			if err != nil {
				return nil, "", err
			}
			res, err := sim.Run(jobs, s, sim.Options{Procs: procs, NoKill: noKill})
			if err != nil {
				return nil, "", fmt.Errorf("%s: the conservative run: %w", AutoAWT, err)
			}
			sum := metrics.Summarize(res.Outcomes, metrics.Options{Procs: procs})
			awt = strconv.FormatFloat(math.Max(1, math.Round(sum.All.MeanWait)), 'f', 0, 64)
			note = AutoAWT + ": AWT = " + awt + " s, the mean wait of conservative backfilling on this workload"
		}
		out[i] = strings.ReplaceAll(spec, AutoAWT, "awt="+awt)
	}
	return out, note, nil
}

// EASYResponses simulates EASY backfilling (jobs killed at their
// estimates) on jobs and returns each job's response time (end − submit),
// by ID: what package workload/deadline derives deadlines from.
func EASYResponses(jobs []job.Job, procs int) ([]int64, error) {
	s, err := policy.New("easy", procs)
	if err != nil {
		return nil, err
	}
	res, err := sim.Run(jobs, s, sim.Options{Procs: procs})
	if err != nil {
		return nil, fmt.Errorf("the EASY run: %w", err)
	}
	out := make([]int64, len(jobs))
	for i, o := range res.Outcomes {
		out[i] = o.Response()
	}
	return out, nil
}
