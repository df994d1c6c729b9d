package conservative

import (
	"errors"
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

var _ policy.Adopter = (*Policy)(nil)

// Adopt implements policy.Adopter: the running jobs' holds go into the
// profile; the waiting jobs are then inserted again, each getting the
// earliest reservation after those before it (and that first reservation
// as its new guarantee).
func (c *Policy) Adopt(now int64, holds []policy.RunningHold, lookup func(id int) *job.Request) error {
	if c.plan.Params() != "" {
		return fmt.Errorf("conservative: adopting running jobs with predict=%s/correct=%s is not supported", c.plan.P.Name(), c.plan.C.Name())
	}
	if c.run.Len() > 0 || c.book.Len() > 0 {
		return errors.New("conservative: adopt into a policy that is not fresh")
	}
	if err := c.run.AdoptHolds("conservative", holds, lookup); err != nil {
		return err
	}
	c.run.Prof.Forget(now)
	return nil
}
