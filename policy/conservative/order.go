package conservative

import "github.com/backfill-hpc/backfill/policy"

// orderParam is the queue order of the compressions: with any order but
// fcfs, a compression removes every reservation and re-places the waiting
// jobs in that order (the highest priority first), each at its earliest
// fit, instead of compressing in reservation order. A job may then move
// later, so no guarantee is reported; a new job still takes its earliest
// slot at submission. With an order that changes with time (multifactor),
// the order of the compression's instant is used.
var orderParam = policy.OrderParam("fcfs")

// setOrder reads the order parameter.
func (c *Policy) setOrder(procs int, p policy.Params) error {
	if v, ok := p["order"]; !ok || v == "" || v == "fcfs" {
		return nil
	}
	o, err := policy.NewOrder(p, "fcfs", procs)
	if err != nil {
		return err
	}
	c.ord = policy.NewOrdering(o)
	c.prio = !policy.IsArrival(o)
	return nil
}

func (c *Policy) orderName() string {
	if !c.prio {
		return ""
	}
	return ":order=" + c.ord.O.Name()
}

// replanOrdered removes every reservation and re-places the waiting jobs
// in the queue order at now.
func (c *Policy) replanOrdered(now int64) { c.book.ReplanInOrder(now, c.ord.O) }
