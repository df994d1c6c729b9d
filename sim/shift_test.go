package sim_test

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// TestTimeShift: the clock's origin is a label. Every registered policy
// (and the variants of sameInstantSpecs) run on a workload and on the
// same workload with every submission (and deadline) moved by a large
// offset — a multiple of a day and of every timer period (multifactor's
// PriorityCalcPeriod), about the Unix time of a real trace — must start
// every job at its time plus the offset, in kill and no-kill modes. The
// slurm policy is left out: its slurmctld starts at the clock's origin. Quick: two small random workloads;
// long: adversarial ones (testgen.Adversarial).
func TestTimeShift(t *testing.T) {
	const shift = 20000 * 86400 // 1.728e9 s
	n := 3
	if !longtest.Short() {
		n = 8
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x7368))
		var jobs []job.Job
		var procs int
		if longtest.Short() {
			spec := testgen.Random(r)
			spec.Jobs = 30 + r.IntN(30)
			jobs, procs = testgen.Jobs(r, spec), spec.Procs
		} else {
			jobs, procs = testgen.Adversarial(r, false)
		}
		if r.IntN(2) == 0 {
			testgen.Deadlines(r, jobs, 0.7, 300)
		}
		moved := make([]job.Job, len(jobs))
		for i, j := range jobs {
			j.Submit += shift
			if j.Deadline > 0 {
				j.Deadline += shift
			}
			moved[i] = j
		}
		for _, spec := range sameInstantSpecs() {
			if spec == "slurm" {
				// slurmctld starts at the trace's clock origin (Options.BfStart,
				// Origin: 0), and its first passes come batch_sched_delay
				// after it: a job submitted at 0 starts at 3, one submitted
				// long after the start at once. The origin is not a label there.
				continue
			}
			for _, noKill := range []bool{false, true} {
				run := func(js []job.Job) []job.Outcome {
					s, err := policy.New(spec, procs)
					if err != nil {
						t.Fatal(err)
					}
					res, err := sim.Run(js, s, sim.Options{Procs: procs, NoKill: noKill})
					if err != nil {
						t.Fatalf("seed %d %s noKill=%v: %v", seed, spec, noKill, err)
					}
					return res.Outcomes
				}
				a, b := run(jobs), run(moved)
				for i := range jobs {
					if a[i].Rejected != b[i].Rejected || (!a[i].Rejected && a[i].Start+shift != b[i].Start) {
						j := jobs[i]
						t.Fatalf("seed %d %s noKill=%v (%d jobs, %d procs): job %d (submit %d, %d procs, estimate %d, runtime %d, deadline %d) starts at %d (rejected %v), shifted by %d at %d (rejected %v)",
							seed, spec, noKill, len(jobs), procs, i, j.Submit, j.Procs, j.Estimate, j.Runtime, j.Deadline, a[i].Start, a[i].Rejected, shift, b[i].Start-shift, b[i].Rejected)
					}
				}
			}
		}
	}
}
