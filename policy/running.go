package policy

import (
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/profile"
)

// holdProfile is the profile a tracker holds its running jobs in: a
// profile.Profile (amount: processors) or a profile.Multi (amount: a
// requirement vector).
type holdProfile[A any] interface {
	Add(start, end int64, n A) error
	Remove(start, end int64, n A) error
	Reset()
}

// tracker is what Running and RunningK share: the running jobs' holds in
// the profile Prof, in a heap on their ends indexed by job ID (holds).
type tracker[A any, P holdProfile[A]] struct {
	Prof P
	run  holds[A] // the holds; amt is the job's amount
	// Overrun is the rule for the hold of a job still running past its
	// estimate (only without kills): OverrunSecond (also the zero value's
	// rule) or OverrunLimit. Set it before the first start.
	Overrun OverrunRule
}

// OverrunRule is how a policy plans the end of a running job that has
// passed its estimate (possible only when jobs are not killed at their
// estimates, sim.Options.NoKill): the end of its hold in the profile,
// which the reservations of the waiting jobs are placed around. A
// scheduler cannot see the runtime, so any rule is a guess; the rule is
// the scheduler's configuration, not the workload's.
type OverrunRule uint8

const (
	// OverrunUnset is the zero value: a policy's Config leaves the choice
	// to the policy's default; a tracker applies OverrunSecond's rule.
	OverrunUnset OverrunRule = iota
	// OverrunSecond: the job may end at any moment. At each pass (and
	// at the first call of an instant after skipped passes, CatchUp) its
	// hold is lengthened to now+1, so the reservations waiting for it
	// are re-placed at every event while it runs.
	OverrunSecond
	// OverrunLimit is Slurm's guess for a job past its time limit when
	// the limit is not enforced (select/cons_tres with
	// OverTimeLimit=UNLIMITED: "no idea when the job might end", end =
	// now + time limit): at the first pass at or after the end of its
	// hold, a job past its estimate e is expected to run e more seconds,
	// and its hold is lengthened to now+e. The reservations are re-placed
	// then; when the job ends before that, its end is an early end (the
	// usual compression); if it is still running at now+e, the rule
	// applies again. A job overrunning by x seconds is re-planned for
	// about ⌈x/e⌉ times instead of once per event.
	OverrunLimit
	// OverrunDouble: a job that has run a seconds past its start is
	// expected to run a more (the median remaining life of a
	// process lifetime distribution with a Pareto tail, Harchol-Balter &
	// Downey 1997): at the first pass at or after the end of its hold,
	// a job past its estimate gets the hold end now + (now − start),
	// i.e. start + e·2ᵏ at the k-th extension when the passes fall at the
	// hold ends. A job overrunning its estimate e by x seconds is
	// re-planned about log₂((e+x)/e) + 1 times.
	OverrunDouble
)

// String is the rule's parameter value: second or limit.
func (o OverrunRule) String() string {
	switch o {
	case OverrunLimit:
		return "limit"
	case OverrunDouble:
		return "double"
	}
	return "second"
}

// ParseOverrun reads an overrun rule's parameter value: second or limit.
func ParseOverrun(v string) (OverrunRule, error) {
	switch v {
	case "second":
		return OverrunSecond, nil
	case "limit":
		return OverrunLimit, nil
	case "double":
		return OverrunDouble, nil
	}
	return 0, fmt.Errorf("overrun=%q: want second (the hold of a job past its estimate ends at now+1) or limit (Slurm's guess: now + its estimate)", v)
}

// OverrunParam is the parameter of the overrun rule (OverrunRule) of a
// reservation-based policy, default def.
func OverrunParam(def string) Param {
	return Param{Name: "overrun", Default: def, Doc: "the planned end of a running job past its estimate e (only with --no-kill): limit (Slurm's guess with OverTimeLimit=UNLIMITED: it runs e more seconds, its hold is lengthened to now+e at the first pass at or after the end of its hold) or second (it may end at any moment: its hold is lengthened to now+1 at every event while it runs, and the reservations are re-placed each time)"}
}

// overrunEnd is the new end of the hold of job j, started at start, which
// has passed its estimate by now: now+1 or now+estimate by the rule.
func (r *tracker[A, P]) overrunEnd(now, start int64, j *job.Request) int64 {
	switch r.Overrun {
	case OverrunLimit:
		return now + max(j.Estimate, 1)
	case OverrunDouble:
		return now + max(now-start, 1)
	}
	return now + 1
}

// Len is the number of running jobs.
func (r *tracker[A, P]) Len() int { return r.run.Len() }

// startFor records that j started at now and holds amt in the profile for
// dur seconds (≥ 1), until now+dur.
func (r *tracker[A, P]) startFor(now int64, j *job.Request, amt A, dur int64) error {
	if dur < 1 {
		return fmt.Errorf("start of job %d at %d: planned duration %d is not positive", j.SWFID, now, dur)
	}
	end := now + dur
	if err := r.Prof.Add(now, end, amt); err != nil {
		return fmt.Errorf("start of job %d at %d: %w", j.SWFID, now, err)
	}
	r.run.push(hold[A]{Key: end, ID: j.ID, Val: holdVal[A]{start: now, j: j, amt: amt}})
	return nil
}

// Started reports the start time of j if it is running.
func (r *tracker[A, P]) Started(j *job.Request) (start int64, running bool) {
	i, ok := r.run.Find(j.ID)
	if !ok {
		return 0, false
	}
	return r.run.At(i).Val.start, true
}

// HoldEnd reports the end of running job j's hold in the profile.
func (r *tracker[A, P]) HoldEnd(j *job.Request) (end int64, running bool) {
	i, ok := r.run.Find(j.ID)
	if !ok {
		return 0, false
	}
	return r.run.At(i).Key, true
}

// Hold reports the start of running job j and the end of its hold.
func (r *tracker[A, P]) Hold(j *job.Request) (start, end int64, running bool) {
	i, ok := r.run.Find(j.ID)
	if !ok {
		return 0, 0, false
	}
	return r.run.At(i).Val.start, r.run.At(i).Key, true
}

// End records that running job j ended at now, releasing the rest of its
// hold. It reports whether j was running, and whether it ended before the
// end of its hold (an early end, which frees capacity in the future).
func (r *tracker[A, P]) End(now int64, j *job.Request) (running, early bool) {
	i, ok := r.run.Find(j.ID)
	if !ok {
		return false, false
	}
	it := r.run.Remove(i)
	if it.Key > now {
		// cannot fail: the hold [now, end) is part of what the start added
		_ = r.Prof.Remove(now, it.Key, it.Val.amt)
		return true, true
	}
	return true, false
}

// HoldsOnly makes the profile hold the running jobs alone from now on:
// every other hold (the reservations of a policy that builds its schedule
// again from scratch, or of a re-plan) is dropped, in O(R log R) for R
// running jobs where taking the reservations out one by one costs one
// update each. What the profile held before now is forgotten (no search
// starts there). The same for processors and requirement vectors.
func (r *tracker[A, P]) HoldsOnly(now int64) {
	r.Prof.Reset()
	for _, it := range r.run.Items() {
		if s, e := max(it.Val.start, now), it.Key; e > s {
			_ = r.Prof.Add(s, e, it.Val.amt) // within the machine: it was held
		}
	}
}

// Overrunning reports whether some running job has reached the end of its
// hold at now.
func (r *tracker[A, P]) Overrunning(now int64) bool {
	return r.run.Len() > 0 && r.run.At(0).Key <= now
}

// FirstEnd is the earliest end of a running job's hold (the first instant
// at which Overrunning may hold), and false when no job runs.
func (r *tracker[A, P]) FirstEnd() (int64, bool) {
	if r.run.Len() == 0 {
		return 0, false
	}
	return r.run.At(0).Key, true
}

// Stale reports whether some running job's hold ended before now: a job
// still running past the end of its hold, not extended by a pass since.
func (r *tracker[A, P]) Stale(now int64) bool {
	return r.run.Len() > 0 && r.run.At(0).Key < now
}

// Overran lists the running jobs past their estimates whose holds ended
// before now: jobs still running past the end of their hold, not extended
// by a pass since (a policy skips the passes that would only extend them;
// see CatchUp). Holds that end at now are not listed (the job may end at
// now; only the pass knows), nor the holds of jobs still within their
// estimate (a policy with predictions corrects those at its pass). Its
// cost is proportional to the number of holds that ended before now.
func (r *tracker[A, P]) Overran(now int64) []*job.Request { return r.run.overran(now) }

// OverrunUntil reports whether some job running past its estimate holds
// until t exactly: a hold that Extend or CatchUp lengthened to t (the job
// may end at any moment), not a hold that ends with the job's estimate or
// prediction. A policy uses it to skip the pass at t that would only
// extend such holds again (see package reservation, Book.Pass).
func (r *tracker[A, P]) OverrunUntil(t int64) bool {
	if r.Overrun == OverrunLimit || r.Overrun == OverrunDouble {
		return false // the pass at the end of a guessed hold applies the rule again
	}
	return r.run.overrunUntil(t)
}

// CatchUp lengthens the holds of jobs (from Overran(now)) by Extend's rule
// (Overrun: to now+1, or now + estimate), applied at now. The caller must
// first make room; CatchUp returns an error if the profile has none.
func (r *tracker[A, P]) CatchUp(now int64, jobs []*job.Request) error {
	for _, j := range jobs {
		i, _ := r.run.Find(j.ID)
		it := *r.run.At(i)
		end := r.overrunEnd(now, it.Val.start, j)
		if err := r.Prof.Add(it.Key, end, it.Val.amt); err != nil {
			return fmt.Errorf("extending the hold of job %d: %w", it.ID, err)
		}
		r.run.lengthen(i, end)
	}
	return nil
}

// Extend lengthens the hold of every overrunning job by the overrun rule
// (Overrun): to now+1, or to now + its estimate. The caller must first
// make room (remove reservations that start before the new ends); Extend
// returns an error if the profile has no room.
func (r *tracker[A, P]) Extend(now int64) error {
	for r.run.Len() > 0 && r.run.At(0).Key <= now {
		it := *r.run.At(0)
		end := r.overrunEnd(now, it.Val.start, it.Val.j)
		if err := r.Prof.Add(it.Key, end, it.Val.amt); err != nil {
			return fmt.Errorf("extending overrunning job %d: %w", it.ID, err)
		}
		r.run.lengthen(0, end)
	}
	return nil
}

// ExtendWith is Extend with a rule for the new end: the hold of every
// running job whose hold has ended by now is lengthened to next(j, start,
// end), where start is the job's start and end the end of its hold; a
// value ≤ now is replaced by now+1, and for a job past its estimate the
// overrun rule decides (Overrun: now+1 or now + estimate). A policy that plans
// with predictions passes the rule of its predict.Plan, which gives a job
// that outlived its prediction a corrected one. It returns the number of
// holds lengthened. As for Extend, the caller must first make room;
// ExtendWith returns an error if the profile has none.
func (r *tracker[A, P]) ExtendWith(now int64, next func(j *job.Request, start, end int64) int64) (int, error) {
	n := 0
	for r.run.Len() > 0 && r.run.At(0).Key <= now {
		it := *r.run.At(0)
		end := next(it.Val.j, it.Val.start, it.Key)
		if it.Val.start+it.Val.j.Estimate <= now {
			end = r.overrunEnd(now, it.Val.start, it.Val.j) // past its estimate: the rule
		} else if end <= now {
			end = now + 1
		}
		if err := r.Prof.Add(it.Key, end, it.Val.amt); err != nil {
			return n, fmt.Errorf("extending the hold of job %d: %w", it.ID, err)
		}
		r.run.lengthen(0, end)
		n++
	}
	return n, nil
}

// ExtendJob lengthens the hold of running job j, which has ended by now,
// to end (> now), and leaves every other hold alone: the tick strategy
// (policy.Extender) decides job by job, and another job whose hold ends at
// the same instant gets its own decision. The caller must first make room;
// ExtendJob returns an error, changing nothing, if the profile has none or
// j is not running with an ended hold.
func (r *tracker[A, P]) ExtendJob(now int64, j *job.Request, end int64) error {
	i, ok := r.run.Find(j.ID)
	if !ok {
		return fmt.Errorf("extending job %d: not running", j.SWFID)
	}
	it := *r.run.At(i)
	if it.Key > now || end <= now {
		return fmt.Errorf("extending job %d at %d: its hold ends at %d, new end %d", j.SWFID, now, it.Key, end)
	}
	if err := r.Prof.Add(it.Key, end, it.Val.amt); err != nil {
		return fmt.Errorf("extending the hold of job %d: %w", it.ID, err)
	}
	r.run.lengthen(i, end)
	return nil
}

// Running tracks the running jobs of a reservation-based policy in an
// availability profile: a job started at s with estimate e holds its
// processors over [s, s+e). A job still running at the end of its hold
// (possible only when jobs are not killed at their estimates) is an
// overrun: Extend lengthens its hold to now+1, i.e. the policy assumes it
// may end at any moment, which is the only assumption a scheduler that
// cannot see the runtime can make. Its methods are shared with RunningK
// (the same code for processors and requirement vectors).
type Running struct {
	tracker[int, *profile.Profile]
}

// NewRunning returns a tracker with an empty profile of procs processors.
func NewRunning(procs int) *Running {
	return &Running{tracker[int, *profile.Profile]{Prof: profile.New(procs)}}
}

// Start records that j started at now and holds its processors in the
// profile until now+estimate.
func (r *Running) Start(now int64, j *job.Request) error {
	return r.StartFor(now, j, j.Estimate)
}

// StartFor records that j started at now and holds its processors in the
// profile for dur seconds, until now+dur: a policy that plans with a
// runtime prediction (package predict) passes the predicted duration.
// Start(now, j) is StartFor(now, j, j.Estimate). dur must be ≥ 1.
func (r *Running) StartFor(now int64, j *job.Request, dur int64) error {
	return r.startFor(now, j, j.Procs, dur)
}
