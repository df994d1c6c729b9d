package kresource

import (
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/reservation"
	"github.com/backfill-hpc/backfill/profile"
)

// Conservative is conservative backfilling on requirement vectors (FCFS/FF-CONS):
// package conservative's algorithm with the multi-resource profile. Every
// waiting job holds a reservation in every resource, taken at submission
// at its earliest vector fit without moving any other reservation (the
// start bound reported through policy.Guarantor); when a job ends early or
// a waiting job is cancelled the reservations are compressed in the order
// of their current starts (ties by arrival), each moving only earlier.
// The reservation book (package reservation) holds them: its compression,
// with the per-resource PrefixMax filter and EarliestFitMoving, is exact
// for vectors by the argument of the scalar case, applied to each resource
// (a window fits in the vector iff it fits in every resource). Plans with
// the estimates only (no predict parameter).
//
// With a queue order (parameter order, Config.Prio) other than arrival,
// a compression removes every reservation and re-places the waiting jobs
// in that order, each at its earliest fit, as package conservative does;
// a job may then move later, so no guarantee is reported.
type Conservative struct {
	k    int
	run  *policy.RunningK
	book *reservation.Book[[]int, struct{}]
	// ord is the queue order of the compressions; prio is true when it
	// is not arrival order
	ord  policy.Ordering
	prio bool
}

var (
	_ policy.Scheduler = (*Conservative)(nil)
	_ policy.Guarantor = (*Conservative)(nil)
	_ policy.Planner   = (*Conservative)(nil)
)

// NewCons returns FF-CONS for a machine of capacities caps (caps[0]
// processors), compressing in the queue order cfg.Prio (nil: arrival
// order, the paper's), with cfg.Overrun's rule for jobs past their
// estimates; the other fields of cfg are the EASY variants' and are
// ignored. It has NewEASY's shape.
func NewCons(caps []int, cfg Config) (*Conservative, error) {
	o := cfg.Prio
	run, err := policy.NewRunningK(caps)
	if err != nil {
		return nil, err
	}
	run.Overrun = cfg.Overrun
	if run.Overrun == policy.OverrunUnset {
		run.Overrun = policy.OverrunLimit
	}
	c := &Conservative{k: len(caps), run: run, book: reservation.NewVector[struct{}]("kresource", run), ord: policy.NewOrdering(o)}
	if c.prio = o != nil && !policy.IsArrival(o); c.prio {
		c.book.Hooks = reservation.Hooks{Release: func(now, _, _ int64) { c.replanOrdered(now) }}
	}
	return c, nil
}

// Name implements policy.Scheduler.
func (c *Conservative) Name() string {
	n := "ff-cons"
	if c.prio {
		n += ":order=" + c.ord.O.Name()
	}
	if c.run.Overrun != policy.OverrunLimit {
		n += ":overrun=" + c.run.Overrun.String()
	}
	return n
}

// replanOrdered removes every reservation and re-places the waiting jobs
// in the queue order at now.
func (c *Conservative) replanOrdered(now int64) { c.book.ReplanInOrder(now, c.ord.O) }

// Profile is the policy's availability profile (for tests and tools).
func (c *Conservative) Profile() *profile.Multi { return c.run.Prof }

// Insert implements policy.Scheduler: the job takes its earliest vector
// fit, moving no reservation. A job that can never fit (a requirement
// beyond a capacity) stays at reservation.Infinity, unheld; the engine
// refuses such jobs before the run.
func (c *Conservative) Insert(now int64, j *job.Request) {
	c.book.Settle(now)
	c.ord.Submitted(now, j)
	c.book.Add(now, j, policy.NeedVector(j, c.k), j.Estimate, struct{}{})
}

// Guarantee implements policy.Guarantor.
func (c *Conservative) Guarantee(j *job.Request) int64 {
	if c.prio {
		return -1 // a compression in priority order may move a job later
	}
	if x, ok := c.book.Get(j.ID); ok && x.First != reservation.Infinity {
		return x.First
	}
	return -1
}

// Remove implements policy.Scheduler. As in package conservative, the
// compression waits until every release of the instant is known.
func (c *Conservative) Remove(now int64, j *job.Request) {
	c.ord.Ended(now, j)
	c.book.Remove(now, j)
}

// Tick implements policy.Scheduler: start every job whose reservation is
// now.
func (c *Conservative) Tick(now int64, start func(*job.Request)) int64 {
	c.ord.Advance(now)
	start = c.ord.Wrap(now, start)
	c.book.Settle(now)
	return c.book.Pass(now, func(x *reservation.Entry[[]int, struct{}]) { start(x.J) })
}

// Planned implements policy.Planner: the current reservation of waiting
// job j.
func (c *Conservative) Planned(now int64, j *job.Request) (int64, bool) {
	return c.book.Planned(now, j)
}

// Reservations implements policy.Planner: every waiting job holds one.
func (c *Conservative) Reservations(now int64, fn func(j *job.Request, start int64)) {
	c.book.Reservations(now, fn)
}
