// Package slack is slack-based priority backfilling (Talby & Feitelson).
//
// It is slack-based priority backfilling (Talby & Feitelson,
// "Supporting priorities and improving utilization of the IBM SP2
// scheduler using slack-based backfilling", §4).
//
// Every waiting job j has a scheduled start te, a priority p, an initial
// slack s0 and a current slack s. Priority p = (UP + PP + SP)/3 from the
// user, political and scheduler priorities; SP starts at 1/2, and once the
// job is first placed SP = min((te − CT)/(2·AWT), 1) and p and s0 are
// recomputed once (§4.3). s0 = (1 − p)·SF·AWT, infinite when PP = −∞.
// A delay of x seconds lowers s by x and a move earlier by x raises it;
// no schedule may make any s negative, so te0 + s0 (te0 the first
// placement) bounds the job's start.
//
// insert(j) (§4.2, §4.5, §4.6): for each time slot ts from the current
// time CT on, delay every waiting job scheduled at or after ts by j's
// estimate, put j at ts, and compress the delayed jobs — each moves to its
// earliest fit, never later than its delayed slot — in the order the
// heuristic gives (AST, AAT, DU, DC or DP). Price the schedule:
//
//	price = (te − CT)^αt · n^αu + Σ cost(ji, ti, j)
//	cost(ji, ti, j) = ni^αu · ti^αt · (pi/p)^αp · (s0i/si)^(αp·αf)  if ti ≤ si, else ∞
//
// and keep the cheapest; ties go to the schedule that moves the fewest
// jobs, then to the earliest ts. remove(j) (early end or cancellation)
// runs the same search with a dummy job of zero size and time, which
// yields a profit (a negative price) when jobs can move earlier. tick()
// starts the jobs whose te is now.
//
// Conventions the paper leaves open (docs/policies.md):
//   - ti^αt for negative ti is −|ti|^αt; a job with ti = 0 costs 0 and does
//     not count as moved.
//   - the fairness factor s0i/si uses max(si, 1) (seconds), so a job that
//     has used all its slack is very expensive to keep late but never
//     infinite; when s0i = 0 (SF = 0, or p = 1) the factor is 1.
//   - a job with p = −∞ (quota exceeded) costs nothing to move, and a new
//     job with p = −∞ may delay nobody (it runs only where it disturbs no
//     other job).
//   - the dummy of remove(j) has p = 1 and no price term of its own; since
//     its p scales every cost alike, it does not change the choice.
package slack

import (
	"fmt"
	"math"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/reservation"
	"github.com/backfill-hpc/backfill/profile"
)

// Heuristic chooses the one permutation of the delayed jobs that is priced
// at each slot (§4.6).
type Heuristic int

// The five heuristics of §4.6.
const (
	AST Heuristic = iota // ascending scheduled time (before the delay)
	AAT                  // ascending arrival time
	DU                   // descending utilization n × t
	DC                   // descending cost of a one-second delay
	DP                   // descending priority, then ascending arrival
	// All prices every permutation of the delayed jobs: the exact
	// (exponential) algorithm of §4.5, for up to MaxExhaustive delayed
	// jobs per slot (AST beyond). For worked examples and small studies.
	All
)

var heuristicNames = []string{"ast", "aat", "du", "dc", "dp", "all"}

func (h Heuristic) String() string { return heuristicNames[h] }

// ParseHeuristic reads a heuristic name (ast, aat, du, dc, dp).
func ParseHeuristic(s string) (Heuristic, error) {
	for i, n := range heuristicNames {
		if n == s {
			return Heuristic(i), nil
		}
	}
	return 0, fmt.Errorf("slack: unknown heuristic %q (ast, aat, du, dc, dp, all)", s)
}

// Params are the scheduler's parameters, with the paper's names.
type Params struct {
	// Au, At, Ap, Af are the weights αu, αt, αp, αf ∈ [0, 1] of
	// utilization, time, priority and fairness (requirement XV).
	Au, At, Ap, Af float64
	// SF is the slack factor: how many AWTs of slack a job of priority 0
	// gets.
	SF float64
	// AWT is the system's average wait time in seconds.
	AWT float64
	// Heuristic picks the permutation priced at each slot.
	Heuristic Heuristic
	// Order, when not nil, replaces Heuristic: the delayed jobs are
	// compressed in the queue order at the current time (policy.Order,
	// ties by arrival), e.g. sjf or Slurm's multifactor priority (parameter
	// order). Nil: the paper's heuristics.
	Order policy.Order
	// Window, when positive, bounds every search to the first Window
	// waiting jobs in order of their slots (parameter window, an
	// approximation that is not the paper's): only they may move, the
	// later ones keep their slots, and a new job is tried at the slots up
	// to the Window-th job's slot and at its conservative slot (its
	// earliest fit with every reservation kept). 0: every waiting job
	// (the paper's search).
	Window int
}

// DefaultParams are the paper's §5.2 settings: αu = αt = αp = αf = 1,
// SF = 3, AWT = 2401 s, AST.
func DefaultParams() Params {
	return Params{Au: 1, At: 1, Ap: 1, Af: 1, SF: 3, AWT: 2401, Heuristic: AST}
}

func init() {
	d := DefaultParams()
	policy.Register(policy.Info{
		Name: "slack",
		Doc:  "slack-based priority backfilling (Talby & Feitelson): price every schedule, keep the cheapest that delays no job beyond its slack",
		Params: []policy.Param{
			{Name: "au", Default: "1", Doc: "αu, weight of utilization (job size), in [0,1]"},
			{Name: "at", Default: "1", Doc: "αt, weight of time (delays), in [0,1]"},
			{Name: "ap", Default: "1", Doc: "αp, weight of priorities, in [0,1]"},
			{Name: "af", Default: "1", Doc: "αf, weight of fairness (slack already used), in [0,1]"},
			{Name: "sf", Default: "3", Doc: "SF, slack factor: initial slack = (1−p)·SF·AWT"},
			{Name: "awt", Default: "2401", Doc: "AWT, the system's average wait time in seconds (simulate accepts awt=auto: the mean wait of a conservative run)"},
			{Name: "h", Default: "ast", Doc: "heuristic: ast, aat, du, dc or dp (§4.6); all = every permutation (§4.5's exact algorithm, up to 7 delayed jobs)"},
			orderParam,
			{Name: "window", Default: "0", Doc: "search window, an approximation (not the paper's): only the first N waiting jobs by slot may move, the new job is tried up to the N-th one's slot and at its conservative slot; 0 or all = every waiting job (the paper)"},
		},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			prm := d
			for _, f := range []struct {
				key string
				dst *float64
				lo  float64
				hi  float64
			}{{"au", &prm.Au, 0, 1}, {"at", &prm.At, 0, 1}, {"ap", &prm.Ap, 0, 1}, {"af", &prm.Af, 0, 1},
				{"sf", &prm.SF, 0, math.Inf(1)}, {"awt", &prm.AWT, 0, math.Inf(1)}} {
				x, err := p.Float(f.key, *f.dst, f.lo, f.hi)
				if err != nil {
					return nil, fmt.Errorf("slack: %w", err)
				}
				*f.dst = x
			}
			if prm.AWT <= 0 && prm.SF > 0 {
				return nil, fmt.Errorf("slack: awt must be positive")
			}
			if v, ok := p["h"]; ok {
				h, err := ParseHeuristic(v)
				if err != nil {
					return nil, err
				}
				prm.Heuristic = h
			}
			w, err := p.Int("window", 0, 0)
			if err != nil {
				return nil, fmt.Errorf("slack: %w", err)
			}
			if w < 0 {
				return nil, fmt.Errorf("slack: window must be 0 (all) or positive, got %d", w)
			}
			prm.Window = w
			o, err := parseOrder(procs, p)
			if err != nil {
				return nil, err
			}
			prm.Order = o
			return New(procs, prm), nil
		},
	})
}

// sjob is a waiting job in the reservation book: Start is its scheduled
// start te, First its first placement te0, Dur its estimate, X its
// slack-based state.
type sjob = reservation.Entry[int, sstate]

// sstate is the slack-based state of a waiting job.
type sstate struct {
	sp, p float64 // scheduler priority; weighted priority (−Inf: quota)
	s0    float64 // initial slack (seconds, may be +Inf)
	bound int64   // te0 + s0 promised at submission (-1 if unbounded)

	// scratch for the search
	shifted int64 // slot after the delay of this candidate
	cand    int64 // slot after compression in this candidate
	key     float64
	lbt     float64 // lower bound of this job's cost in the search
	efr     int64   // earliest fit among the running jobs alone
	base    int64   // earliest fit with the jobs before it held (settledFrom)
	tau     int64   // it stays in a compression that releases only before τ (settledFrom)
}

// newJob is the entry of j, not yet placed.
func newJob(j *job.Request) *sjob {
	return &sjob{J: j, Need: j.Procs, Dur: j.Estimate}
}

// cmpWait is the order of the waiting list: (te, ID).
var cmpWait = reservation.Cmp[int, sstate]

// slackOf is x's current slack s = s0 − (te − te0).
func slackOf(x *sjob) float64 { return x.X.s0 - float64(x.Start-x.First) }

// setPriority sets x's scheduler priority sp, and from it p and s0.
func setPriority(x *sjob, sp float64, prm *Params) {
	x.X.sp = sp
	if math.IsInf(x.J.PP, -1) {
		x.X.p = math.Inf(-1)
		x.X.s0 = math.Inf(1)
		return
	}
	x.X.p = (x.J.UP + x.J.PP + sp) / 3
	x.X.s0 = (1 - x.X.p) * prm.SF * prm.AWT
	if x.X.s0 < 0 {
		x.X.s0 = 0
	}
}

// Policy is the slack-based priority scheduler.
type Policy struct {
	prm Params
	run *policy.Running
	// book holds the waiting jobs and their slots
	book *reservation.Book[int, sstate]
	runP map[int]float64 // priority of each running job, for Extend
	// ord is the queue order's plumbing (events to an observing order;
	// order.go)
	ord policy.Ordering

	// scratch
	order []*sjob
	slots []int64
	lb    []float64 // suffix lower bounds of the search
	// settle[i]: the jobs from i on stay at their slots in a slot's AST
	// compression once the released capacity lies before it (settledFrom)
	settle []int64
	// backup is the profile with the running jobs and W[:backupK] held,
	// for the slots of an insertion's search to go back to (compressAST);
	// backupK < 0: not made in this search
	backup  *profile.Profile
	backupK int
	steps   []profile.Step // scratch for the slots
	wslots  []int64
	merged  []int64
	best    []int64 // chosen slots of the delayed jobs, by position in wait
	// win: this search sees only the first Params.Window waiting jobs
	win bool
	// movedLo, movedHi bound the capacity released at this instant: the
	// release and the old slots of the jobs that remove's search moved
	// (compressRest)
	movedLo, movedHi int64
	failed           []failedFit // compressRest's failed searches
	// Stats of the search, for benchmarks and tests.
	Stats Stats
	// onSlot, when set (tests), sees each priced slot and its permutation.
	onSlot func(ts int64, order []*sjob)
	// noPrune disables the lower-bound pruning of the search (tests check
	// that pruning never changes the schedule).
	noPrune bool
	// noLazy disables the AST compression without the delayed holds
	// (compressAST; tests check that it never changes the schedule).
	noLazy bool
	// noSettle disables what settledFrom allows the AST compression: the
	// early end, the jobs left without a query, the queries' later start
	// (tests check that it never changes the schedule).
	noSettle bool
}

// Stats count the work of the search.
type Stats struct {
	Inserts, Removes int
	Slots            int // candidate slots priced
	Placements       int // compressions of single jobs
	Queries          int // earliest-fit queries of the AST compressions
	Unmovable        int // removes whose search was skipped: no job could move
	RestMoves        int // jobs beyond the window moved by compressRest
}

var (
	_ policy.Scheduler = (*Policy)(nil)
	_ policy.Guarantor = (*Policy)(nil)
	_ policy.Extender  = (*Policy)(nil)
)

// New returns the slack-based scheduler for a machine of procs processors.
func New(procs int, prm Params) *Policy {
	s := &Policy{prm: prm, run: policy.NewRunning(procs), runP: make(map[int]float64), ord: policy.NewOrdering(prm.Order)}
	s.book = reservation.NewScalar[sstate]("slack", s.run)
	s.book.Hooks.Release = s.reprice
	return s
}

// Name implements policy.Scheduler.
func (s *Policy) Name() string {
	d := DefaultParams()
	name := "slack"
	add := func(k string, v, def float64) {
		if v != def {
			name += ":" + k + "=" + strconv.FormatFloat(v, 'g', -1, 64)
		}
	}
	add("sf", s.prm.SF, d.SF)
	add("awt", s.prm.AWT, d.AWT)
	add("au", s.prm.Au, d.Au)
	add("at", s.prm.At, d.At)
	add("ap", s.prm.Ap, d.Ap)
	add("af", s.prm.Af, d.Af)
	if s.prm.Window > 0 {
		name += ":window=" + strconv.Itoa(s.prm.Window)
	}
	if s.prm.Order != nil {
		name += ":order=" + s.prm.Order.Name()
	} else if s.prm.Heuristic != d.Heuristic {
		name += ":h=" + s.prm.Heuristic.String()
	}
	return name
}

// Guarantee implements policy.Guarantor: te0 + s0, the bound of
// requirement IX, or -1 when the slack is infinite.
func (s *Policy) Guarantee(j *job.Request) int64 {
	if x, ok := s.book.Get(j.ID); ok {
		return x.X.bound
	}
	return -1
}

// powSigned is sign(t)·|t|^a, with 0 for t = 0.
func powSigned(t float64, a float64) float64 {
	switch {
	case t == 0:
		return 0
	case a == 1:
		return t
	case t < 0:
		return -math.Pow(-t, a)
	}
	return math.Pow(t, a)
}

// cost is cost(ji, ti, j) of §4.4 for moving x by t seconds in favour of a
// job of priority p; +Inf when t exceeds x's current slack.
func (s *Policy) cost(x *sjob, t int64, p float64) float64 {
	if t == 0 {
		return 0
	}
	sl := slackOf(x)
	if float64(t) > sl {
		return math.Inf(1)
	}
	if math.IsInf(x.X.p, -1) {
		return 0
	}
	if math.IsInf(p, -1) {
		if t > 0 {
			return math.Inf(1)
		}
		return 0
	}
	prm := &s.prm
	c := math.Pow(float64(x.J.Procs), prm.Au) * powSigned(float64(t), prm.At)
	if prm.Ap != 0 {
		c *= math.Pow(x.X.p/p, prm.Ap)
	}
	if e := prm.Ap * prm.Af; e != 0 && x.X.s0 != 0 {
		c *= math.Pow(x.X.s0/math.Max(sl, 1), e)
	}
	return c
}

// Price is the price of one schedule (exported for the paper's worked
// examples): the new job's own term (te−CT)^αt·n^αu plus the cost of every
// move.
func (s *Policy) ownTerm(te, now int64, n int) float64 {
	return powSigned(float64(te-now), s.prm.At) * math.Pow(float64(n), s.prm.Au)
}

func (s *Policy) hold(x *sjob, at int64)   { s.book.Hold(x, at) }
func (s *Policy) unhold(x *sjob, at int64) { s.book.Unhold(x, at) }

// Insert implements policy.Scheduler: insert(j) of §4.2.
func (s *Policy) Insert(now int64, j *job.Request) {
	s.book.Settle(now)
	s.ord.Submitted(now, j)
	s.Stats.Inserts++
	x := newJob(j)
	setPriority(x, 0.5, &s.prm)
	ts, found := s.search(now, x)
	if !found {
		// unreachable: the slot after every reservation always fits
		panic(fmt.Sprintf("slack: no slot for job %d", j.SWFID))
	}
	s.apply(x, ts)
	x.Start, x.First = ts, ts
	s.hold(x, ts)
	s.book.Insert(x)
	// §4.3: SP from the wait the placement implies; p and s0 once more
	sp := float64(ts-now) / (2 * s.prm.AWT)
	if s.prm.AWT <= 0 || sp > 1 {
		sp = 1
	}
	setPriority(x, sp, &s.prm)
	x.X.bound = -1
	if !math.IsInf(x.X.s0, 1) {
		x.X.bound = ts + int64(math.Floor(x.X.s0))
	}
}

// Remove implements policy.Scheduler: remove(j) of §4.2, for a running job
// that ended before its estimate or a waiting job that was cancelled. The
// search of remove runs once for all the releases of an instant, when all
// are known (settle, at the next Insert, Extend, pass or query), so that
// the schedule does not depend on the order in which the ends of one
// instant are reported.
func (s *Policy) Remove(now int64, j *job.Request) {
	s.ord.Ended(now, j)
	if _, running, _ := s.book.Remove(now, j); running {
		delete(s.runP, j.ID)
	}
}

// reprice runs the search with the zero dummy and applies the cheapest
// schedule.
func (s *Policy) reprice(now, freed, released int64) {
	if s.book.Len() == 0 {
		return
	}
	s.Stats.Removes++
	s.movedLo, s.movedHi = freed, released
	if s.noSettle || s.anyCanMove(now) {
		dummy := &sjob{J: &job.Request{ID: -1}, X: sstate{p: 1}}
		ts, found := s.search(now, dummy)
		if found {
			s.apply(nil, ts)
		}
	} else {
		s.Stats.Unmovable++
	}
	s.compressRest(now, s.movedLo, s.movedHi)
}

// compressRest, with a window (Params.Window), compresses the waiting jobs
// beyond it after remove's search, as conservative backfilling's
// compression does after a release (reservation.Book.Compress): in order
// of their slots, each to its earliest fit no later than its slot, every
// other reservation kept, where the fit must meet the capacity released
// at this instant — from freed to released, widened by the old slots of
// the window's jobs that remove's search moved and of the jobs moved here.
// A move earlier delays nobody and only adds slack, so the bounds hold;
// without it the jobs beyond the window would not use released capacity
// until they enter the window, and the machine would idle while they
// wait. A forward walk over the profile (profile.PrefixMax) skips the jobs
// for which no instant before their slot (and before released) has enough
// processors free.
func (s *Policy) compressRest(now, freed, released int64) {
	W := s.book.Wait()
	if s.prm.Window <= 0 || len(W) <= s.prm.Window {
		return
	}
	prof := s.run.Prof
	pm := prof.PrefixMax(now)
	moved := false
	failed := s.failed[:0]
	for _, w := range W[s.prm.Window:] {
		// a new start t < min(released, slot) has the processors free at
		// t itself; the bound never decreases along the list
		if w.Start <= now || pm.Before(min(w.Start, released)) < w.J.Procs {
			continue
		}
		d := max(w.J.Estimate, 1)
		after := max(now, freed-d+1)
		if after >= w.Start {
			continue
		}
		q := failedFit{n: w.J.Procs, d: d, after: after, limit: min(released, w.Start)}
		if q.dominatedBy(failed) {
			continue
		}
		t := prof.EarliestFitMovingBefore(after, d, w.J.Procs, w.Start, released)
		if t >= w.Start {
			if len(failed) < maxFailed {
				failed = append(failed, q)
			} else {
				failed[len(failed)%maxFailed] = q
			}
			continue
		}
		failed = failed[:0] // the profile changed
		old := w.Start
		s.unhold(w, old)
		s.hold(w, t)
		w.Start = t
		moved = true
		s.Stats.RestMoves++
		freed, released = min(freed, old), max(released, old+d)
		pm = prof.PrefixMaxAt(now, old) // the profile changed before old
	}
	s.failed = failed
	if moved {
		s.book.Sort()
	}
}

// failedFit is a search of compressRest that found no earlier start: a job
// of n processors and duration d, for starts in [after, limit).
type failedFit struct {
	n            int
	d            int64
	after, limit int64
}

// maxFailed is how many failed searches compressRest remembers.
const maxFailed = 8

// dominatedBy reports whether the search q must fail because one of the
// failed searches f did, on the same profile (as reservation.Book's
// compression): every start t in [f.after, f.limit) meets an instant x
// before the searched job's slot, inside [t, t+f.d), with fewer than f.n
// free; a job of n ≥ f.n and d ≥ f.d with a later slot (the jobs are
// visited in order of their slots) meets the same x from every such t, so
// with after ≥ f.after and limit ≤ f.limit it fails everywhere.
func (q failedFit) dominatedBy(failed []failedFit) bool {
	for _, f := range failed {
		if q.n >= f.n && q.d >= f.d && q.after >= f.after && q.limit <= f.limit {
			return true
		}
	}
	return false
}

// anyCanMove reports whether some waiting job the search sees (all of
// them, or the window's) could start earlier than its slot with every other
// reservation kept. When none can, remove's search is skipped: the dummy
// delays nobody, so every slot's compression starts from the schedule as
// it is, where the first job cannot move, then the next cannot either
// (nothing changed), and so on; every slot prices 0 with no job moved, the
// first (now) wins, and applying it changes nothing.
func (s *Policy) anyCanMove(now int64) bool {
	prof := s.run.Prof
	W := s.book.Wait()
	if s.prm.Window > 0 && len(W) > s.prm.Window {
		W = W[:s.prm.Window]
	}
	for _, w := range W {
		if w.Start > now && prof.EarliestFitMoving(now, w.J.Estimate, w.J.Procs, w.Start) < w.Start {
			return true
		}
	}
	return false
}

// Tick implements policy.Scheduler: start the jobs whose slot is now.
// Running jobs past their estimate (only without kills) have their holds
// extended to now+1 and the waiting jobs are re-placed in the order of
// their slots, possibly later than their slack allows — a scheduler that
// cannot kill cannot keep its promises (reservation.Book.Pass).
func (s *Policy) Tick(now int64, start func(*job.Request)) int64 {
	s.ord.Advance(now)
	start = s.ord.Wrap(now, start)
	s.book.Settle(now)
	return s.book.Pass(now, func(x *sjob) {
		s.runP[x.J.ID] = x.X.p
		start(x.J)
	})
}

// ExtensionShare is the tick strategy's extension, as a share of the
// job's estimate (§4.7: 10 %).
const ExtensionShare = 0.1

// Extend implements policy.Extender: the tick strategy of §4.7. When j
// reaches the end of its estimate t (or of an earlier extension) while
// still running, killing it costs n^αu · t^αt; an extension of 10 % of t is
// priced as a new job of j's size and priority that must start now (the
// search at the current slot alone: delayed waiting jobs pay their cost,
// and a delay beyond any slack makes it impossible). If that is cheaper,
// the schedule is applied, j's hold is lengthened, and the extension is
// returned; otherwise 0, and j is killed.
func (s *Policy) Extend(now int64, j *job.Request) int64 {
	s.book.SettleReleases()
	p, ok := s.runP[j.ID]
	if !ok {
		return 0
	}
	ext := int64(math.Ceil(ExtensionShare * float64(j.Estimate)))
	if ext < 1 {
		ext = 1
	}
	kill := math.Pow(float64(j.Procs), s.prm.Au) * math.Pow(float64(j.Estimate), s.prm.At)
	// j's hold ended at now; the extension is a job of j's size at now
	x := &sjob{J: &job.Request{ID: -2, Procs: j.Procs, Estimate: ext}, X: sstate{p: p}}
	ts, price, found := s.searchSlots(now, x, true)
	if !found || ts != now || price >= kill {
		return 0
	}
	s.apply(nil, ts)
	// only j's hold: another job reaching its estimate at the same instant
	// gets its own Extend call (or is killed and removed)
	if err := s.run.ExtendJob(now, j, now+ext); err != nil {
		panic("slack: " + err.Error()) // unreachable: the search found room
	}
	return ext
}

var _ policy.Planner = (*Policy)(nil)

// Planned implements policy.Planner: the slot te currently scheduled for
// waiting job j (it may move later within j's slack).
func (s *Policy) Planned(now int64, j *job.Request) (int64, bool) {
	return s.book.Planned(now, j)
}

// Reservations implements policy.Planner: every waiting job holds a slot.
func (s *Policy) Reservations(now int64, fn func(j *job.Request, start int64)) {
	s.book.Reservations(now, fn)
}
