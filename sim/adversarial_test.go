package sim_test

import (
	"math/rand/v2"

	"github.com/backfill-hpc/backfill/audit"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/shuffle"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// TestSameInstantEndOrderAdversarial is TestSameInstantEndOrder on
// testgen.Adversarial workloads (many ends and submissions in one second,
// identical jobs, runtime = estimate or 0, estimates of 1 s, whole-machine
// jobs, queues of hundreds): every registered policy and the variants of
// sameInstantSpecs, in kill and no-kill modes, must start every job at the
// same time whatever the order in which the ends of an instant are
// reported, and in kill mode every schedule passes the audit. Long only (6 workloads, every policy); the
// speed shortcuts' exactness on these shapes is tested per package.
func TestSameInstantEndOrderAdversarial(t *testing.T) {
	longtest.Skip(t, "every policy on workloads of up to hundreds of jobs")
	n := 6
	specs := sameInstantSpecs()
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x616476))
		jobs, procs := testgen.Adversarial(r, false)
		for _, spec := range specs {
			for _, noKill := range []bool{false, true} {
				mk := func() policy.Scheduler {
					s, err := policy.New(spec, procs)
					if err != nil {
						t.Fatal(err)
					}
					return s
				}
				s := mk()
				res, err := sim.Run(jobs, s, sim.Options{Procs: procs, NoKill: noKill})
				if err != nil {
					t.Fatalf("seed %d %s noKill=%v: %v", seed, spec, noKill, err)
				}
				if !noKill {
					_, adm := s.(policy.Admitter)
					rep := audit.Audit(res.Outcomes, audit.Options{Procs: procs, Kill: true, KnownRuntime: true, Expect: len(jobs), Deadlines: adm, FCFS: policy.InArrivalOrder(s)})
					if !rep.OK() {
						t.Fatalf("seed %d %s: %s", seed, spec, rep.String())
					}
				}
				for k := uint64(1); k <= 2; k++ {
					got, err := shuffle.Run(jobs, mk(), procs, nil, shuffle.Options{NoKill: noKill}, rand.New(rand.NewPCG(seed, k)))
					if err != nil {
						t.Fatalf("seed %d %s noKill=%v shuffle %d: %v", seed, spec, noKill, k, err)
					}
					for i, o := range res.Outcomes {
						if got[i] != o.Start {
							j := jobs[i]
							t.Fatalf("seed %d %s noKill=%v (%d jobs, %d procs): with the ends of each instant in order %d, job %d (submit %d, %d procs, estimate %d, runtime %d) starts at %d, not %d",
								seed, spec, noKill, len(jobs), procs, k, i, j.Submit, j.Procs, j.Estimate, j.Runtime, got[i], o.Start)
						}
					}
				}
			}
		}
	}
}
