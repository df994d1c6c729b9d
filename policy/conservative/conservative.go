// Package conservative is conservative backfilling as Talby & Feitelson
// §3.2 define it: every waiting job holds a reservation in the
// availability profile. A new job takes the earliest slot where it fits
// for its whole estimate without moving any existing reservation; that
// first reservation is an upper bound on its start (requirement IX), which
// the policy reports through policy.Guarantor.
//
// When a running job ends before its estimate (or a waiting job is
// cancelled) the schedule is compressed, as the paper prefers: all
// reservations are removed from the profile and the waiting jobs are
// re-inserted one by one in the order of their current reservations (ties
// by arrival). A job is never re-placed later than it was, since its old
// slot is still free when its turn comes (the jobs re-placed before it
// only moved earlier).
//
// Cost: Insert is one earliest-fit query and one profile update. A
// compression is O(Q) of them for Q waiting jobs.
//
// With a runtime predictor (parameters predict and correct, package
// predict) reservations are made for the predicted durations instead of
// the estimates; a job still running at its predicted end gets a corrected
// prediction and the reservations are re-placed in order, possibly later.
// The first reservation is then no longer a bound, so no guarantee is
// reported.
package conservative

import (
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/reservation"
	"github.com/backfill-hpc/backfill/predict"
)

func init() {
	policy.Register(policy.Info{
		Name: "conservative",
		Doc:  "conservative backfilling: every waiting job holds a reservation, guaranteed at submission; compression when a job ends early",
		Params: []policy.Param{
			{Name: "predict", Default: "estimate", Doc: predict.PredictDoc},
			{Name: "correct", Default: "estimate", Doc: predict.CorrectDoc},
			orderParam,
			overrunParam,
		},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			plan, err := predict.Parse(p["predict"], p["correct"])
			if err != nil {
				return nil, fmt.Errorf("conservative: %w", err)
			}
			over := policy.OverrunLimit
			if v, ok := p["overrun"]; ok && v != "" {
				if over, err = policy.ParseOverrun(v); err != nil {
					return nil, fmt.Errorf("conservative: %w", err)
				}
			}
			c := New(procs, Config{Plan: plan, Overrun: over})
			if err := c.setOrder(procs, p); err != nil {
				return nil, fmt.Errorf("conservative: %w", err)
			}
			return c, nil
		},
	})
}

// entry is a waiting job with its reservation (Start, the current one;
// First, the one given at submission: the guarantee).
type entry = reservation.Entry[int, struct{}]

// Policy is conservative backfilling with compression.
type Policy struct {
	run  *policy.Running
	book *reservation.Book[int, struct{}]
	// plan gives the planned duration of each job (the estimate unless a
	// predictor is set).
	plan *predict.Plan
	// ord is the queue order of the compressions (order.go); prio is
	// true when it is not arrival order
	ord  policy.Ordering
	prio bool
}

var (
	_ policy.Scheduler  = (*Policy)(nil)
	_ policy.Guarantor  = (*Policy)(nil)
	_ policy.Predicting = (*Policy)(nil)
)

// Config holds conservative backfilling's typed parameters (the queue
// order is set from the spec by the registry; see order.go).
type Config struct {
	// Plan gives the planned duration of each job: predict= and correct=
	// (nil: the estimates, the paper's setting).
	Plan *predict.Plan
	// Overrun is the planned end of a running job past its estimate
	// (only without kills; policy.OverrunRule); unset:
	// policy.OverrunLimit, as the registry's default (overrun=limit).
	Overrun policy.OverrunRule
}

// overrunParam is the overrun rule (policy.OverrunRule), default limit:
// Slurm's guess, which re-plans once per estimate of overrun instead of
// at every event while a job runs past its estimate (issue 22).
var overrunParam = policy.OverrunParam("limit")

// New returns conservative backfilling for a machine of procs processors,
// in the shape every policy package's constructor has (size, Config).
func New(procs int, cfg Config) *Policy {
	plan := cfg.Plan
	if plan == nil {
		plan = predict.Default()
	}
	c := &Policy{run: policy.NewRunning(procs), plan: plan}
	c.run.Overrun = cfg.Overrun
	if c.run.Overrun == policy.OverrunUnset {
		c.run.Overrun = policy.OverrunLimit
	}
	c.book = reservation.NewScalar[struct{}]("conservative", c.run)
	c.book.Hooks = reservation.Hooks{Release: c.release, Extend: c.extend}
	return c
}

// Name implements policy.Scheduler.
func (c *Policy) Name() string {
	return "conservative" + c.plan.Params() + c.orderName() + c.overrunName()
}

// overrunName is the overrun parameter in the name when it is not the
// registry's default (limit).
func (c *Policy) overrunName() string {
	if c.run.Overrun == policy.OverrunLimit {
		return ""
	}
	return ":overrun=" + c.run.Overrun.String()
}

// Prediction implements policy.Predicting.
func (c *Policy) Prediction(j *job.Request) (int64, int, bool) { return c.plan.Prediction(j) }

// Insert implements policy.Scheduler: the job takes its earliest slot,
// moving no reservation.
func (c *Policy) Insert(now int64, j *job.Request) {
	c.book.Settle(now)
	d := c.plan.Submit(now, j)
	c.ord.Submitted(now, j)
	c.book.Add(now, j, j.Procs, d, struct{}{})
}

// Guarantee implements policy.Guarantor.
func (c *Policy) Guarantee(j *job.Request) int64 {
	if c.prio {
		return -1 // a compression in priority order may move a job later
	}
	if !c.plan.Exact() {
		return -1 // reservations for predictions may move later
	}
	if e, ok := c.book.Get(j.ID); ok {
		return e.First
	}
	return -1
}

// Remove implements policy.Scheduler. The capacity a Remove releases is
// only recorded; the schedule is compressed once, when every release of
// the instant is known (reservation.Book.Settle, at the next Insert, pass
// or query).
func (c *Policy) Remove(now int64, j *job.Request) {
	c.ord.Ended(now, j)
	if _, running, start := c.book.Remove(now, j); running {
		c.plan.Ended(now, start, j)
	}
}

var _ policy.SettlerAhead = (*Policy)(nil)

// SettleAhead implements policy.SettlerAhead: the compression of instant
// now's releases, made now and undone by a Remove at now
// (reservation.Book.SettleAhead); nothing with a queue order (a re-plan).
func (c *Policy) SettleAhead(now int64) bool {
	return !c.prio && c.book.SettleAhead(now)
}

// release compresses the schedule after the releases of an instant
// (reservation.Book.Compress: in reservation order, each job to its
// earliest fit, never later), or, with a queue order, re-places every job
// in that order (order.go).
func (c *Policy) release(now, freed, released int64) {
	if c.prio {
		c.replanOrdered(now)
		return
	}
	c.book.Compress(now, freed, released)
}

// extend lengthens the holds of the running jobs that reached their
// planned end: to the corrected prediction (package predict), or now+1
// past the estimate.
func (c *Policy) extend(now int64) error {
	_, err := c.run.ExtendWith(now, c.plan.Extender(now))
	return err
}

// Tick implements policy.Scheduler: start every job whose reservation is
// now.
func (c *Policy) Tick(now int64, start func(*job.Request)) int64 {
	c.ord.Advance(now)
	start = c.ord.Wrap(now, start)
	c.book.Settle(now)
	c.plan.Flush()
	return c.book.Pass(now, func(e *entry) { start(e.J) })
}

var _ policy.Planner = (*Policy)(nil)

// Planned implements policy.Planner: the current reservation of waiting
// job j.
func (c *Policy) Planned(now int64, j *job.Request) (int64, bool) {
	return c.book.Planned(now, j)
}

// Reservations implements policy.Planner: every waiting job holds one.
func (c *Policy) Reservations(now int64, fn func(j *job.Request, start int64)) {
	c.book.Reservations(now, fn)
}
