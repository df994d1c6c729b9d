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
	"cmp"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
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
		},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			plan, err := predict.Parse(p["predict"], p["correct"])
			if err != nil {
				return nil, fmt.Errorf("conservative: %w", err)
			}
			c := NewPlan(procs, plan)
			if err := c.setOrder(procs, p); err != nil {
				return nil, fmt.Errorf("conservative: %w", err)
			}
			return c, nil
		},
	})
}

type entry struct {
	j     *job.Request
	start int64 // current reservation
	first int64 // reservation given at submission (the guarantee)
}

// Policy is conservative backfilling with compression.
type Policy struct {
	run  *policy.Running
	wait []*entry // sorted by (start, ID)
	// guarantee of the last inserted jobs, looked up by Guarantee
	byID map[int]*entry
	// literal selects the paper's literal compression (remove every
	// reservation, re-insert all); tests check compress against it.
	literal bool
	// plan gives the planned duration of each job (the estimate unless a
	// predictor is set).
	plan *predict.Plan
	// failed are compress's failed searches since the last move (scratch)
	failed []query
	// pend are the releases of the current instant, compressed once all
	// of them are known (settle)
	pend policy.Pending
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

// New returns conservative backfilling for a machine of procs processors.
func New(procs int) *Policy {
	return NewPlan(procs, nil)
}

// NewPlan returns conservative backfilling that plans with the durations
// of plan (nil: the estimates).
func NewPlan(procs int, plan *predict.Plan) *Policy {
	if plan == nil {
		plan = predict.Default()
	}
	return &Policy{run: policy.NewRunning(procs), byID: make(map[int]*entry), plan: plan}
}

// Name implements policy.Scheduler.
func (c *Policy) Name() string { return "conservative" + c.plan.Params() + c.orderName() }

// Prediction implements policy.Predicting.
func (c *Policy) Prediction(j *job.Request) (int64, int, bool) { return c.plan.Prediction(j) }

func cmpEntry(a, b *entry) int {
	if a.start != b.start {
		if a.start < b.start {
			return -1
		}
		return 1
	}
	return a.j.ID - b.j.ID
}

// place puts e at its earliest fit from now and holds it in the profile.
func (c *Policy) place(now int64, e *entry) {
	prof := c.run.Prof
	d := c.plan.Dur(e.j)
	e.start = prof.EarliestFit(now, d, e.j.Procs)
	if err := prof.Add(e.start, e.start+d, e.j.Procs); err != nil {
		panic("conservative: " + err.Error()) // unreachable: EarliestFit found room
	}
}

func (c *Policy) unplace(e *entry) {
	_ = c.run.Prof.Remove(e.start, e.start+c.plan.Dur(e.j), e.j.Procs)
}

// Insert implements policy.Scheduler.
func (c *Policy) Insert(now int64, j *job.Request) {
	c.catchUp(now)
	c.settle()
	c.plan.Submit(now, j)
	c.ord.Submitted(now, j)
	e := &entry{j: j}
	c.place(now, e)
	e.first = e.start
	i, _ := slices.BinarySearchFunc(c.wait, e, cmpEntry)
	c.wait = slices.Insert(c.wait, i, e)
	c.byID[j.ID] = e
}

// Guarantee implements policy.Guarantor.
func (c *Policy) Guarantee(j *job.Request) int64 {
	if c.prio {
		return -1 // a compression in priority order may move a job later
	}
	if !c.plan.Exact() {
		return -1 // reservations for predictions may move later
	}
	if e, ok := c.byID[j.ID]; ok {
		return e.first
	}
	return -1
}

// Remove implements policy.Scheduler. The capacity a Remove releases is
// only recorded; the schedule is compressed once, when every release of
// the instant is known (settle, at the next Insert, pass or query), so
// that it does not depend on the order in which the ends of one instant
// are reported, and a job whose hold ends now and whose Remove is still
// to come is not taken for an overrunning one.
func (c *Policy) Remove(now int64, j *job.Request) {
	c.ord.Ended(now, j)
	if c.pend.Due(now) {
		c.settle()
	}
	c.catchUp(now)
	start, _ := c.run.Started(j)
	holdEnd, _ := c.run.HoldEnd(j)
	if running, early := c.run.End(now, j); running {
		c.plan.Ended(now, start, j)
		if early {
			c.pend.Add(now, now, holdEnd)
		}
		return
	}
	e, ok := c.byID[j.ID]
	if !ok {
		return
	}
	delete(c.byID, j.ID)
	c.unplace(e)
	i, _ := slices.BinarySearchFunc(c.wait, e, cmpEntry)
	c.wait = slices.Delete(c.wait, i, i+1)
	c.pend.Add(now, max(now, e.start), e.start+c.plan.Dur(e.j))
}

// settle compresses the schedule after the pending releases, if any.
func (c *Policy) settle() {
	if now, freed, released, ok := c.pend.Take(); ok {
		c.compress(now, freed, released)
	}
}

// compress re-places the waiting jobs after capacity was freed. Its result
// is exactly that of replan (remove every reservation, re-insert in the
// order of the current reservations), computed job by job while the other
// reservations stay in the profile:
//
// When job k (start s, size n, estimate d) is re-placed, a candidate window
// [t, t+d) with t ≤ s meets the later jobs only at instants x ≥ s, all
// inside k's old slot. At such x, k coexisted with every later job before
// the early end; the jobs re-placed before k cover x only where they did
// before (they moved earlier and x is past their old start); and the early
// end only added free capacity. So ≥ n processors are free at x whether or
// not the later jobs are held, and the earliest fit is the same either way.
// The equivalence is checked job by job by a randomized test.
//
// The later jobs hold nothing in [now, s), so k can only move if some
// instant of [now, s) has ≥ n free processors. A forward walk over the
// profile (PrefixMax) answers that for all jobs in one pass, O(B+Q); only
// the jobs that pass are queried (EarliestFitMoving, which counts the job's
// own hold as free and changes nothing), O(log B + k) for k steps visited,
// and only the jobs that really move update the profile, O(B).
//
// freed is the start of the capacity just released (now for a running job
// that ended early; the reservation's start for a cancelled waiting job).
// Before the release no job could move earlier (after an insertion, a
// pass or a compression, every reservation is an earliest fit given all
// the others), so a job can now move only to a window that meets released
// capacity: the reservation released, or the old slot of a job that moved
// in this pass, all starting at or after freed. The search for a job of
// duration d therefore starts at freed − d + 1, not at now, which keeps a
// cancellation far in the future from scanning the profile from now for
// every later job. For the same reason the window must start before
// released, the end of the released capacity (the early-ended job's hold
// end, the cancelled reservation's end, or the end of a moved job's old
// slot): the search stops there instead of at the job's own reservation,
// which near saturation is far in the future.
func (c *Policy) compress(now, freed, released int64) {
	if c.prio {
		c.replanOrdered(now)
		return
	}
	if c.literal || c.run.Overrunning(now) {
		c.replan(now)
		return
	}
	prof := c.run.Prof
	pm := prof.PrefixMax(now)
	moved := false
	c.failed = c.failed[:0]
	for _, e := range c.wait {
		if e.start <= now || pm.Before(e.start) < e.j.Procs {
			continue
		}
		d := c.plan.Dur(e.j)
		after := max(now, freed-d+1)
		if after >= e.start {
			continue
		}
		q := query{n: e.j.Procs, d: d, after: after, limit: min(released, e.start)}
		if c.dominated(q) {
			continue
		}
		t := prof.EarliestFitMovingBefore(after, d, e.j.Procs, e.start, released)
		if t >= e.start {
			c.remember(q)
		} else {
			c.failed = c.failed[:0] // the profile changes
			c.unplace(e)
			freed = min(freed, e.start) // its old slot is released
			released = max(released, e.start+d)
			e.start = t
			if err := prof.Add(t, t+d, e.j.Procs); err != nil {
				panic("conservative: " + err.Error()) // unreachable: EarliestFitMoving found room
			}
			moved = true
			pm = prof.PrefixMax(now)
		}
	}
	if moved {
		slices.SortFunc(c.wait, cmpEntry)
	}
}

// query is a compression search that found no earlier start: a job of n
// processors and duration d, for starts in [after, limit).
type query struct {
	n     int
	d     int64
	after int64
	limit int64
}

// maxFailed is how many failed searches compress remembers.
const maxFailed = 16

// dominated reports whether a search for q must fail because a remembered
// one failed on the same profile. A failed search for (n, d) from after
// means: every start t in [after, limit) meets an instant x < own, inside
// [t, t+d), with fewer than n free processors (the own hold, which counts as
// free, starts at own ≥ limit, so it does not cover x). A job of n' ≥ n
// processors and duration d' ≥ d whose reservation own' is later (its
// window cut at own' then holds that x, which its own hold does not cover
// either, being later still) fails at every such t; so with after' ≥ after
// and limit' ≤ limit it fails everywhere. Reservations are visited in
// order, so own' ≥ own holds; the list is cleared whenever a job moves.
func (c *Policy) dominated(q query) bool {
	for _, f := range c.failed {
		if f.n <= q.n && f.d <= q.d && f.after <= q.after && f.limit >= q.limit {
			return true
		}
	}
	return false
}

// remember records a failed search, replacing the oldest beyond maxFailed.
func (c *Policy) remember(q query) {
	if len(c.failed) < maxFailed {
		c.failed = append(c.failed, q)
		return
	}
	copy(c.failed, c.failed[1:])
	c.failed[maxFailed-1] = q
}

// replan removes every reservation and re-inserts the waiting jobs in the
// order of their current reservations: the paper's compression, used as is
// when running jobs overran their estimate (possible only without kills)
// or their prediction, since their holds must first be extended, and then
// jobs may move later.
func (c *Policy) replan(now int64) {
	for _, e := range c.wait {
		c.unplace(e)
	}
	if c.run.Overrunning(now) {
		if _, err := c.run.ExtendWith(now, c.plan.Extender(now)); err != nil {
			panic("conservative: " + err.Error()) // unreachable: no reservations held
		}
	}
	for _, e := range c.wait {
		c.place(now, e)
	}
	slices.SortFunc(c.wait, cmpEntry)
}

// Tick implements policy.Scheduler: start every job whose reservation is
// now.
func (c *Policy) Tick(now int64, start func(*job.Request)) int64 {
	c.ord.Advance(now)
	start = c.ord.Wrap(now, start)
	c.catchUp(now)
	c.settle()
	c.plan.Flush()
	c.run.Prof.Forget(now)
	if c.run.Overrunning(now) {
		c.replan(now)
	}
	n := 0
	for n < len(c.wait) && c.wait[n].start <= now {
		e := c.wait[n]
		// the reservation [now, now+estimate) becomes the running hold
		c.unplace(e)
		if err := c.run.StartFor(now, e.j, c.plan.Dur(e.j)); err != nil {
			panic("conservative: " + err.Error()) // unreachable: reserved room
		}
		delete(c.byID, e.j.ID)
		start(e.j)
		n++
	}
	c.wait = slices.Delete(c.wait, 0, n)
	if len(c.wait) > 0 && c.wait[0].start == now+1 && c.run.OverrunUntil(now+1) {
		// the first reservations wait for overrunning jobs, whose holds
		// end at now+1 only because they may end at any moment: no pass
		// at now+1 unless an event happens then (catchUp)
		i, _ := slices.BinarySearchFunc(c.wait, now+2, func(e *entry, t int64) int {
			return cmp.Compare(e.start, t)
		})
		if i == len(c.wait) {
			return policy.NoWake
		}
		return c.wait[i].start
	}
	if len(c.wait) > 0 {
		return c.wait[0].start
	}
	return policy.NoWake
}

// catchUp brings the schedule to now at the first call of an instant
// after passes were skipped while jobs ran past their estimates (Tick): the
// holds of those still running are lengthened to now+1 — they may end at
// any moment — and, if any was, the reservations are re-placed in order
// from now. Nothing happens when no such hold ended before now.
func (c *Policy) catchUp(now int64) {
	if !c.run.Stale(now) {
		return
	}
	over := c.run.Overran(now)
	if len(over) == 0 {
		return
	}
	for _, e := range c.wait {
		c.unplace(e)
	}
	if err := c.run.CatchUp(now, over); err != nil {
		panic("conservative: " + err.Error()) // unreachable: no reservations held
	}
	for _, e := range c.wait {
		c.place(now, e)
	}
	slices.SortFunc(c.wait, cmpEntry)
}

var _ policy.Planner = (*Policy)(nil)

// Planned implements policy.Planner: the current reservation of waiting
// job j.
func (c *Policy) Planned(now int64, j *job.Request) (int64, bool) {
	c.catchUp(now)
	c.settle()
	if e, ok := c.byID[j.ID]; ok {
		return e.start, true
	}
	return 0, false
}

// Reservations implements policy.Planner: every waiting job holds one.
func (c *Policy) Reservations(now int64, fn func(j *job.Request, start int64)) {
	c.catchUp(now)
	c.settle()
	for _, e := range c.wait {
		fn(e.j, e.start)
	}
}
