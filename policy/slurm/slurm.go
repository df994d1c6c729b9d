// Package slurm is Slurm's scheduler as a policy: the main scheduler's
// priority pass and sched/backfill, over a priority order (by default
// Slurm's priority/multifactor, package slurm at the module root), with
// Slurm's parameter names and defaults (Slurm 22.05).
//
// The main scheduler takes the waiting jobs in priority order and starts
// each that fits now; in each partition it stops at the first job that
// does not. slurmctld's background loop (once a second) runs it every
// sched_interval and, after a submission or a job end, once
// batch_sched_delay has passed since the loop's last run (Options.EndLag
// or Options.Phases: in which second the loop first sees them). The
// backfill agent sleeps bf_interval after a
// cycle; when it wakes and nothing changed since (no submission, start,
// end or priority calculation) it retries every second, so a cycle runs
// at the first change. Each cycle takes the waiting jobs in priority
// order again, up to bf_max_job_test jobs (and
// bf_max_job_user per user): a job that fits now without touching the
// reservations made so far in this cycle starts; one that does not gets a
// reservation at its earliest such start, if within bf_window, rounded to
// bf_resolution. Reservations live for one cycle only, as in Slurm.
// Running jobs are planned to end at their time limits (the estimates).
//
// Reservations hold whole nodes in Slurm. On a machine of one-CPU nodes
// (SWF traces) a reservation holds its job's processors in the shared
// availability profile; on a single node (a slurm.conf with one NodeName
// of many CPUs, like the validation machine), it holds the whole node
// during its interval, which Slurm rounds down to bf_resolution at both
// ends. Machines of several multi-CPU nodes are simulated as one-CPU
// nodes (a simplification: reservations there hold only the CPUs, not
// whole nodes).
//
// Jobs beyond a partition's MaxTime or MaxNodes, or beyond a MaxSubmit
// limit (association or QOS), are rejected at submission (Slurm with
// EnforcePartLimits and submit-time limits; policy.Admitter); jobs held by
// a running limit (MaxJobs, the QOS's MaxJobsPerUser, GrpTRES=cpu) wait,
// skipped by both schedulers, until the limit allows them.
package slurm

import (
	"cmp"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/profile"
	"github.com/backfill-hpc/backfill/slurm"
)

// Policy is the slurm policy.
type Policy struct {
	c     slurm.Conf
	spec  string // the files it was built from, for Name
	procs int
	mf    *slurm.Multifactor // the associations, limits and partitions (and the default order)
	ord   policy.Ordering
	run   *policy.Running
	node  bool // single-node machine: reservations hold the whole node
	// waiting jobs, in the order's order when !stale
	wait  []*job.Request
	stale bool // wait must be re-sorted before the next pass
	// minProcs is at most the processors of every waiting job (0:
	// unknown): a job's submission lowers it, a backfill cycle that
	// scanned every waiting job sets it
	minProcs int
	epoch    int // the multifactor epoch wait was sorted at
	// changed: a job arrived, left or started, or priorities were
	// recalculated, since the last backfill cycle (without a change a
	// cycle would start nothing)
	changed  bool
	parts    int            // partitions (a pass may stop once all are blocked)
	limited  bool           // some limit may hold a waiting job
	refusing bool           // some limit may refuse a job at submission (refuses)
	counts   bool           // limited or refusing: the limits read the counts of submitted and running jobs
	dynamic  bool           // an order other than multifactor that changes with time
	cand     []bool         // the backfill cycle's candidates, by position
	cands    []int          // their positions, those still possible
	slack    int            // processors the top candidate has to spare (−1: unknown)
	minFree  []minFree      // prune's queries since the profile last changed
	plan     profile.Flat   // the cycle's profile: the running jobs, then its holds and starts (not on a single node)
	longest  []int64        // the longest estimate from each position on
	prev     []*job.Request // scratch of sorted
	// scratch of a pass
	blocked map[string]bool
	started []int
	rej     map[int]string // rejected at submission, with the reason
	// timing
	lastBf    int64 // the last backfill cycle
	lastSched int64 // the background loop's last main pass
	lastFull  int64 // the last periodic (sched_interval) pass
	// req is when the background loop first sees a pending request for
	// the main scheduler (a submission: at once; a job end: at the loop's
	// next wake, the next second), noReq for none
	req int64
	// reqLast is the latest of the pending requests' seconds: a pass
	// consumes the requests the loop has seen, not those it sees in the
	// next second (an end or submission after the pass in its second)
	reqLast   int64
	seenEpoch int   // the multifactor epoch Tick last saw
	endLag    int64 // Options.EndLag
	ph        *Phases
	frac      map[int]float64 // running jobs' start fractions (with ph)
	// epi are the main-scheduler passes that epilog-complete messages
	// asked for (with ph: the ends in Phases.Epilog), not yet run
	epi []instant
	// ending are the jobs that ended in this second, not yet released
	// (with ph: passes before an end's fraction do not see it)
	ending []ending
	// lateEnds are jobs that ended after this second's priority
	// calculation, whose multifactor bookkeeping waits for it
	lateEnds  []*job.Request
	changedAt int64 // the second of the last change
	// cg are the intervals (absolute, fractional seconds) in which the
	// node is completing a job (with ph, single node)
	cg [][2]float64
	// the reservations of the current backfill cycle
	blocks []block
	// the ends of the cycle's holds' windows that bf_resolution's rounding
	// left out of the holds (pastCycle)
	tails []hold
	// holds no start-now decision can meet, not yet in the profile, and
	// the earliest of their starts
	deferred    []hold
	minDeferred int64
	noDefer     bool // tests: no speed-up (every hold placed at once, every job tested, searches from now, the general main pass)
	loud        bool // tests: every wake-up Tick would ask for, none skipped (quiet)
	quiets      int  // tests: Ticks whose wake-up skipped some (quiet)
	// the cycle's earliest fits by job shape (estimate, processors: a
	// cache, an entry of an earlier cycle or overwritten is a miss), and
	// the shapes found beyond bf_window (bounds for later searches)
	fits  []fitEntry
	cycle int // the cycle's number, for fits
	far   []shape
	// the run of the cycle's last hold (sameRun), and its holds not yet in
	// plan (n == 0: none)
	same sameRun
	pend hold
	// plain: no limit, phases or bf_max_job_user (every job is tested)
	plain bool
	// searches started at a bound, jobs found beyond the window without
	// one, cycles not run because they would repeat the last one, jobs
	// held as a run's followers without a search (follows), and cycles
	// that went on from the last one (resumable) (tests)
	bounded, skipped, repeats, followers, resumes int
	// running jobs' planned ends and CPUs (single-node mode), for the
	// select plugin's will-run estimate
	ends   []runEnd
	tested map[string]int
	queue  []*job.Request
	// gen counts the changes of the running jobs' profile (starts, ends,
	// extensions); past is the last backfill cycle's record, from which a
	// cycle may prove that it would start nothing (repeat)
	gen  int
	past pastCycle
}

// pastCycle is the last backfill cycle run (in a plain configuration, not
// on a single node): enough of it to prove, at a later cycle, that the
// later one would place the same holds for the same jobs and start none
// of them, so that it may go on from the past cycle's plan
// (Policy.resumable) or, testing no new candidate, not run at all
// (Policy.repeat).
type pastCycle struct {
	ok    bool
	gen   int            // Policy.gen after it (its own starts included)
	q     []*job.Request // the waiting jobs up to the last one it tested, but those it started
	cands []*job.Request // its candidates after q, in order
	far   int64          // the earliest fit it found beyond bf_window (profile.Infinity: none)
}

type block struct{ start, end int64 }

// sameRun is the last hold a backfill cycle placed after a search, [t,
// e) for a job of shape sh, while the cycle's profile has changed since
// only by holds of the same shape over the same interval (the jobs after
// it in a run of identical jobs, which then need no search: Policy.follows).
// avail is the fewest free processors over [t, e) beside every hold, when
// known.
type sameRun struct {
	ok, known bool
	sh        shape
	t, e      int64
	avail     int
}

// shape is a job's estimate and processors.
type shape struct {
	d int64
	n int
}

// fitEntry is an earliest fit t of a job of shape sh found in cycle c.
type fitEntry struct {
	sh shape
	t  int64
	c  int
}

const fitSlots = 1024 // entries of Policy.fits (a power of 2)

// slot is sh's place in Policy.fits.
func (sh shape) slot() int {
	h := uint64(sh.d)*0x9e3779b97f4a7c15 ^ uint64(sh.n)*0xc2b2ae3d27d4eb4f
	return int(h>>32) & (fitSlots - 1)
}

// ending is a job that ended at a fraction of the current second.
type ending struct {
	j    *job.Request
	frac float64
	sec  int64
}

// instant is a second and a fraction of it.
type instant struct {
	sec  int64
	frac float64
}

// minFree is a query of prune: m processors free over [now, now+d).
type minFree struct {
	d int64
	m int
}

type runEnd struct {
	end  int64
	cpus int
	id   int
}
type hold struct {
	start, end int64
	n          int
}

const noReq = int64(1<<63 - 1)

var (
	_ policy.Scheduler = (*Policy)(nil)
	_ policy.Admitter  = admitting{}
)

// admitting is a Policy with admission control, for configurations with
// limits that refuse jobs at submission (Scheduler).
type admitting struct{ *Policy }

// Admitted implements policy.Admitter.
func (a admitting) Admitted(j *job.Request) (bool, string) { return a.Policy.admitted(j) }

// Scheduler is s as the engine should see it: with admission control
// (policy.Admitter) when the configuration has a limit that refuses jobs
// at submission (a partition's MaxTime or MaxNodes, a MaxSubmit, a
// GrpTRES=cpu), without otherwise.
func (s *Policy) Scheduler() policy.Scheduler {
	if s.refuses() {
		return admitting{s}
	}
	return s
}

// refuses reports whether the configuration has a limit that refuses jobs
// at submission.
func (s *Policy) refuses() bool {
	for _, p := range s.c.Partitions {
		if p.MaxTime != slurm.Infinite || p.MaxNodes != slurm.Infinite {
			return true
		}
	}
	return slurm.Refuses(s.mf.Tree())
}

// Options are the parts of a Policy not in slurm.conf.
type Options struct {
	// Conf is the slurm.conf excerpt's settings (the zero value:
	// slurm.DefaultConf(), Slurm's defaults).
	Conf slurm.Conf
	// Tree is the association tree of fair-share (nil: an empty one).
	Tree *slurm.Tree
	// Order replaces the multifactor priority of the configuration (nil:
	// multifactor).
	Order policy.Order
	// Resolver maps jobs to associations (nil: slurm.DefaultResolver).
	Resolver slurm.Resolver
	// Origin is a priority calculation instant (the others are Origin +
	// k·PriorityCalcPeriod), and BfStart slurmctld's start (the backfill
	// cycles fall at BfStart + k·bf_interval, the periodic main passes at
	// BfStart + k·sched_interval): the phases of Slurm's timers. Both
	// default to 0, the trace's clock origin; they must not be later than
	// the first submission.
	Origin, BfStart int64
	// EndLag is how many whole seconds after a job's end slurmctld's
	// background loop first sees it (0 or 1: the loop wakes once a second
	// at a sub-second phase that drifts; the recordings show both).
	// Ignored with Phases.
	EndLag int64
	// Phases, when set, are the sub-second phases of slurmctld's timers
	// (from a recording's log), which decide in which second the loop
	// first sees each submission and job end.
	Phases *Phases
	// SchedStart is a periodic pass of the main scheduler (slurmctld's
	// background loop; the next periodic ones fall sched_interval apart,
	// and batch submissions are scheduled batch_sched_delay after the last
	// pass of the loop); 0: BfStart.
	SchedStart int64
}

// New returns Slurm's scheduler on a machine of procs CPUs with the
// configuration and association tree of o, in the shape every policy
// package's constructor has (size, Config).
func New(procs int, o Options) *Policy {
	c, t := o.Conf, o.Tree
	if reflect.ValueOf(c).IsZero() {
		c = slurm.DefaultConf()
	}
	s := &Policy{c: c, procs: procs, run: policy.NewRunning(procs), rej: map[int]string{}, tested: map[string]int{}, fits: make([]fitEntry, fitSlots),
		blocked: map[string]bool{}, parts: max(1, len(c.Partitions)), req: noReq}
	s.mf = slurm.NewMultifactor(c, t, procs, o.Resolver, o.Origin)
	if o.Order != nil {
		s.ord = policy.NewOrdering(o.Order)
	} else {
		s.ord = policy.NewOrdering(s.mf)
	}
	s.node = c.Nodes == 1 && c.CPUs == procs && procs > 1
	s.limited = slurm.Holds(s.mf.Tree())
	s.plain = o.Phases == nil && c.BfMaxJobUser <= 0 && !s.limited
	s.refusing = s.refuses()
	s.counts = s.limited || s.refusing
	s.dynamic = s.ord.Dynamic && s.ord.O != policy.Order(s.mf)
	s.lastBf, s.lastSched, s.lastFull = o.BfStart, o.BfStart, o.BfStart
	s.endLag = o.EndLag
	if o.Phases != nil {
		s.ph = o.Phases
		s.frac = map[int]float64{}
	}
	if o.SchedStart != 0 {
		s.lastSched, s.lastFull = o.SchedStart, o.SchedStart
	}
	if o.Phases != nil && o.Phases.FullPass != 0 {
		s.lastFull = o.Phases.FullPass - c.SchedInterval
	}
	return s
}

// Multifactor is the policy's priority (also when another order is used:
// it holds the associations and their limits).
func (s *Policy) Multifactor() *slurm.Multifactor { return s.mf }

// Name implements policy.Scheduler.
func (s *Policy) Name() string {
	n := "slurm"
	d := slurm.DefaultConf()
	if s.c.BfInterval != d.BfInterval {
		n += ":bf_interval=" + strconv.FormatInt(s.c.BfInterval, 10)
	}
	if s.c.BfWindow != d.BfWindow {
		n += ":bf_window=" + strconv.FormatInt(s.c.BfWindow/60, 10)
	}
	if s.c.BfResolution != d.BfResolution {
		n += ":bf_resolution=" + strconv.FormatInt(s.c.BfResolution, 10)
	}
	if s.c.BfMaxJobTest != d.BfMaxJobTest {
		n += ":bf_max_job_test=" + strconv.Itoa(s.c.BfMaxJobTest)
	}
	if s.c.BfMaxJobUser != d.BfMaxJobUser {
		n += ":bf_max_job_user=" + strconv.Itoa(s.c.BfMaxJobUser)
	}
	if s.c.SchedInterval != d.SchedInterval {
		n += ":sched_interval=" + strconv.FormatInt(s.c.SchedInterval, 10)
	}
	if s.ord.O != policy.Order(s.mf) {
		n += ":order=" + s.ord.O.Name()
	}
	return n + s.spec
}

// Insert implements policy.Scheduler.
func (s *Policy) Insert(now int64, j *job.Request) {
	seen := now
	if s.ph != nil && s.ph.submit(j.ID) >= s.ph.Loop.WakeAt(now) {
		seen++ // the loop woke before the submission in its second
	}
	s.request(seen)
	if s.ph != nil {
		s.holdCalc(now, s.ph.submit(j.ID))
		// (a job submitted after the calculation gets its initial
		// priority from the factors before it; the calculation, before
		// any pass that sees the job, recomputes it)
	}
	if s.refusing {
		if r := s.admit(j); r != "" {
			s.rej[j.ID] = r
			return
		}
	}
	s.mf.Submitted(now, j)
	if s.ord.O != policy.Order(s.mf) {
		s.ord.Submitted(now, j)
	}
	s.count(j, false)
	s.change(now)
	s.minProcs = min(s.minProcs, j.Procs)
	if !s.stale && !s.dynamic && (s.ord.O != policy.Order(s.mf) || s.mf.Epoch() == s.epoch) {
		// the list is in order: insert at j's place
		var i int
		if s.ord.O == policy.Order(s.mf) {
			i, _ = slices.BinarySearchFunc(s.wait, j, s.mf.Compare)
		} else {
			i, _ = slices.BinarySearchFunc(s.wait, j, func(a, b *job.Request) int {
				if s.ord.O.Less(now, a, b) {
					return -1
				}
				if s.ord.O.Less(now, b, a) {
					return 1
				}
				return a.ID - b.ID
			})
		}
		s.wait = slices.Insert(s.wait, i, j)
		return
	}
	s.wait = append(s.wait, j)
	s.stale = true
}

// admit is the reason to reject j at submission, or "".
func (s *Policy) admit(j *job.Request) string {
	p := s.mf.Partition(j)
	if p.MaxTime != slurm.Infinite && j.Estimate > p.MaxTime {
		return fmt.Sprintf("PartitionTimeLimit: time limit %d s over partition %s's MaxTime %d s", j.Estimate, p.Name, p.MaxTime)
	}
	if n := s.mf.Nodes(j); p.MaxNodes != slurm.Infinite && n > p.MaxNodes {
		return fmt.Sprintf("PartitionNodeLimit: %d nodes over partition %s's MaxNodes %d", n, p.Name, p.MaxNodes)
	}
	a, q := s.mf.Job(j)
	in := s.mf.Info(j)
	if r := slurm.SubmitLimit(a, q, in.User, int64(j.Procs)); r != "" {
		return r
	}
	return ""
}

// admitted is Admitted of the admitting Policy.
func (s *Policy) admitted(j *job.Request) (bool, string) {
	if r, ok := s.rej[j.ID]; ok {
		delete(s.rej, j.ID)
		return false, r
	}
	return true, ""
}

// Remove implements policy.Scheduler.
func (s *Policy) Remove(now int64, j *job.Request) {
	s.change(now)
	late := false // an end after this second's priority calculation
	if _, running := s.run.Started(j); running {
		seen := now + s.endLag
		fe := 0.0 // the end's fraction of its second (with Phases)
		if s.ph != nil {
			// the end's fraction: the start's plus the launch and
			// completion overhead; the loop sees it in this second if it
			// wakes after it
			fe = s.frac[j.ID] + s.ph.overhead(j.ID)
			fe -= math.Floor(fe)
			if at, ok := s.ph.Ended[j.ID]; ok && int64(math.Floor(at)) == now {
				fe = at - math.Floor(at) // the recorded end, when it falls in this second
			}
			delete(s.frac, j.ID)
			// slurmctld counts the request when the job is completed
			// (slurmd's "already complete" reply, CompleteLag after
			// the end); the loop sees it in that second if it wakes
			// after it
			x := fe + s.ph.CompleteLag
			seen = now + int64(math.Floor(x))
			if x-math.Floor(x) >= s.ph.Loop.WakeAt(seen) {
				seen++
			}
			if d, ok := s.ph.Epilog[j.ID]; ok {
				// slurmd's epilog-complete message: slurmctld runs the
				// main scheduler at once (schedule(), not the loop's
				// request count), d seconds after the end
				x := fe + d
				s.epi = append(s.epi, instant{now + int64(math.Floor(x)), x - math.Floor(x)})
				seen = noReq
			}
		}
		s.request(seen)
		if s.ph != nil {
			late = s.holdCalc(now, fe)
			// the job holds its CPUs for the passes of this second
			// before its end's fraction (Tick releases it)
			s.ending = append(s.ending, ending{j, fe, now})
			if s.node {
				// the node is completing from the end until the job is
				// completed (epilog-complete message or the reply to the
				// terminate request): no job starts on it meanwhile
				c := s.ph.CompleteLag
				if d, ok := s.ph.Epilog[j.ID]; ok {
					c = d
				}
				s.cg = append(s.cg, [2]float64{float64(now) + fe, float64(now) + fe + c})
			}
		} else {
			s.release(now, j)
		}
	} else {
		if i := slices.Index(s.wait, j); i >= 0 {
			s.wait = slices.Delete(s.wait, i, i+1)
		}
	}
	if s.counts {
		a, q := s.mf.Job(j)
		for x := a; x != nil; x = x.Parent {
			slurm.CountSubmit(x, -1)
		}
		slurm.CountQOSSubmit(q, s.mf.Info(j).User, -1)
	}
	if late {
		// after the decay thread's pass of this second: its
		// bookkeeping waits for the calculation (Tick)
		s.lateEnds = append(s.lateEnds, j)
		return
	}
	s.mf.Ended(now, j)
	if s.ord.O != policy.Order(s.mf) {
		s.ord.Ended(now, j)
	}
}

// holdCalc keeps a priority calculation due in second now (with
// Phases: at the fraction Phases.Calc of it) for Tick, which runs it
// between the passes of the second, and reports whether an event at
// fraction f of the second comes after it.
func (s *Policy) holdCalc(now int64, f float64) bool {
	if s.ph.Calc <= 0 || s.mf.NextCalc() != now {
		return false
	}
	s.mf.Hold(now)
	return f >= s.ph.Calc
}

// release frees the CPUs of j, which ended at now.
func (s *Policy) release(now int64, j *job.Request) {
	s.run.End(now, j)
	s.gen++
	for i, e := range s.ends {
		if e.id == j.ID {
			s.ends = slices.Delete(s.ends, i, i+1)
			break
		}
	}
	if s.counts {
		a, q := s.mf.Job(j)
		slurm.CountRun(a, q, s.mf.Info(j).User, int64(j.Procs), -1)
	}
}

// completing reports whether the node is completing a job at fraction f
// of second now (with Phases, on a single node), and forgets the
// intervals that are over.
func (s *Policy) completing(now int64, f float64) bool {
	t := float64(now) + f
	in := false
	k := 0
	for _, c := range s.cg {
		if c[1] <= t+1e-9 { // (the pass an epilog-complete message asks for comes at its end)
			continue
		}
		s.cg[k] = c
		k++
		if c[0] <= t {
			in = true
		}
	}
	s.cg = s.cg[:k]
	return in
}

// releaseTo releases the jobs that ended in this second at a fraction
// up to f (with Phases).
func (s *Policy) releaseTo(now int64, f float64) {
	k := 0
	for _, e := range s.ending {
		if e.frac <= f {
			s.release(now, e.j)
		} else {
			s.ending[k] = e
			k++
		}
	}
	clear(s.ending[k:])
	s.ending = s.ending[:k]
}

// Tick implements policy.Scheduler.
func (s *Policy) Tick(now int64, start func(*job.Request)) int64 {
	if len(s.ending) > 0 {
		// jobs that ended in an earlier second, or past their planned
		// end (they would look overrunning), go at once
		k := 0
		for _, e := range s.ending {
			if st, _ := s.run.Started(e.j); e.sec < now || st+e.j.Estimate <= now {
				s.release(now, e.j)
			} else {
				s.ending[k] = e
				k++
			}
		}
		clear(s.ending[k:])
		s.ending = s.ending[:k]
	}
	s.run.Prof.Forget(now)
	if s.run.Overrunning(now) {
		if err := s.run.Extend(now); err != nil {
			panic("slurm: " + err.Error()) // unreachable: no reservation is held between passes
		}
		s.gen++
		s.change(now) // the running jobs' planned ends moved
	}
	advance := func(t int64) {
		s.mf.Advance(t)
		if s.ord.O != policy.Order(s.mf) {
			s.ord.Advance(t)
		}
		if e := s.mf.Epoch(); e != s.seenEpoch {
			// a priority calculation updates every pending job (Slurm's
			// last_job_update, which the backfill agent watches)
			s.seenEpoch = e
			if len(s.wait) > 0 {
				s.change(now)
			}
		}
	}
	// with Phases, a priority calculation in this second comes at the
	// decay thread's fraction: the passes before it see the old
	// priorities
	late := s.ph != nil && s.ph.Calc > 0 && s.mf.NextCalc() == now
	if late {
		s.mf.Hold(now)
	}
	advance(now)
	startFrac := 0.0 // the start's fraction of a second (with Phases)
	launch := func(j *job.Request) {
		if s.ph != nil {
			s.frac[j.ID] = startFrac
		}
		if err := s.run.Start(now, j); err != nil {
			panic("slurm: " + err.Error()) // unreachable: it fits
		}
		if s.counts {
			a, q := s.mf.Job(j)
			slurm.CountRun(a, q, s.mf.Info(j).User, int64(j.Procs), 1)
		}
		if s.node {
			s.ends = append(s.ends, runEnd{now + j.Estimate, j.Procs, j.ID})
		}
		s.gen++
		s.mf.Started(now, j)
		if s.ord.O != policy.Order(s.mf) {
			s.ord.Started(now, j)
		}
		s.change(now)
		start(j)
	}
	// slurmctld's background loop (once a second): the periodic pass
	// every sched_interval (it keeps its phase: the loop wakes every
	// second), and a submission's pass once batch_sched_delay has passed
	// since the loop's last pass
	main := false
	// with Phases, the loop wakes in every second but those its drift
	// skips (a wake-up takes a little more than a second)
	wakes := s.ph == nil || s.ph.Loop.WakeAt(now) < 1
	if k := (now - s.lastFull) / s.c.SchedInterval; k > 0 {
		if s.lastFull+k*s.c.SchedInterval == now && !wakes {
			s.lastFull = now + 1 - s.c.SchedInterval // the periodic pass comes a second later
		} else {
			s.lastFull += k * s.c.SchedInterval
			s.lastSched = max(s.lastSched, s.lastFull)
			if s.lastFull == now {
				main = true
				s.consume(now)
			}
		}
	}
	if wakes && s.req <= now && now >= s.lastSched+s.c.BatchSchedDelay {
		main = true
		s.lastSched = now
		s.consume(now)
	}
	pass := func(frac float64) {
		if len(s.wait) > 0 && !s.completing(now, frac) {
			startFrac = frac
			s.mainPass(now, frac, launch)
		}
	}
	// the backfill agent sleeps bf_interval after a cycle, then retries
	// every second while nothing changed (Slurm's _more_work: a job was
	// submitted, started or ended, or priorities were recalculated); with
	// no job waiting, the cycles keep their phase
	retry := false
	cycle := func() {
		if now < s.bfDue() {
			return
		}
		switch {
		case len(s.wait) == 0:
			s.lastBf += (now - s.lastBf) / s.c.BfInterval * s.c.BfInterval
		default:
			s.sorted(now) // sets changed when the order changed
			if s.changed {
				s.lastBf = now
				if s.ph != nil {
					startFrac = s.ph.Backfill.At(now)
				}
				s.backfill(now, launch)
			} else {
				retry = true
			}
		}
	}
	if s.ph == nil {
		if main {
			pass(0)
		}
		cycle()
	} else {
		// in this second, in the order of their fractions: the loop's
		// pass, the passes of epilog-complete messages, the backfill
		// cycle
		bf := s.ph.Backfill.At(now)
		done := false
		steps := s.epi[:0:0]
		if main {
			steps = append(steps, instant{now, s.ph.Loop.WakeAt(now)})
		}
		k := 0
		for _, e := range s.epi {
			if e.sec <= now {
				steps = append(steps, instant{now, e.frac})
			} else {
				s.epi[k] = e
				k++
			}
		}
		s.epi = s.epi[:k]
		slices.SortStableFunc(steps, func(a, b instant) int { return cmp.Compare(a.frac, b.frac) })
		to := func(f float64) { // the events of this second up to f
			s.releaseTo(now, f)
			if late && f >= s.ph.Calc {
				s.mf.Hold(0)
				advance(now)
				late = false
				for _, j := range s.lateEnds {
					s.mf.Ended(now, j)
					if s.ord.O != policy.Order(s.mf) {
						s.ord.Ended(now, j)
					}
				}
				clear(s.lateEnds)
				s.lateEnds = s.lateEnds[:0]
			}
		}
		for _, st := range steps {
			if !done && bf < st.frac {
				to(bf)
				cycle()
				done = true
			}
			to(st.frac)
			pass(st.frac)
		}
		if !done {
			to(bf)
			cycle()
		}
		to(1)
	}
	if len(s.wait) == 0 {
		return policy.NoWake
	}
	wake := min(s.bfDue(), s.lastFull+s.c.SchedInterval)
	if retry {
		// nothing changed: the next change is an event (which ticks) or
		// a priority calculation
		wake = min(s.lastFull+s.c.SchedInterval, max(s.mf.NextCalc(), now+1))
	}
	if s.req != noReq {
		wake = min(wake, max(s.req, s.lastSched+s.c.BatchSchedDelay))
	}
	for _, e := range s.epi {
		wake = min(wake, e.sec)
	}
	wake = max(wake, now+1)
	if w, ok := s.quiet(now); ok && w > wake {
		s.quiets++
		return w
	}
	return wake
}

// quiet is the wake-up of a Tick at now that leaves the policy idle: the
// first of the wake-ups Tick would ask for, one after the other, that
// may do something (ok), skipping those that would do nothing. Without
// it the policy is woken for every periodic main pass (sched_interval)
// and every priority calculation while jobs wait, nearly all of which
// start nothing on a busy machine (SDSC-BLUE: 1.45 of 1.91 million
// passes had no event).
//
// Why that is exact. It applies only without Phases, in one partition
// without limits (mainPass's first loop), with no pending request for
// the main scheduler, in an order that does not change between
// calculations and a waiting list in that order, and when the first
// waiting job does not fit the free processors now. Let P be the
// earliest end of a running job's hold and C the next priority
// calculation when calculations change priorities (every weight 0:
// never). Until the next event (a submission or an end, which ticks, and
// the wake-up asked for then replaces this one), over [now, min(P, C)):
// the running jobs and their holds stay (a job overrunning its hold is
// seen at P at the earliest), so the free processors stay; the waiting
// list and its order stay (no calculation changes a priority); so a main
// pass there starts nothing (the first job still does not fit), and
// changes nothing but the timers that Tick sets again from the clock
// (lastFull, lastSched: the catch-up of Tick's first lines gives the same
// values); no request is pending for it to consume. A backfill cycle runs
// only at bfDue with a change pending (changed), which is kept as a
// wake-up; without a change pending, the cycles due retry and do
// nothing. So every wake-up Tick would ask for before min(P, C) does
// nothing, and the first at or after it is the one returned: an
// overrunning job is then extended, and a calculation's change noted, in
// the same second as without the skip. Tick's wake-ups, from a Tick at t
// without a request or an epilog pending: the next periodic pass and
// bfDue before bfDue (with or without a change pending), then (nothing
// changed, cycles retrying) the next periodic pass or the next
// calculation, whichever comes first.
func (s *Policy) quiet(now int64) (int64, bool) {
	if s.loud || s.ph != nil || s.req != noReq || s.parts != 1 || !s.plain || s.dynamic || s.stale ||
		(s.ord.O == policy.Order(s.mf) && s.mf.Epoch() != s.epoch) || len(s.wait) == 0 {
		return 0, false
	}
	if free := s.run.Prof.FreeAt(now); free > 0 && s.wait[0].Procs <= free {
		return 0, false // the next main pass starts it
	}
	p, ok := s.run.FirstEnd()
	if !ok {
		return 0, false
	}
	calc := s.mf.NextCalc()
	if !s.mf.Static() {
		p = min(p, calc)
	}
	bd := s.bfDue()
	if s.changed && bd <= now {
		return 0, false // (a cycle would have run)
	}
	// the first periodic pass and the first calculation at or after p
	per := s.c.SchedInterval
	next := s.lastFull + per
	if p > next {
		next += (p - next + per - 1) / per * per
	}
	if s.changed || p <= bd {
		// before bfDue, Tick wakes for the periodic passes and bfDue
		return min(next, max(bd, now+1)), true
	}
	// from bfDue on (or now, past it), with no change pending, for the
	// periodic passes and the calculations
	cp := s.c.CalcPeriod
	if p > calc {
		calc += (p - calc + cp - 1) / cp * cp
	}
	return min(next, calc), true
}

// bfDue is the second of the next backfill cycle: bf_interval after the
// last; with Phases, a second later when the agent's drifting phase goes
// round the second in between.
func (s *Policy) bfDue() int64 {
	t := s.lastBf + s.c.BfInterval
	if s.ph != nil {
		t += s.ph.Backfill.Shift(s.lastBf, t)
	}
	return t
}

// change notes a change at now (Slurm's last_job_update).
func (s *Policy) change(now int64) {
	s.changed = true
	s.changedAt = now
}

// request notes a request for the main scheduler that the background
// loop first sees in second seen (noReq: none; Slurm's job_sched_cnt).
func (s *Policy) request(seen int64) {
	if seen == noReq {
		return
	}
	s.req = min(s.req, seen)
	s.reqLast = max(s.reqLast, seen)
}

// consume is a pass of the loop in second now: it clears the requests
// the loop has seen; one it sees only in the next second stays.
func (s *Policy) consume(now int64) {
	if s.reqLast > now {
		s.req = s.reqLast
		return
	}
	s.req, s.reqLast = noReq, 0
}

// sorted is the waiting jobs in priority order at now.
func (s *Policy) sorted(now int64) []*job.Request {
	if s.dynamic || (s.ord.O == policy.Order(s.mf) && s.mf.Epoch() != s.epoch) {
		s.stale = true
	}
	if s.stale {
		s.prev = append(s.prev[:0], s.wait...)
		if s.ord.O == policy.Order(s.mf) {
			// (the same order: Compare is SortWaiting's comparison, a
			// total order)
			slices.SortFunc(s.wait, s.mf.Compare)
		} else {
			policy.SortWaiting(now, s.ord.O, s.wait)
		}
		s.stale = false
		s.epoch = s.mf.Epoch()
		if !slices.Equal(s.prev, s.wait) {
			s.change(now) // a new order may start other jobs
		}
	}
	return s.wait
}

// drop removes the jobs at positions idx (increasing) of the waiting
// list, moving the shorter side: the jobs after the first dropped one
// forward, or those before the last dropped one back (a cycle's starts
// are near the head of a long queue), the list then starting later in
// its array.
func (s *Policy) drop(idx []int) {
	if len(idx) == 0 {
		return
	}
	lo, hi := idx[0], idx[len(idx)-1]
	if hi+1 < len(s.wait)-lo {
		// the jobs before hi that stay move back, from the right
		w, next := hi, len(idx)-1
		for i := hi; i >= 0; i-- {
			if next >= 0 && idx[next] == i {
				next--
				continue
			}
			s.wait[w] = s.wait[i]
			w--
		}
		clear(s.wait[:w+1])
		s.wait = s.wait[w+1:]
		return
	}
	// the jobs before the first dropped stay where they are
	k, next := lo, 0
	for i := lo; i < len(s.wait); i++ {
		if next < len(idx) && idx[next] == i {
			next++
			continue
		}
		s.wait[k] = s.wait[i]
		k++
	}
	clear(s.wait[k:])
	s.wait = s.wait[:k]
}

// runnable reports whether j's running limits let it start now.
func (s *Policy) runnable(j *job.Request) bool {
	if !s.limited {
		return true
	}
	a, q := s.mf.Job(j)
	return slurm.RunLimit(a, q, s.mf.Info(j).User, int64(j.Procs)) == ""
}

// mainPass is the main scheduler: priority order, start what fits now,
// stop in a partition at its first job that does not fit.
func (s *Policy) mainPass(now int64, frac float64, launch func(*job.Request)) {
	free := s.run.Prof.FreeAt(now)
	s.started = s.started[:0]
	if s.parts == 1 && s.plain && !s.noDefer {
		// one partition, every job may start: up to the first that does
		// not fit
		for i, j := range s.sorted(now) {
			if free == 0 || j.Procs > free {
				break
			}
			launch(j)
			free -= j.Procs
			s.started = append(s.started, i)
		}
		s.drop(s.started)
		return
	}
	clear(s.blocked)
	for i, j := range s.sorted(now) {
		if len(s.blocked) == s.parts || free == 0 {
			break
		}
		part := s.mf.Partition(j).Name
		if s.blocked[part] || !s.runnable(j) || s.hidden(j, now, frac) {
			continue
		}
		if j.Procs <= free {
			launch(j)
			free -= j.Procs
			s.started = append(s.started, i)
			continue
		}
		s.blocked[part] = true
	}
	s.drop(s.started)
}

// backfill is one cycle of sched/backfill.
func (s *Policy) backfill(now int64, launch func(*job.Request)) {
	q := s.sorted(now)
	// Slurm compares whole seconds (last_job_update >= the last cycle's
	// end): a change in this second, even before the cycle, makes the
	// next cycle run
	s.changed = s.changedAt == now
	prof := s.run.Prof
	res := s.c.BfResolution
	s.blocks = s.blocks[:0]
	clear(s.tested)
	s.started = s.started[:0]
	tested := 0
	windowEnd := now + s.c.BfWindow
	free := prof.FreeAt(now)
	bfFrac := 0.0 // the cycle's fraction of its second (with Phases)
	if s.ph != nil {
		bfFrac = s.ph.Backfill.At(now)
	}
	// the candidates: the jobs the cycle will test that fit now beside
	// the running jobs alone (the profile holds only them now, and their
	// free processors only grow with time, so: that fit the free
	// processors) — only they may start in this cycle, so the cycle ends
	// after the last of them (none: it starts nothing), and a reservation
	// matters only if it starts before the longest later candidate would
	// end
	s.slack = -1 // the top candidate's: not known yet
	last := s.candidates(now, q, free, bfFrac)
	if s.noDefer {
		last = len(q) - 1 // tests: no pruning
	}
	if last < 0 {
		s.past.ok = false
		return
	}
	from, resumed := s.resumable(now, q)
	if resumed && s.repeat(q, from) {
		s.repeats++
		return
	}
	far := profile.Infinity // the earliest fit found beyond the window
	// whether a start took room from the end of a hold's window that the
	// hold does not cover (pastCycle)
	overTail := false
	clear(s.tested)
	tested = 0
	s.longest = slices.Grow(s.longest[:0], last+2)[:last+2]
	var long int64
	s.longest[last+1] = 0
	for i := last; i >= 0; i-- {
		if s.cand[i] {
			long = max(long, q[i].Estimate)
		}
		s.longest[i] = long
	}
	if resumed {
		// the last cycle's plan, tails, fits and fits beyond the window
		// go on (resumable); its deferred holds are placed unless every
		// candidate from here on ends before them
		s.resumes++
		far, tested = s.past.far, from
		if len(s.deferred) > 0 && s.minDeferred < now+s.longest[from] {
			s.settle()
			for _, h := range s.deferred {
				s.plan.AddFitted(h.start, h.end, h.n)
			}
			s.deferred = s.deferred[:0]
			s.same.ok = false
		}
	} else {
		if !s.node {
			// the cycle's holds go into a copy of the running jobs'
			// profile, thrown away when a cycle starts afresh
			s.plan.Load(prof, now)
		}
		s.tails = s.tails[:0]
		s.deferred = s.deferred[:0]
		s.cycle++
		s.far = s.far[:0]
		s.same.ok, s.pend.n = false, 0
	}
	stop := from - 1 // the last job tested
	for i := from; i <= last; i++ {
		j := q[i]
		if tested >= s.c.BfMaxJobTest {
			break
		}
		if !s.plain && !s.testable(j, now, bfFrac) {
			continue
		}
		tested++
		stop = i
		sh := shape{j.Estimate, j.Procs}
		if s.beyond(sh) {
			s.skipped++
			continue // its earliest fit is beyond the window too: no reservation
		}
		follower := s.follows(sh)
		t := s.same.t
		if !follower {
			s.settle()
			t = s.earliestAfter(now, s.bound(now, sh), j, windowEnd)
			if len(s.deferred) > 0 && t+j.Estimate > s.minDeferred {
				// the window reaches a deferred hold: place them all and ask
				// again (before the earliest deferred start the profile is
				// the same with or without them, so a window that ends
				// there needs none)
				for _, h := range s.deferred {
					// it fits: nothing placed since it was found meets it (a
					// window reaching the earliest deferred start places them
					// first), and each deferred hold ends before the ones
					// found before it start
					s.plan.AddFitted(h.start, h.end, h.n)
				}
				s.deferred = s.deferred[:0]
				s.same.ok = false
				t = s.earliestAfter(now, s.bound(now, sh), j, windowEnd)
			}
			if !s.node {
				s.fits[sh.slot()] = fitEntry{sh, t, s.cycle}
			}
		}
		if t == now {
			launch(j)
			if !s.node {
				s.plan.AddFitted(now, now+j.Estimate, j.Procs)
				s.same.ok = false
			}
			overTail = overTail || s.overTail(now+j.Estimate)
			free -= j.Procs
			s.started = append(s.started, i)
			if free == 0 || !s.prune(now, i, q, now, j.Procs) {
				break
			}
			continue
		}
		if t > windowEnd {
			if !s.node {
				// (sh is dominated by none of far: keep far's minimal shapes)
				s.far = slices.DeleteFunc(s.far, func(f shape) bool { return f.d >= sh.d && f.n >= sh.n })
				s.far = append(s.far, sh)
			}
			far = min(far, t)
			continue // beyond the window: no reservation
		}
		end := t + j.Estimate
		if s.node {
			b := block{t / res * res, end / res * res}
			if b.end > b.start {
				s.blocks = append(s.blocks, b)
			}
			continue
		}
		e := max(t+1, end/res*res)
		if e < end && !s.node {
			if h := (hold{e, end, j.Procs}); len(s.tails) == 0 || s.tails[len(s.tails)-1] != h {
				// (a run's followers would add the same one again)
				s.tails = append(s.tails, h)
			}
		}
		if t >= now+s.longest[i+1] && !s.noDefer {
			// no later job that starts now can run into it: the hold is
			// deferred, placed only when a later window reaches it
			if len(s.deferred) == 0 || t < s.minDeferred {
				s.minDeferred = t
			}
			s.deferred = append(s.deferred, hold{t, e, j.Procs})
			s.same.ok = false
			continue
		}
		s.hold(follower, sh, t, e, j.Procs) // it fits from t (e ≤ t + its estimate)
		if !s.prune(now, i, q, t, j.Procs) {
			break
		}
	}
	s.remember(q, from, stop, last, far, overTail)
	s.drop(s.started)
}

// remember keeps the record of the cycle (pastCycle), in a plain
// configuration off a single node: it tested the jobs up to position stop
// of q (going on from the past cycle at position from, resumable: 0 for
// a cycle run afresh) and started those at s.started, its candidates are s.cand up to
// last, far is the earliest fit it found beyond bf_window, and overTail
// whether one of its starts ran past the end of a hold found before it
// that was shorter than its job's window (which breaks the proof).
func (s *Policy) remember(q []*job.Request, from, stop, last int, far int64, overTail bool) {
	r := &s.past
	r.ok = s.plain && !s.node && !s.noDefer && !overTail
	if !r.ok {
		return
	}
	r.gen, r.far = s.gen, far
	// a resumed cycle (from > 0) started none of the past cycle's jobs,
	// which are q's first from (resumable): they stay
	r.q = r.q[:from]
	k := 0
	for i := from; i <= stop; i++ {
		if k < len(s.started) && s.started[k] == i {
			k++
			continue
		}
		r.q = append(r.q, q[i])
	}
	r.cands = r.cands[:0]
	for i := stop + 1; i <= last; i++ {
		if s.cand[i] {
			r.cands = append(r.cands, q[i])
		}
	}
}

// overTail reports whether a job just started until end took room that a
// hold's job would need over the part of its window the hold does not
// cover (s.tails): whether that part, as far as the start reaches into it,
// has fewer free processors than the job needs beside the cycle's starts
// and holds (more than it was searched beside: the holds after it).
func (s *Policy) overTail(end int64) bool {
	s.settle()
	for _, h := range s.tails {
		if h.start < end && s.plan.MinFree(h.start, min(h.end, end)) < h.n {
			return true
		}
	}
	return false
}

// resumable reports whether the backfill cycle at now, with waiting
// list q, may go on from the last cycle run (s.past) instead of starting
// afresh, and from which position of q: the last cycle's plan (its holds,
// starts and deferred holds) is the one this cycle would build for the
// jobs up to that position, and it starts none of them.
//
// Why that is exact. Let t0 be the past cycle's instant, R0 the running
// jobs' profile then and S the jobs it started (at t0). Nothing started,
// ended or was extended since (the same gen), so the running jobs'
// profile now is R0 + S, no planned end fell in (t0, now] (the job would
// have ended or been extended by now) and the profile is constant over
// [t0, now]. Induction on the jobs the past cycle tested and did not
// start, in order; let job k (n processors, estimate d) have been
// searched then beside R0, the starts before it and holds H that all
// start after now (as they will now). That profile is constant over [t0,
// now], so k's earliest fit t_k is not in (t0, now] (a window from there
// fits from t0 as well, and t_k ≠ t0 as k did not start): t_k > now, and
// from now nothing fits before t_k then, nor now, beside the starts after
// k too (they only take room). And t_k still fits now: over its hold
// [t_k, e) the past cycle's final profile (every start and hold) had
// room, and over the rest of its window, [e, t_k+d) when bf_resolution
// rounded the hold's end down, the starts left room too (overTail, checked
// at each start beside every start and hold before it, more than k was
// searched beside). So
// the cycle now finds the same t_k and places the same hold (after now),
// or none when t_k is beyond bf_window: no fit found beyond it then, nor
// a later one (a job skipped as beyond the window dominates one found
// beyond it and fits no earlier, then and now), is within it now (far >
// now + bf_window). So the cycle now, over the past cycle's jobs (q's
// first len(s.past.q), the same jobs in the same order), starts none and
// leaves the past cycle's final plan (the profile R0 + S and the same
// holds): it may go on from there. Where this cycle would have stopped
// before (no candidate left that fits now beside the holds), the jobs it
// tests in addition start nothing either (the candidates left do not fit
// beside more holds) and only lengthen the record. A cycle that starts
// nothing leaves no state behind (its holds go with it), so a cycle that
// would test no new candidate need not be run (repeat).
func (s *Policy) resumable(now int64, q []*job.Request) (int, bool) {
	r := &s.past
	if !r.ok || r.gen != s.gen || len(q) < len(r.q) || r.far <= now+s.c.BfWindow {
		return 0, false
	}
	for i, j := range r.q {
		if q[i] != j {
			return 0, false
		}
	}
	return len(r.q), true
}

// repeat reports whether the backfill cycle at now, which may go on from
// the past cycle at position from of q (resumable), would start nothing,
// as it tests no new candidate: every candidate after the past cycle's
// jobs was one of its candidates, none of which fitted now beside its
// holds (a cycle goes on past a job only while a candidate after it fits
// now beside the holds), in the same profile as now.
func (s *Policy) repeat(q []*job.Request, from int) bool {
	r := &s.past
	k := 0
	for _, i := range s.cands {
		if i < from {
			continue
		}
		for k < len(r.cands) && r.cands[k] != q[i] {
			k++
		}
		if k == len(r.cands) {
			return false
		}
		k++
	}
	return true
}

// testable reports whether the backfill cycle tests waiting job j at now
// (frac: the cycle's fraction of its second): it may run (runnable), is
// not hidden from this cycle (hidden), and its user has not reached
// bf_max_job_user tested jobs in the cycle; a job tested is counted for
// its user.
func (s *Policy) testable(j *job.Request, now int64, frac float64) bool {
	if !s.runnable(j) || s.hidden(j, now, frac) {
		return false
	}
	if s.c.BfMaxJobUser > 0 {
		u := s.mf.Info(j).User
		if s.tested[u] >= s.c.BfMaxJobUser {
			return false
		}
		s.tested[u]++
	}
	return true
}

// candidates finds the backfill cycle's candidates among the waiting jobs
// q in order (free processors now, the cycle at fraction bfFrac of its
// second), marks them in s.cand and lists them in s.cands, and returns
// the position of the last (−1: none). In a plain configuration every job
// is tested, the first bf_max_job_test; otherwise limits, phases or
// bf_max_job_user may skip jobs.
func (s *Policy) candidates(now int64, q []*job.Request, free int, bfFrac float64) int {
	s.cands = s.cands[:0]
	if s.plain && !s.noDefer && s.minProcs > free {
		// no waiting job fits the free processors: none is a candidate
		// (s.cand is not read then)
		return -1
	}
	s.cand = slices.Grow(s.cand[:0], len(q))[:len(q)]
	last := -1
	if s.plain {
		n := min(len(q), s.c.BfMaxJobTest)
		least := math.MaxInt
		for i, j := range q[:n] {
			least = min(least, j.Procs)
			s.cand[i] = j.Procs <= free
			if s.cand[i] {
				s.cands = append(s.cands, i)
				last = i
			}
		}
		if n == len(q) {
			s.minProcs = least
		}
		return last
	}
	tested := 0
	for i, j := range q {
		s.cand[i] = false
		if tested >= s.c.BfMaxJobTest {
			break
		}
		if !s.testable(j, now, bfFrac) {
			continue
		}
		tested++
		if j.Procs <= free {
			s.cand[i] = true
			s.cands = append(s.cands, i)
			last = i
		}
	}
	return last
}

// hidden reports whether j, submitted in this second, came after a pass
// at fraction frac of it (with Phases; never without).
func (s *Policy) hidden(j *job.Request, now int64, frac float64) bool {
	if s.ph == nil || j.Submit != now {
		return false
	}
	return s.ph.submit(j.ID) >= frac
}

// prune drops from the top of the candidate stack those that no longer
// fit now (holds and starts only take room, so one that does not fit now
// never will in this cycle; the deferred holds start after every later
// candidate would end) and reports whether a candidate after position i
// remains. It is called after n processors were taken from t on (a hold,
// or a start at now): the top candidate had slack processors to spare
// over its run when last checked, so it still fits, without a query, when
// the hold starts after its run ends or takes no more than the slack; the
// ones under it are checked in full.
func (s *Policy) prune(now int64, i int, q []*job.Request, t int64, n int) bool {
	if s.noDefer {
		return true
	}
	s.minFree = s.minFree[:0]
	for first := true; len(s.cands) > 0; first = false {
		k := s.cands[len(s.cands)-1]
		if k <= i {
			return false
		}
		d := q[k].Estimate
		if first && s.slack >= 0 {
			if t >= now+d {
				return true
			}
			if n <= s.slack {
				s.slack -= n
				return true
			}
		}
		// the free processors over [now, now+d) only shrink as d grows:
		// a query of this call for a d' ≤ d that found fewer than the
		// job needs rules it out, one for a d' ≥ d that found enough
		// admits it
		p, known := q[k].Procs, false
		for _, c := range s.minFree {
			if c.d <= d && c.m < p {
				known = true
				break
			}
			if c.d >= d && c.m >= p {
				s.slack = c.m - p // at least
				return true
			}
		}
		if !known {
			var m int
			if s.node {
				m = s.run.Prof.MinFree(now, now+d)
			} else {
				m = s.freeOver(now, now+d)
			}
			s.minFree = append(s.minFree, minFree{d, m})
			if m >= p {
				s.slack = m - p
				return true
			}
		}
		s.cands = s.cands[:len(s.cands)-1]
	}
	return false
}

// The bounds of a cycle's searches (not on a single node). Within a cycle
// the profile only loses room (holds and starts are added, the deferred
// ones count as placed), so a job whose estimate and processors are both
// at least another's, tested after it, cannot start before the other's
// earliest fit: every window before that one met an instant with fewer
// free processors than the other needed. Its search starts there (the
// same job shape: the last one's fit), and it is beyond the window
// without a search when the other was.

// bound is the earliest start a search for a job of shape sh may return
// in this cycle: the earliest fit of the last job of the same shape tested
// in it, or now.
func (s *Policy) bound(now int64, sh shape) int64 {
	if s.node || s.noDefer {
		return now
	}
	if e := s.fits[sh.slot()]; e.c == s.cycle && e.sh == sh {
		s.bounded++
		return max(e.t, now) // (a resumed cycle's start at the past cycle's instant)
	}
	return now
}

// beyond reports whether a job of shape sh has its earliest fit beyond
// the window in this cycle because a job of a shape it dominates had.
func (s *Policy) beyond(sh shape) bool {
	if s.noDefer {
		return false
	}
	for _, f := range s.far {
		if f.d <= sh.d && f.n <= sh.n {
			return true
		}
	}
	return false
}

// Runs of identical jobs (not on a single node). A queue often holds
// several jobs of one shape in a row (job arrays, a user's series); after
// the first of them is held at its earliest fit t over [t, e), the next
// one's earliest fit is t again when the hold left room for it: no
// earlier start (the bound of the same shape), and at t it needs n free
// processors over [t, e), where the holds of the run are, and over the
// rest of its window, [e, t+d), which nothing took since the first one
// fitted there. So while the cycle's profile changes only by the run's
// holds, a job of the run is held at t without a search when the fewest
// free processors over [t, e), kept as a count the run's holds lower, are
// at least n; and the run's holds go into the plan as one (Policy.pend),
// when something next reads or changes the plan (settle). A start, a
// deferred hold (the profile then differs from the plan after the
// deferred starts) or the deferred holds placed end the run; a hold
// after a search starts a new one.

// follows reports whether a job of shape sh is the next of the cycle's
// current run of identical jobs and fits at the run's start t.
func (s *Policy) follows(sh shape) bool {
	r := &s.same
	if !r.ok || r.sh != sh {
		return false
	}
	if !r.known {
		// the plan, and the run's holds not yet in it (all over [t, e))
		r.avail = s.plan.MinFree(r.t, r.e) - s.pend.n
		r.known = true
	}
	if r.avail < sh.n {
		return false
	}
	s.followers++
	return true
}

// hold places a hold of n processors over [t, e) found for a job of shape
// sh: a follower of the current run (follows) adds it to the run's
// pending holds, any other starts a new run.
func (s *Policy) hold(follower bool, sh shape, t, e int64, n int) {
	if s.noDefer {
		s.plan.AddFitted(t, e, n)
		return
	}
	if follower {
		s.pend.n += n
		s.same.avail -= n
		return
	}
	s.settle()
	s.pend = hold{t, e, n}
	s.same = sameRun{ok: true, sh: sh, t: t, e: e}
}

// freeOver is the fewest free processors over [now, end) beside the
// cycle's holds and starts (but the deferred ones): the plan's, with the
// run's pending holds when they reach into it — without placing them
// when the interval covers the run's [t, e), whose fewest are known
// (outside it the plan is the profile; within it the profile has avail,
// at most the plan's there), else placed first.
func (s *Policy) freeOver(now, end int64) int {
	if s.pend.n == 0 || s.pend.start >= end {
		return s.plan.MinFree(now, end)
	}
	if r := &s.same; r.ok && r.known && end >= r.e {
		return min(s.plan.MinFree(now, end), r.avail)
	}
	s.settle()
	return s.plan.MinFree(now, end)
}

// settle puts the run's pending holds into the plan.
func (s *Policy) settle() {
	if s.pend.n > 0 {
		s.plan.AddFitted(s.pend.start, s.pend.end, s.pend.n)
		s.pend.n = 0
	}
}

// earliestAfter is earliest with the search starting at after (≥ now), a
// bound below the earliest fit (bound).
func (s *Policy) earliestAfter(now, after int64, j *job.Request, limit int64) int64 {
	if s.node || after == now {
		return s.earliest(now, j, limit)
	}
	return s.plan.EarliestFit(after, j.Estimate, j.Procs)
}

// earliest is the earliest start ≥ now of j that fits the running jobs and
// touches no reservation of this cycle, or a time past limit.
//
// On a single node it follows _attempt_backfill: the node is unavailable
// while a reservation meets [t, t+limit] (the job then tries from that
// reservation's end); the start is the select plugin's will-run estimate
// (willRun) or t, whichever is later; and a start whose rounded interval
// meets a reservation is tried again from there.
func (s *Policy) earliest(now int64, j *job.Request, limit int64) int64 {
	d := j.Estimate
	if !s.node {
		return s.plan.EarliestFit(now, d, j.Procs)
	}
	res := s.c.BfResolution
	w := s.willRun(now, j)
	t := now
	for t <= limit {
		moved := false
		for _, b := range s.blocks {
			if b.end > t && b.start <= t+d {
				t = max(t, b.end)
				moved = true
			}
		}
		if moved {
			continue
		}
		st := max(w, t)
		if st == now {
			return now
		}
		rs, re := st/res*res, (st+d)/res*res
		clash := false
		for _, b := range s.blocks {
			if b.end > rs && b.start < re {
				clash = true
			}
		}
		if !clash {
			return st
		}
		if st == t {
			t++ // rounding meets a reservation the exact window does not
		} else {
			t = st
		}
	}
	return t
}

// willRun is cons_tres's will-run estimate of j's start on the running
// jobs alone (job_test.c): it frees the running jobs in order of their
// planned ends, in batches — the first batch up to the first end rounded
// up to a multiple of 30 s plus 30 s, each next batch's window doubled —
// and answers the end of the last job of the first batch after which j
// fits. So the estimate is often later than the exact earliest fit.
func (s *Policy) willRun(now int64, j *job.Request) int64 {
	free := s.run.Prof.FreeAt(now)
	if j.Procs <= free {
		return now
	}
	slices.SortFunc(s.ends, func(a, b runEnd) int {
		if a.end != b.end {
			return int(a.end - b.end)
		}
		return a.id - b.id
	})
	const first = 30
	var barrier int64
	window := int64(first)
	i := 0
	for i < len(s.ends) {
		if i == 0 {
			barrier = s.ends[0].end + first - s.ends[0].end%first
		}
		last := s.ends[i]
		free += last.cpus
		i++
		for i < len(s.ends) && s.ends[i].end <= barrier+window {
			last = s.ends[i]
			free += last.cpus
			i++
		}
		window *= 2 // at least once, then until the next end is in
		for i < len(s.ends) && s.ends[i].end > barrier+window {
			window *= 2
		}
		if j.Procs <= free {
			return max(last.end, now+1)
		}
	}
	return noReq // never (larger than the node)
}

// Phases are the sub-second phases of slurmctld's timers, read from a
// recording's log (Recording.Phases): Slurm's decisions are made at
// fractional instants, and which second a submission or a job end is
// first seen in decides which pass serves it.
type Phases struct {
	// Loop is the phase of the background loop's wake-ups (a fraction of
	// a second, by second), Backfill that of the backfill cycles' starts.
	Loop, Backfill Phase
	// Overhead is the fraction of a second a job's end comes after its
	// start plus its runtime's whole seconds (launch and completion; the
	// sleep jobs run exact seconds); Overheads, by job ID, replace it for
	// the jobs they list (a recording's jobs, measured).
	Overhead  float64
	Overheads map[int]float64
	// Submit is the fraction of its second at which a job is submitted;
	// Submits, by job ID, replace it for the jobs they list.
	Submit  float64
	Submits map[int]float64
	// Epilog lists, by job ID, the jobs whose end reached slurmctld as
	// slurmd's epilog-complete message (the batch step was still being
	// cleaned up when slurmctld's terminate request came), with the
	// seconds from the end to the message: slurmctld then runs the main
	// scheduler at once. The other ends are answered "already complete"
	// and only counted for the background loop. Which path an end takes
	// is a race inside slurmd (a recording's log tells; nothing in the
	// times predicts it).
	Epilog map[int]float64
	// Ended are, by job ID, the recorded ends (seconds with their
	// fractions): an end the schedule puts in the same second takes its
	// fraction from here (the start's fraction plus the overhead can be a
	// few milliseconds off).
	Ended map[int]float64
	// CompleteLag is how long the node stays completing after an end
	// whose job is not in Epilog (slurmd's "already complete" reply to
	// slurmctld's terminate request): main-scheduler passes in that
	// window start nothing.
	CompleteLag float64
	// Calc is the fraction of its second at which the decay thread
	// recalculates the priorities (it keeps its phase: it sleeps until
	// its start plus a multiple of PriorityCalcPeriod); 0: at the whole
	// second, before every pass.
	Calc float64
	// FullPass is the second of a periodic (sched_interval) pass of the
	// loop, the first; 0: unknown (Options.SchedStart decides).
	FullPass int64
}

func (p *Phases) submit(id int) float64 {
	if f, ok := p.Submits[id]; ok {
		return f
	}
	return p.Submit
}

func (p *Phases) overhead(id int) float64 {
	if f, ok := p.Overheads[id]; ok {
		return f
	}
	return p.Overhead
}

// Phase is a phase of a timer that drifts: marks of (second, fraction)
// in increasing seconds; between two marks the fraction moves linearly
// (the shorter way round the second), before the first and after the last
// it stays.
type Phase struct {
	T []int64
	F []float64 // unwrapped: F[i+1] − F[i] in (−0.5, 0.5]
}

// Mark adds a mark at second t (after the others) of fraction f.
func (p *Phase) Mark(t int64, f float64) {
	if n := len(p.F); n > 0 {
		d := f - (p.F[n-1] - math.Floor(p.F[n-1]))
		d -= math.Round(d)
		f = p.F[n-1] + d
	}
	p.T = append(p.T, t)
	p.F = append(p.F, f)
}

// Skips reports whether the timer skips second t: its drift carries the
// fraction past a whole second between t−1 and t, so the wake-up after
// the one in t−1 falls in t+1.
func (p *Phase) Skips(t int64) bool {
	return len(p.T) > 0 && math.Floor(p.at(t)) > math.Floor(p.at(t-1))
}

// Shift is how many times the timer's phase goes round the second
// between seconds a and b (a ≤ b).
func (p *Phase) Shift(a, b int64) int64 {
	if len(p.T) == 0 {
		return 0
	}
	return int64(math.Floor(p.at(b)) - math.Floor(p.at(a)))
}

// WakeAt is the fraction of second t at which a timer that wakes about
// once a second (slurmctld's background loop) wakes in it, or 1 when it
// skips t. Between two marks, at times a < b, it wakes n = round(b − a)
// times, evenly: at a + k(b − a)/n (so when its period is a little over a
// second some second has no wake-up, where the drift goes round); before
// the first mark and after the last it wakes at that mark's fraction.
func (p *Phase) WakeAt(t int64) float64 {
	n := len(p.T)
	if n == 0 {
		return 0
	}
	abs := func(i int) float64 { return float64(p.T[i]) + p.F[i] - math.Floor(p.F[i]) }
	i, _ := slices.BinarySearch(p.T, t)
	switch {
	case i < n && p.T[i] == t:
		return p.F[i] - math.Floor(p.F[i])
	case i == 0:
		return p.F[0] - math.Floor(p.F[0])
	case i == n:
		return p.F[n-1] - math.Floor(p.F[n-1])
	}
	a, b := abs(i-1), abs(i)
	k := math.Max(1, math.Round(b-a))
	per := (b - a) / k
	w := a + math.Ceil((float64(t)-a)/per-1e-9)*per
	if w >= float64(t+1) {
		return 1
	}
	return max(0, w-float64(t))
}

// At is the fraction at second t (0 without marks).
func (p *Phase) At(t int64) float64 {
	if len(p.T) == 0 {
		return 0
	}
	f := p.at(t)
	return f - math.Floor(f)
}

// at is the unwrapped phase at second t.
func (p *Phase) at(t int64) float64 {
	n := len(p.T)
	var f float64
	switch i, _ := slices.BinarySearch(p.T, t); {
	case i == 0:
		f = p.F[0]
	case i == n:
		f = p.F[n-1]
	case p.T[i] == t:
		f = p.F[i]
	default:
		a, b := p.T[i-1], p.T[i]
		f = p.F[i-1] + (p.F[i]-p.F[i-1])*float64(t-a)/float64(b-a)
	}
	return f
}
