package policytest_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/policytest"
)

// TestAgreementAdversarial: the live service decides as the simulator
// does, job by job, for every registered policy, on testgen.Adversarial
// workloads (bursts of submissions and ends in one second, identical
// jobs, runtime = estimate or 0, estimates of 1 s, whole-machine jobs,
// queues of hundreds), most jobs with deadlines for a policy with
// admission control. Long only.
func TestAgreementAdversarial(t *testing.T) {
	longtest.Skip(t, "every policy through the live service on workloads of up to hundreds of jobs")
	for seed := uint64(1); seed <= 8; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6167))
		jobs, procs := testgen.Adversarial(r, false)
		dl := slices.Clone(jobs)
		testgen.Deadlines(r, dl, 0.75, 300)
		for _, spec := range policytest.Specs() {
			s, err := policy.New(spec, procs)
			if err != nil {
				t.Fatal(err)
			}
			js := jobs
			if _, ok := s.(policy.Admitter); ok {
				js = dl // the service refuses deadlines for the others
			}
			if err := policytest.AgreementOn(t, spec, js, procs); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
		}
	}
}
