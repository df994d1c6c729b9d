package easy

import (
	"errors"
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

var _ policy.Adopter = (*Policy)(nil)

// Adopt implements policy.Adopter: the running jobs' holds go into the
// profile (EASY's shadow time is computed from them at every pass).
func (e *Policy) Adopt(now int64, holds []policy.RunningHold, lookup func(id int) *job.Request) error {
	if e.plan.Params() != "" {
		return fmt.Errorf("easy: adopting running jobs with predict=%s/correct=%s is not supported", e.plan.P.Name(), e.plan.C.Name())
	}
	if e.run.Len() > 0 || len(e.queue) > 0 || len(e.fifo) > 0 {
		return errors.New("easy: adopt into a policy that is not fresh")
	}
	if err := e.run.AdoptHolds("easy", holds, lookup); err != nil {
		return err
	}
	e.run.Prof.Forget(now)
	return nil
}
