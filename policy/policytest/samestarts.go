package policytest

import (
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// SameStarts simulates a and b on jobs with opt and reports the first job
// (in input order) they start at different times, naming the job and both
// starts; nil when every start agrees. The comparisons of a fast policy
// with its literal form use it.
func SameStarts(jobs []job.Job, opt sim.Options, a, b policy.Scheduler) error {
	ra, err := sim.Run(jobs, a, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", a.Name(), err)
	}
	rb, err := sim.Run(jobs, b, opt)
	if err != nil {
		return fmt.Errorf("%s: %w", b.Name(), err)
	}
	for i, j := range jobs {
		if sa, sb := ra.Outcomes[i].Start, rb.Outcomes[i].Start; sa != sb {
			return fmt.Errorf("job %d (submit %d, %d procs, estimate %d, runtime %d) starts at %d (%s) vs %d (%s)",
				i, j.Submit, j.Procs, j.Estimate, j.Runtime, sa, a.Name(), sb, b.Name())
		}
	}
	return nil
}
