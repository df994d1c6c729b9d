package kresource

import (
	"cmp"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/profile"
)

// Conservative is conservative backfilling on requirement vectors (FCFS/FF-CONS):
// package conservative's algorithm with the multi-resource profile. Every
// waiting job holds a reservation in every resource, taken at submission
// at its earliest vector fit without moving any other reservation (the
// start bound reported through policy.Guarantor); when a job ends early or
// a waiting job is cancelled the reservations are compressed in the order
// of their current starts (ties by arrival), each moving only earlier. The
// one-at-a-time compression with the per-resource PrefixMax filter and
// EarliestFitMoving is exact for vectors by the argument of package
// conservative, applied to each resource (a window fits in the vector iff
// it fits in every resource). Plans with the estimates only (no predict
// parameter).
type Conservative struct {
	k    int
	run  *policy.RunningK
	wait []*centry // sorted by (start, ID)
	byID map[int]*centry
	pms  []profile.PrefixMax
	// pend are the releases of the current instant, compressed once all
	// of them are known (package conservative, Remove)
	pend policy.Pending
}

type centry struct {
	j     *job.Request
	need  []int
	start int64 // current reservation
	first int64 // reservation at submission (the guarantee)
}

var (
	_ policy.Scheduler = (*Conservative)(nil)
	_ policy.Guarantor = (*Conservative)(nil)
)

// NewCons returns FF-CONS for a machine of capacities caps (caps[0]
// processors).
func NewCons(caps []int) (*Conservative, error) {
	run, err := policy.NewRunningK(caps)
	if err != nil {
		return nil, err
	}
	return &Conservative{k: len(caps), run: run, byID: make(map[int]*centry), pms: make([]profile.PrefixMax, len(caps))}, nil
}

// Name implements policy.Scheduler.
func (c *Conservative) Name() string { return "ff-cons" }

// Profile is the policy's availability profile (for tests and tools).
func (c *Conservative) Profile() *profile.Multi { return c.run.Prof }

func cmpCentry(a, b *centry) int {
	if a.start != b.start {
		if a.start < b.start {
			return -1
		}
		return 1
	}
	return a.j.ID - b.j.ID
}

// place puts x at its earliest fit from now and holds it. A job that can
// never fit (a requirement beyond a capacity) stays at Infinity unheld;
// the engine refuses such jobs before the run.
func (c *Conservative) place(now int64, x *centry) {
	prof := c.run.Prof
	d := x.j.Estimate
	x.start = prof.EarliestFit(now, d, x.need)
	if x.start == profile.Infinity {
		return
	}
	if err := prof.Add(x.start, x.start+d, x.need); err != nil {
		panic("kresource: " + err.Error()) // unreachable: EarliestFit found room
	}
}

func (c *Conservative) unplace(x *centry) {
	if x.start != profile.Infinity {
		_ = c.run.Prof.Remove(x.start, x.start+x.j.Estimate, x.need)
	}
}

// Insert implements policy.Scheduler.
func (c *Conservative) Insert(now int64, j *job.Request) {
	c.catchUp(now)
	c.settle()
	x := &centry{j: j, need: policy.NeedVector(j, c.k)}
	c.place(now, x)
	x.first = x.start
	i, _ := slices.BinarySearchFunc(c.wait, x, cmpCentry)
	c.wait = slices.Insert(c.wait, i, x)
	c.byID[j.ID] = x
}

// Guarantee implements policy.Guarantor.
func (c *Conservative) Guarantee(j *job.Request) int64 {
	if x, ok := c.byID[j.ID]; ok && x.first != profile.Infinity {
		return x.first
	}
	return -1
}

// Remove implements policy.Scheduler. As in package conservative, the
// compression waits until every release of the instant is known (settle).
func (c *Conservative) Remove(now int64, j *job.Request) {
	if c.pend.Due(now) {
		c.settle()
	}
	c.catchUp(now)
	if running, early := c.run.End(now, j); running {
		if early {
			c.pend.Add(now, now, now)
		}
		return
	}
	x, ok := c.byID[j.ID]
	if !ok {
		return
	}
	delete(c.byID, j.ID)
	c.unplace(x)
	i, _ := slices.BinarySearchFunc(c.wait, x, cmpCentry)
	c.wait = slices.Delete(c.wait, i, i+1)
	c.pend.Add(now, now, now)
}

// settle compresses the schedule after the pending releases, if any.
func (c *Conservative) settle() {
	if now, _, _, ok := c.pend.Take(); ok {
		c.compress(now)
	}
}

func (c *Conservative) resetPMs(now int64) {
	for i := range c.pms {
		c.pms[i] = c.run.Prof.Res(i).PrefixMax(now)
	}
}

// canMove is the PrefixMax filter: x can only move earlier if every
// resource it needs has enough free at some instant of [now, x.start).
func (c *Conservative) canMove(x *centry) bool {
	for i, n := range x.need {
		if n > 0 && c.pms[i].Before(x.start) < n {
			return false
		}
	}
	return true
}

// compress re-places the waiting jobs, in order, each at its earliest fit
// no later than its reservation (see package conservative for why this
// equals removing every reservation and re-inserting the jobs in order).
func (c *Conservative) compress(now int64) {
	if c.run.Overrunning(now) {
		c.replan(now)
		return
	}
	prof := c.run.Prof
	c.resetPMs(now)
	moved := false
	for _, x := range c.wait {
		if x.start <= now || x.start == profile.Infinity || !c.canMove(x) {
			continue
		}
		d := x.j.Estimate
		t := prof.EarliestFitMoving(now, d, x.need, x.start)
		if t < x.start {
			c.unplace(x)
			x.start = t
			if err := prof.Add(t, t+d, x.need); err != nil {
				panic("kresource: " + err.Error()) // unreachable: EarliestFitMoving found room
			}
			moved = true
			c.resetPMs(now)
		}
	}
	if moved {
		slices.SortFunc(c.wait, cmpCentry)
	}
}

// replan removes every reservation and re-inserts the waiting jobs in the
// order of their current reservations, after extending the holds of
// overrunning jobs (without kills only); jobs may then move later.
func (c *Conservative) replan(now int64) {
	for _, x := range c.wait {
		c.unplace(x)
	}
	if err := c.run.Extend(now); err != nil {
		panic("kresource: " + err.Error()) // unreachable: no reservations held
	}
	for _, x := range c.wait {
		c.place(now, x)
	}
	slices.SortFunc(c.wait, cmpCentry)
}

// Tick implements policy.Scheduler: start every job whose reservation is
// now.
func (c *Conservative) Tick(now int64, start func(*job.Request)) int64 {
	c.catchUp(now)
	c.settle()
	c.run.Prof.Forget(now)
	if c.run.Overrunning(now) {
		c.replan(now)
	}
	n := 0
	for n < len(c.wait) && c.wait[n].start <= now {
		x := c.wait[n]
		c.unplace(x) // the reservation becomes the running hold
		if err := c.run.StartFor(now, x.j, x.need, x.j.Estimate); err != nil {
			panic("kresource: " + err.Error()) // unreachable: reserved room
		}
		delete(c.byID, x.j.ID)
		start(x.j)
		n++
	}
	c.wait = slices.Delete(c.wait, 0, n)
	i := 0
	if c.run.OverrunUntil(now + 1) {
		// reservations at now+1 wait for overrunning jobs: no pass then
		// unless an event happens (package conservative, Tick)
		i, _ = slices.BinarySearchFunc(c.wait, now+2, func(x *centry, t int64) int { return cmp.Compare(x.start, t) })
	}
	if i < len(c.wait) && c.wait[i].start != profile.Infinity {
		return c.wait[i].start
	}
	return policy.NoWake
}

// catchUp re-plans at the first call of an instant after passes were
// skipped while jobs overran: their holds are lengthened to now+1 and the
// reservations re-placed in order (package conservative, catchUp).
func (c *Conservative) catchUp(now int64) {
	if !c.run.Stale(now) {
		return
	}
	for _, x := range c.wait {
		c.unplace(x)
	}
	if _, err := c.run.CatchUp(now); err != nil {
		panic("kresource: " + err.Error()) // unreachable: no reservations held
	}
	for _, x := range c.wait {
		c.place(now, x)
	}
	slices.SortFunc(c.wait, cmpCentry)
}
