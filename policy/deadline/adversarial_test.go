package deadline

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// TestAdversarialEqualsReference runs each variant of equivSpecs with its
// admission tests and with the literal ones of ref_test.go (setRef)
// through whole simulations of testgen.Adversarial workloads (many ends
// and submissions in one second, identical jobs, runtime = estimate or 0,
// estimates of 1 s, whole-machine jobs, queues of hundreds), deadlines on
// most jobs, tight or loose, in kill and no-kill modes: every admission
// and every start must agree.
func TestAdversarialEqualsReference(t *testing.T) {
	n := 3
	if !longtest.Short() {
		n = 40
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x646c))
		jobs, procs := testgen.Adversarial(r, false)
		testgen.Deadlines(r, jobs, []float64{0.5, 0.9}[r.IntN(2)], []int{0, 20, 600}[r.IntN(3)])
		for _, spec := range equivSpecs {
			for _, noKill := range []bool{false, true} {
				what := fmt.Sprintf("%s seed %d (%d jobs, %d procs, noKill=%v)", spec, seed, len(jobs), procs, noKill)
				fast, ref := newEquiv(t, spec, procs), newEquiv(t, spec, procs)
				setRef(ref)
				a, err := sim.Run(jobs, fast, sim.Options{Procs: procs, NoKill: noKill})
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				b, err := sim.Run(jobs, ref, sim.Options{Procs: procs, NoKill: noKill})
				if err != nil {
					t.Fatalf("%s: reference: %v", what, err)
				}
				for i := range jobs {
					x, y := a.Outcomes[i], b.Outcomes[i]
					if x.Start != y.Start || x.Rejected != y.Rejected {
						j := jobs[i]
						t.Fatalf("%s: job %d (submit %d, %d procs, estimate %d, runtime %d, deadline %d): start %d rejected %v (fast) vs start %d rejected %v (reference)",
							what, i, j.Submit, j.Procs, j.Estimate, j.Runtime, j.Deadline, x.Start, x.Rejected, y.Start, y.Rejected)
					}
				}
			}
		}
	}
}

// TestDrivenEqualsReference: each variant of equivSpecs with its
// admission tests against the literal ones on policytest.Drive's event
// streams (bursts of identical jobs with deadlines of no slack to 300 s,
// cancellations anywhere, runs past the estimates): every admission and
// its reason, every start and every wake-up must agree.
func TestDrivenEqualsReference(t *testing.T) {
	n, steps := 1, 80
	if !longtest.Short() {
		n, steps = 20, 200
	}
	for _, spec := range equivSpecs {
		t.Run(spec, func(t *testing.T) {
			for seed := uint64(1); seed <= uint64(n); seed++ {
				r := rand.New(rand.NewPCG(seed, 0x6464))
				procs := []int{1, 4, 16, 64}[r.IntN(4)]
				fast, ref := newEquiv(t, spec, procs), newEquiv(t, spec, procs)
				setRef(ref)
				if err := policytest.Drive(r, fast, ref, procs, steps); err != nil {
					t.Fatalf("seed %d (%d procs): %v", seed, procs, err)
				}
			}
		})
	}
}
