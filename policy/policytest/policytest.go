// Package policytest is the conformance suite every registered policy passes.
//
// Run finds the policies through the registry (policy.List), so a new
// policy is covered by adding its package (and its line in policy/all):
// no test lists policies by hand. For each policy, with its default
// parameters, it checks:
//
//   - properties: on random workloads (testgen: varied machine sizes,
//     loads, estimate accuracies, many simultaneous events) in kill and
//     no-kill mode, and with extensions for a policy.Extender, the
//     simulation succeeds (the engine's checks on every start and
//     wake-up) and the schedule passes the audit (simulate.Audit:
//     capacity, start ≥ submit, run lengths, guarantees, the FCFS order
//     for fcfs, deadlines for a policy.Admitter, completeness); a
//     K-resource policy (Info.NewK) is also run with 2 and 3 resources;
//   - determinism: the same input twice gives the same outcomes;
//   - documented defaults: each parameter given explicitly at the default
//     that the registry documents (Param.Default, what `backfill
//     policies` prints and the report takes for a run without it) builds
//     the policy of the same name and schedule as leaving it out, so a
//     default that drifts from the typed configuration fails;
//   - agreement: the live service (on the manual clock, through its
//     HTTP API) makes the simulator's decisions, job by job: start, end,
//     bound, killed, rejected.
//
// Workloads for a policy.Admitter give most jobs a deadline. The quick
// variant (go test ./...) runs a few workloads per policy; with
// BACKFILL_LONG=1 (CI) many more.
package policytest

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net/http/httptest"
	"reflect"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/service"
	"github.com/backfill-hpc/backfill/simulate"
)

// Builder builds a policy for a machine of capacities caps (caps[0]
// processors; policy.NewK's convention).
type Builder func(caps []int) (policy.Scheduler, error)

// FromSpec is the Builder of a registered policy spec.
func FromSpec(spec string) Builder {
	return func(caps []int) (policy.Scheduler, error) { return policy.NewK(spec, caps) }
}

// Specs are the specs Run checks: every registered policy, by name, with
// its default parameters.
func Specs() []string {
	var out []string
	for _, i := range policy.List() {
		out = append(out, i.Name)
	}
	return out
}

// Run runs the suite on every registered policy, one subtest each.
func Run(t *testing.T) {
	seeds := 3
	if !longtest.Short() {
		seeds = 25
	}
	for _, spec := range Specs() {
		t.Run(spec, func(t *testing.T) {
			if err := Properties(FromSpec(spec), seeds); err != nil {
				t.Fatal(err)
			}
			if err := Defaults(spec, seeds); err != nil {
				t.Fatal(err)
			}
			if err := Agreement(t, spec, seeds); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// workload draws seed's random workload: deadlines on three jobs in four
// for a policy with admission control.
func workload(seed uint64, admits bool) ([]job.Job, int, *rand.Rand) {
	r := rand.New(rand.NewPCG(seed, 0x706f6c))
	spec := testgen.Random(r)
	spec.Jobs = min(spec.Jobs, 80)
	jobs := testgen.Jobs(r, spec)
	if admits {
		testgen.Deadlines(r, jobs, 0.75, 600)
	}
	return jobs, spec.Procs, r
}

// capabilities reports what a freshly built policy implements.
func capabilities(build Builder) (name string, admits, extends, multi bool, err error) {
	s, err := build([]int{4})
	if err != nil {
		return "", false, false, false, err
	}
	_, admits = s.(policy.Admitter)
	_, extends = s.(policy.Extender)
	_, err2 := build([]int{4, 4})
	return s.Name(), admits, extends, err2 == nil, nil
}

// Properties runs the policy of build on seeds random workloads in every
// mode and audits each schedule; it returns the first failure.
func Properties(build Builder, seeds int) error {
	name, admits, extends, multi, err := capabilities(build)
	if err != nil {
		return err
	}
	type mode struct {
		label          string
		noKill, extend bool
		k              int
	}
	modes := []mode{{"kill", false, false, 1}, {"no-kill", true, false, 1}}
	if extends {
		modes = append(modes, mode{"extend", false, true, 1})
	}
	if multi {
		modes = append(modes, mode{"K=2", false, false, 2}, mode{"K=3", false, false, 3})
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		for _, m := range modes {
			jobs, procs, r := workload(seed, admits)
			res := testgen.AddResources(r, jobs, m.k)
			opt := simulate.Options{Procs: procs, Res: res, NoKill: m.noKill, Extend: m.extend}
			var prev []job.Outcome
			for run := 0; run < 2; run++ {
				s, err := build(append([]int{procs}, res...))
				if err != nil {
					return fmt.Errorf("%s, seed %d, %s: %w", name, seed, m.label, err)
				}
				out, err := simulate.RunScheduler(jobs, s, opt)
				if err != nil {
					return fmt.Errorf("%s, seed %d, %s (%d jobs, %d processors): %w", name, seed, m.label, len(jobs), procs, err)
				}
				if prev != nil && !reflect.DeepEqual(prev, out.Sim.Outcomes) {
					return fmt.Errorf("%s, seed %d, %s: two runs on the same input differ", name, seed, m.label)
				}
				prev = out.Sim.Outcomes
			}
		}
	}
	return nil
}

// Defaults checks that every documented default of the registered policy
// name is its typed default (DefaultsOf).
func Defaults(name string, seeds int) error {
	for _, i := range policy.List() {
		if i.Name == name {
			return DefaultsOf(i, seeds)
		}
	}
	return fmt.Errorf("no registered policy %q", name)
}

// DefaultsOf checks that every documented default of the policy info
// (Info.Params: Default, when not empty) is the typed default: built with
// that one parameter, the policy has the same Name as built without
// parameters and the same schedule on seeds random workloads.
func DefaultsOf(info policy.Info, seeds int) error {
	_, admits, _, _, err := capabilities(func(caps []int) (policy.Scheduler, error) { return info.New(caps[0], policy.Params{}) })
	if err != nil {
		return err
	}
	for _, p := range info.Params {
		if p.Default == "" {
			continue
		}
		for seed := uint64(1); seed <= uint64(seeds); seed++ {
			jobs, procs, _ := workload(seed, admits)
			var outs [2][]job.Outcome
			var names [2]string
			for i, params := range []policy.Params{{}, {p.Name: p.Default}} {
				s, err := info.New(procs, params)
				if err != nil {
					return fmt.Errorf("%s: the documented default %s=%s is refused: %w", info.Name, p.Name, p.Default, err)
				}
				out, err := simulate.RunScheduler(jobs, s, simulate.Options{Procs: procs})
				if err != nil {
					return fmt.Errorf("%s, seed %d: %w", s.Name(), seed, err)
				}
				outs[i], names[i] = out.Sim.Outcomes, s.Name()
			}
			if names[0] != names[1] {
				return fmt.Errorf("%s: the documented default %s=%s builds %q, not %q", info.Name, p.Name, p.Default, names[1], names[0])
			}
			if !reflect.DeepEqual(outs[0], outs[1]) {
				return fmt.Errorf("%s, seed %d: the documented default %s=%s schedules differently from the policy without it", info.Name, seed, p.Name, p.Default)
			}
		}
	}
	return nil
}

// Agreement replays seeds random workloads through a fresh live service
// running spec (manual clock, HTTP API, state in a temporary directory)
// and through the simulator (kill mode), and compares the outcomes job by
// job.
func Agreement(t testing.TB, spec string, seeds int) error {
	_, admits, _, _, err := capabilities(FromSpec(spec))
	if err != nil {
		return err
	}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		jobs, procs, _ := workload(seed, admits)
		if err := AgreementOn(t, spec, jobs, procs); err != nil {
			return fmt.Errorf("seed %d: %w", seed, err)
		}
	}
	return nil
}

// AgreementOn is Agreement on one workload: jobs on procs processors
// through the simulator (kill mode) and a fresh live service running
// spec, compared job by job.
func AgreementOn(t testing.TB, spec string, jobs []job.Job, procs int) error {
	s, err := policy.New(spec, procs)
	if err != nil {
		return err
	}
	want, err := simulate.RunScheduler(jobs, s, simulate.Options{Procs: procs})
	if err != nil {
		return fmt.Errorf("%s: the simulator: %w", spec, err)
	}
	got, err := replay(t.TempDir(), spec, procs, jobs)
	if err != nil {
		return fmt.Errorf("%s: the service: %w", spec, err)
	}
	for i := range jobs {
		w, g := want.Sim.Outcomes[i], got[i]
		if w.Start != g.Start || w.End != g.End || w.Bound != g.Bound || w.Killed != g.Killed || w.Rejected != g.Rejected {
			return fmt.Errorf("%s, %d processors, job %d (submit %d, %d procs, estimate %d, runtime %d):\n"+
				"simulator start %d end %d bound %d killed %v rejected %v\nservice   start %d end %d bound %d killed %v rejected %v",
				spec, procs, jobs[i].SWFID, jobs[i].Submit, jobs[i].Procs, jobs[i].Estimate, jobs[i].Runtime,
				w.Start, w.End, w.Bound, w.Killed, w.Rejected, g.Start, g.End, g.Bound, g.Killed, g.Rejected)
		}
	}
	return nil
}

// replay runs jobs through a fresh service (service.Replay).
func replay(dir, spec string, procs int, jobs []job.Job) ([]job.Outcome, error) {
	svc, err := service.Open(service.Config{Policy: spec, Procs: procs, StateDir: dir, Sync: "normal",
		AdminToken: "policytest-admin", Clock: service.NewManualClock(0)})
	if err != nil {
		return nil, err
	}
	defer svc.Close()
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	return service.Replay(context.Background(), service.NewClient(srv.URL, "policytest-admin"), jobs)
}
