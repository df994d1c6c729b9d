// Package deadline is deadline scheduling with admission control: QoPS, MSB and MRT.
//
// It is deadline scheduling with admission control, after
// Islam, Balaji, Sadayappan & Panda, "QoPS: A QoS based scheme for
// parallel job scheduling" (OSU-CISRC-4/03-TR21): the QoPS scheduler
// (§3, Figure 3) and the two schemes the paper adapts for comparison, the
// modified slack-based algorithm MSB (§2.2.1, Figure 1) and the modified
// real-time algorithm MRT (§2.2.2, Figure 2).
//
// A job may carry a completion deadline (job.Request.Deadline). At
// submission the scheduler either admits it — and then guarantees that it
// completes by its deadline, provided it does not run past its estimate —
// or rejects it at once (policy.Admitter). Jobs without a deadline get the
// artificial deadline submit + max(24 h, R · estimate) (§4.2), so that
// none starves.
//
// All three keep a schedule: every waiting job holds a reservation in the
// shared availability profile (package profile), alongside the running
// jobs, which are never moved. A schedule is feasible when every
// reservation ends by its job's (real or artificial) deadline. The three
// differ in how they look for a feasible schedule that includes the new
// job; when none is found the job is rejected and the old schedule kept
// unchanged, so an admission decision never changes afterwards:
//
//   - QoPS: for insertion points at positions 0, N/2, 3N/4, 7N/8, …, N of
//     the current schedule (N waiting jobs in reservation order), keep the
//     jobs before the point, sort the others with the new job by the
//     heuristic (EDF or LLF) and re-place them one by one, each at its
//     earliest fit; a job that would miss its deadline at list position T
//     is moved up to position mid(p, T) — the jobs from there to T go back
//     into the list, which is re-sorted, with the failed job at its head —
//     at most K times (the K-factor); the first insertion point that
//     yields a feasible schedule admits the job.
//   - MSB: the waiting jobs in a fixed order (AST: ascending scheduled
//     time, by default); the new job is tried at each of the N+1
//     positions: the jobs before it keep their reservations, the new job
//     takes its earliest fit, the jobs after it are re-placed in order;
//     each schedule is priced with the slack-based cost function, with
//     slack = deadline − (arrival + estimate), infinite when a deadline is
//     missed; the cheapest finite schedule is kept.
//   - MRT: all waiting jobs and the new one sorted by the heuristic; the
//     schedule is built from scratch job by job, each extension kept only
//     if the partial schedule stays strongly feasible (every job not yet
//     placed could still meet its deadline if placed next); otherwise the
//     next job in heuristic order is tried, and when none fits the last
//     placement is undone; every discarded extension counts as a
//     backtrack, and beyond the backtrack limit the job is rejected.
//
// docs/policies.md gives the formulas, the parameters and every decision
// the paper leaves open.
package deadline

import (
	"fmt"
	"math"
	"slices"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/reservation"
	"github.com/backfill-hpc/backfill/profile"
	specs "github.com/backfill-hpc/backfill/spec"
)

// Day is the least artificial deadline span of a job without a deadline
// (§4.2: max(24 hours, R · runtime)).
const Day = 24 * 3600

// Heuristic orders jobs for placement.
type Heuristic int

// The heuristics. EDF and LLF are those the paper names; AST is MSB's
// order of Figure 1.
const (
	// EDF is earliest deadline first: ascending deadline, then arrival.
	EDF Heuristic = iota
	// LLF is least laxity first: ascending laxity deadline − now −
	// estimate (the same order at every instant as deadline − estimate),
	// then arrival.
	LLF
	// AST is ascending scheduled time: the current reservation order (the
	// new job, which has none, is not sorted by it). MSB only.
	AST
)

var heuristicNames = []string{"edf", "llf", "ast"}

func (h Heuristic) String() string { return heuristicNames[h] }

// NonDeadline says what happens to a job without a deadline whose
// artificial deadline cannot be met.
type NonDeadline int

const (
	// Admit admits it anyway, at the end of the schedule (its earliest fit
	// after every reservation, moving nobody), and extends its artificial
	// deadline to the end of that reservation. Jobs without a deadline are
	// then never rejected. The default.
	Admit NonDeadline = iota
	// Reject rejects it like a deadline job.
	Reject
)

// Params are the parameters of the three schedulers, with the paper's
// names. Each scheduler reads the ones it uses.
type Params struct {
	// Kind is the scheduler: "qops", "msb" or "mrt" (set by Defaults).
	Kind string
	// H is the heuristic: EDF or LLF for QoPS and MRT; AST (default), EDF
	// or LLF for MSB.
	H Heuristic
	// K is QoPS's K-factor: how many deadline violations an insertion
	// point may repair before it is abandoned.
	K int
	// Sorted makes QoPS sort the new job into the temporary list with the
	// others by the heuristic, instead of placing it first at the
	// insertion point (the paper's text; Figure 3 does not say).
	Sorted bool
	// Backtrack is MRT's backtrack limit.
	Backtrack int
	// R is the relaxation factor of the artificial deadlines of jobs
	// without a deadline: submit + max(24 h, R · estimate).
	R float64
	// ND says what happens to a job without a deadline that cannot meet
	// its artificial deadline.
	ND NonDeadline
	// Au, At and Af are MSB's weights of utilization, time and fairness
	// in the slack-based cost function (Talby & Feitelson's αu, αt, αf;
	// the priorities are equal, so αp plays no role).
	Au, At, Af float64
}

// Defaults returns the default parameters of a scheduler kind ("qops",
// "msb" or "mrt"). The paper gives none of K, the backtrack limit or R for
// its main experiments; ours are documented in docs/policies.md.
func Defaults(kind string) Params {
	p := Params{Kind: kind, H: EDF, K: 5, Backtrack: 10, R: 5, Au: 1, At: 1, Af: 1}
	if kind == "msb" {
		p.H = AST
	}
	return p
}

func init() {
	for _, k := range []struct{ name, doc string }{
		{"qops", "QoPS deadline scheduling with admission control (Islam et al.): re-sorts the schedule at log N insertion points, repairing up to K deadline violations"},
		{"msb", "modified slack-based deadline scheduling with admission control (Islam et al. §2.2.1): the new job at each of N+1 positions, cheapest feasible schedule"},
		{"mrt", "modified real-time deadline scheduling with admission control (Islam et al. §2.2.2): heuristic order, strongly feasible partial schedules, limited backtracking"},
	} {
		kind := k.name
		d := Defaults(kind)
		params := []policy.Param{
			{Name: "h", Default: d.H.String(), Doc: "heuristic: edf (earliest deadline first) or llf (least laxity first)"},
			{Name: "r", Default: fmtF(d.R), Doc: "R, relaxation factor: a job without a deadline gets the artificial deadline submit + max(24 h, R·estimate)"},
			{Name: "nd", Default: "admit", Doc: "a job without a deadline whose artificial deadline cannot be met: admit (at the end of the schedule, deadline extended) or reject"},
		}
		switch kind {
		case "qops":
			params = append(params,
				policy.Param{Name: "k", Default: strconv.Itoa(d.K), Doc: "K-factor: deadline violations repaired per insertion point before it is abandoned"},
				policy.Param{Name: "new", Default: "first", Doc: "where the new job goes at an insertion point: first (reserved before the re-sorted jobs, §3's text) or sorted (sorted with them by the heuristic)"})
		case "msb":
			params[0].Doc = "order of the waiting jobs: ast (ascending scheduled time, Figure 1), edf or llf"
			params = append(params,
				policy.Param{Name: "au", Default: "1", Doc: "αu, weight of utilization (job size) in the cost, in [0,1]"},
				policy.Param{Name: "at", Default: "1", Doc: "αt, weight of time (delays) in the cost, in [0,1]"},
				policy.Param{Name: "af", Default: "1", Doc: "αf, weight of fairness (slack already used) in the cost, in [0,1]"})
		case "mrt":
			params = append(params, policy.Param{Name: "backtrack", Default: strconv.Itoa(d.Backtrack), Doc: "backtrack limit: discarded extensions before the job is rejected"})
		}
		policy.Register(policy.Info{
			Name: kind, Doc: k.doc, Params: params,
			New: func(procs int, p policy.Params) (policy.Scheduler, error) {
				prm, err := parseParams(kind, p)
				if err != nil {
					return nil, err
				}
				return New(procs, prm)
			},
		})
	}
}

func fmtF(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }

func parseParams(kind string, p policy.Params) (Params, error) {
	prm := Defaults(kind)
	if v, ok := p["h"]; ok {
		i := slices.Index(heuristicNames, v)
		if i < 0 || (Heuristic(i) == AST && kind != "msb") {
			allowed := "edf or llf"
			if kind == "msb" {
				allowed = "ast, edf or llf"
			}
			return prm, fmt.Errorf("%s: parameter h: expected %s, found %q", kind, allowed, v)
		}
		prm.H = Heuristic(i)
	}
	var err error
	if prm.R, err = p.Float("r", prm.R, 0, 1e6); err != nil {
		return prm, fmt.Errorf("%s: %w", kind, err)
	}
	if _, ok := p["new"]; ok {
		v, err := p.Enum("new", "", "first", "sorted")
		if err != nil {
			return prm, fmt.Errorf("%s: %w", kind, err)
		}
		prm.Sorted = v == "sorted"
	}
	if _, ok := p["nd"]; ok {
		v, err := p.Enum("nd", "", "admit", "reject")
		if err != nil {
			return prm, fmt.Errorf("%s: %w", kind, err)
		}
		prm.ND = Admit
		if v == "reject" {
			prm.ND = Reject
		}
	}
	for _, f := range []struct {
		key string
		dst *int
	}{{"k", &prm.K}, {"backtrack", &prm.Backtrack}} {
		v, ok := p[f.key]
		if !ok {
			continue
		}
		n, err := specs.Int64(f.key, v, 0, 1<<30)
		if err != nil {
			return prm, fmt.Errorf("%s: %w", kind, err)
		}
		*f.dst = int(n)
	}
	for _, f := range []struct {
		key string
		dst *float64
	}{{"au", &prm.Au}, {"at", &prm.At}, {"af", &prm.Af}} {
		x, err := p.Float(f.key, *f.dst, 0, 1)
		if err != nil {
			return prm, fmt.Errorf("%s: %w", kind, err)
		}
		*f.dst = x
	}
	return prm, nil
}

// djob is a waiting job with its reservation (Start; Dur is the
// estimate) in the reservation book.
type djob = reservation.Entry[int, dstate]

// dstate is the deadline policies' state of a waiting job.
type dstate struct {
	d int64 // deadline: the job's own, or the artificial one
	// scratch of the searches
	old  int64 // reservation before the current search
	cand int64 // reservation in the candidate schedule
	key  int64 // heuristic key
	pos  int   // QoPS: index in the reservation order during a decision
	rel  int   // QoPS: released at the insertion point of this epoch (qopsState)
}

// cmpWait is the order of the waiting list: (reservation, ID).
var cmpWait = reservation.Cmp[int, dstate]

// newJob is the entry of j with deadline d, not yet placed.
func newJob(j *job.Request, d int64) *djob {
	return &djob{J: j, Need: j.Procs, Dur: j.Estimate, X: dstate{d: d}}
}

// Stats count the decisions and the work of the searches.
type Stats struct {
	// Decisions is the number of jobs inserted; Rejected those rejected.
	Decisions, Rejected int
	// Extended is the number of jobs without a deadline admitted with an
	// extended artificial deadline (ND = Admit).
	Extended int
	// Placements is the number of earliest-fit placements the searches
	// made; Points the insertion points (QoPS) or positions (MSB) tried;
	// Violations QoPS's repaired or fatal deadline violations; Backtracks
	// MRT's discarded extensions.
	Placements, Points, Violations, Backtracks int
}

// Policy is a deadline scheduler with admission control: QoPS, MSB or MRT.
type Policy struct {
	kind string
	prm  Params
	run  *policy.Running
	// book holds the admitted waiting jobs and their reservations
	book *reservation.Book[int, dstate]
	// the decision on the job inserted last, for Admitted
	last       *job.Request
	lastOK     bool
	lastReason string
	// Stats of the decisions and searches.
	Stats Stats

	// scratch
	tl, placed []*djob
	byKey      []*djob          // the waiting jobs in the heuristic's order (keyed)
	qs         qopsState        // QoPS: the scratch of an insertion point
	fm         fitMemo          // the fits of the current admission decision
	ms         mrtScratch       // MRT: the per-job arrays of a decision
	mb         msbScratch       // MSB: the per-job arrays of a decision
	snap       *profile.Profile // MSB, MRT: the profile before a decision
	base       *profile.Profile // MSB: the profile before x is placed at a position
	fits       []int64
	// noPrune disables MSB's pruning (tests check that it changes nothing)
	noPrune bool
	// checkFits makes MRT check, after every backtrack, that the fits it
	// restored are the earliest (tests); the first error is kept in fitErr
	checkFits bool
	fitErr    error
	// refAdmit, when set, replaces the admission test (tests run the
	// literal versions of ref_test.go through it)
	refAdmit func(now int64, x *djob) bool
}

var (
	_ policy.Scheduler = (*Policy)(nil)
	_ policy.Admitter  = (*Policy)(nil)
	_ policy.Guarantor = (*Policy)(nil)
	_ policy.Planner   = (*Policy)(nil)
)

// New returns the scheduler prm.Kind ("qops", "msb" or "mrt") for a
// machine of procs processors, in the shape every policy package's
// constructor has (size, Config); start from Defaults(kind).
func New(procs int, prm Params) (*Policy, error) {
	kind := prm.Kind
	switch kind {
	case "qops", "msb", "mrt":
	default:
		return nil, fmt.Errorf("deadline: unknown scheduler %q (qops, msb, mrt)", kind)
	}
	if prm.H == AST && kind != "msb" {
		return nil, fmt.Errorf("%s: heuristic ast is for msb only", kind)
	}
	if procs < 1 {
		return nil, fmt.Errorf("%s: machine size must be at least 1, got %d", kind, procs)
	}
	s := &Policy{kind: kind, prm: prm, run: policy.NewRunning(procs)}
	s.book = reservation.NewScalar[dstate](kind, s.run)
	return s, nil
}

// Name implements policy.Scheduler: the kind and its non-default
// parameters.
func (s *Policy) Name() string {
	d := Defaults(s.kind)
	name := s.kind
	if s.prm.H != d.H {
		name += ":h=" + s.prm.H.String()
	}
	if s.kind == "qops" && s.prm.K != d.K {
		name += ":k=" + strconv.Itoa(s.prm.K)
	}
	if s.kind == "qops" && s.prm.Sorted {
		name += ":new=sorted"
	}
	if s.kind == "mrt" && s.prm.Backtrack != d.Backtrack {
		name += ":backtrack=" + strconv.Itoa(s.prm.Backtrack)
	}
	if s.prm.R != d.R {
		name += ":r=" + fmtF(s.prm.R)
	}
	if s.prm.ND == Reject {
		name += ":nd=reject"
	}
	if s.kind == "msb" {
		for _, w := range []struct {
			k    string
			v, d float64
		}{{"au", s.prm.Au, d.Au}, {"at", s.prm.At, d.At}, {"af", s.prm.Af, d.Af}} {
			if w.v != w.d {
				name += ":" + w.k + "=" + fmtF(w.v)
			}
		}
	}
	return name
}

// Deadline is the deadline the scheduler guarantees to j: its own, or for
// a job without one, the artificial submit + max(24 h, R · estimate).
func (s *Policy) Deadline(j *job.Request) int64 {
	if j.Deadline > 0 {
		return j.Deadline
	}
	span := math.Max(Day, math.Ceil(s.prm.R*float64(j.Estimate)))
	if span > float64(math.MaxInt64/4) {
		span = float64(math.MaxInt64 / 4)
	}
	return j.Submit + int64(span)
}

// Waiting is the number of admitted jobs that have not started.
func (s *Policy) Waiting() int { return s.book.Len() }

func (s *Policy) hold(x *djob, at int64) { s.book.Hold(x, at) }

// unhold releases x's hold at at; the fit memo of the decision learns of
// the released capacity.
func (s *Policy) unhold(x *djob, at int64) {
	s.book.Unhold(x, at)
	s.fm.released(at)
}

// fit is x's earliest fit from now in the profile as it stands (its search
// shortened by the fits found before in the same decision, memo.go).
func (s *Policy) fit(now int64, x *djob) int64 {
	s.Stats.Placements++
	return s.memoFit(now, x)
}

// setKey sets x.X.key, the heuristic's key: the deadline (EDF) or the
// latest start, deadline − estimate (LLF). It is fixed once x is admitted.
func (s *Policy) setKey(x *djob) {
	x.X.key = x.X.d
	if s.prm.H == LLF {
		x.X.key = x.X.d - x.J.Estimate
	}
}

// cmpKey orders by the heuristic's key, ties by arrival (ID).
func cmpKey(a, b *djob) int {
	if a.X.key != b.X.key {
		if a.X.key < b.X.key {
			return -1
		}
		return 1
	}
	return a.J.ID - b.J.ID
}

// byHeuristic returns the waiting jobs in the heuristic's order (EDF or
// LLF, ties by arrival), with x among them when x is not nil, in
// dst[:0]: s.byKey, with x merged in, as a sort of them all would order
// them (the keys are fixed once a job is admitted).
func (s *Policy) byHeuristic(dst []*djob, x *djob) []*djob {
	dst = append(dst[:0], s.byKey...)
	if x != nil {
		s.setKey(x)
		i, _ := slices.BinarySearchFunc(dst, x, cmpKey)
		dst = slices.Insert(dst, i, x)
	}
	return dst
}

// keyed reports whether s keeps s.byKey: QoPS and MRT, and MSB with a
// heuristic other than AST.
func (s *Policy) keyed() bool { return s.kind != "msb" || s.prm.H != AST }

// keyInsert and keyDelete keep s.byKey, the waiting jobs in the
// heuristic's order (QoPS takes the released jobs in that order at every
// insertion point, MRT and MSB with EDF or LLF the whole queue at every
// decision: filtering or copying this list is O(N) where sorting them
// again was O(N log N)).
func (s *Policy) keyInsert(x *djob) {
	if !s.keyed() {
		return
	}
	s.setKey(x)
	i, _ := slices.BinarySearchFunc(s.byKey, x, cmpKey)
	s.byKey = slices.Insert(s.byKey, i, x)
}

func (s *Policy) keyDelete(x *djob) {
	if !s.keyed() {
		return
	}
	if i, ok := slices.BinarySearchFunc(s.byKey, x, cmpKey); ok {
		s.byKey = slices.Delete(s.byKey, i, i+1)
	}
}

// Insert implements policy.Scheduler: the admission decision. The caller
// asks Admitted(j) right after.
func (s *Policy) Insert(now int64, j *job.Request) {
	s.book.Settle(now)
	s.Stats.Decisions++
	x := newJob(j, s.Deadline(j))
	s.last, s.lastOK, s.lastReason = j, false, ""
	var ok bool
	reason := ""
	s.fm.reset(memoSize(s.kind, s.book.Len()))
	switch {
	case x.X.d < now+j.Estimate:
		reason = fmt.Sprintf("deadline %d is before submission + estimate (%d)", x.X.d, now+j.Estimate)
	case s.kind == "qops":
		ok = s.qops(now, x)
	case s.kind == "msb":
		ok = s.msb(now, x)
	default:
		ok = s.mrt(now, x)
	}
	s.fm.reset(0)
	if !ok && j.Deadline <= 0 && s.prm.ND == Admit {
		// a job without a deadline: at the end of the schedule, moving nobody
		x.Start = s.fit(now, x)
		x.X.d = max(x.X.d, x.Start+j.Estimate)
		s.hold(x, x.Start)
		s.book.Insert(x)
		s.Stats.Extended++
		ok = true
	}
	if !ok {
		if reason == "" {
			reason = s.reason()
		}
		s.reject(reason)
		return
	}
	s.book.Index(x)
	s.keyInsert(x)
	s.lastOK = true
}

func (s *Policy) reject(reason string) {
	s.Stats.Rejected++
	s.lastReason = reason
}

func (s *Policy) reason() string {
	switch s.kind {
	case "qops":
		return fmt.Sprintf("no feasible schedule at any insertion point (K-factor %d)", s.prm.K)
	case "msb":
		return "no feasible schedule at any position"
	default:
		return fmt.Sprintf("no strongly feasible schedule within %d backtracks", s.prm.Backtrack)
	}
}

// Admitted implements policy.Admitter. It answers for the job inserted
// last; for any other job it reports whether the job is admitted and has
// not started yet.
func (s *Policy) Admitted(j *job.Request) (bool, string) {
	if j == s.last {
		return s.lastOK, s.lastReason
	}
	if _, ok := s.book.Get(j.ID); ok {
		return true, ""
	}
	return false, "unknown job"
}

// Guarantee implements policy.Guarantor: for an admitted job that has not
// started, the latest start that meets its deadline (deadline − estimate,
// the artificial deadline for a job without one); -1 otherwise. The
// scheduler never starts the job later (when jobs are killed at their
// estimates).
func (s *Policy) Guarantee(j *job.Request) int64 {
	if x, ok := s.book.Get(j.ID); ok {
		return x.X.d - x.J.Estimate
	}
	return -1
}

// Planned implements policy.Planner: the reservation of an admitted
// waiting job. It may move (earlier or later) when later jobs are
// admitted, but never past the job's deadline − estimate (Guarantee).
func (s *Policy) Planned(now int64, j *job.Request) (int64, bool) {
	return s.book.Planned(now, j)
}

// Reservations implements policy.Planner: every admitted waiting job with
// its reservation, in (start, ID) order.
func (s *Policy) Reservations(now int64, fn func(j *job.Request, start int64)) {
	s.book.Reservations(now, fn)
}

// Remove implements policy.Scheduler. A running job that ends before its
// estimate, or a waiting job that is cancelled, frees capacity: the
// schedule is compressed (reservation.Book.Compress), each waiting job in
// reservation order moving to its earliest fit, never later (so every
// deadline still holds). As in conservative backfilling, the compression
// waits until every release of the instant is known (Settle, at the next
// Insert, pass or query). The compression searches a job of duration d
// from freed − d + 1 only (freed: the start of the released capacity), so
// that a cancellation far in the future does not query every waiting job
// from now (the live service's cancellations);
// TestCancellationsEqualFullSearch checks the result against the search
// from now.
func (s *Policy) Remove(now int64, j *job.Request) {
	if x, _, _ := s.book.Remove(now, j); x != nil {
		s.keyDelete(x)
	}
}

// Tick implements policy.Scheduler: start every job whose reservation is
// now. Running jobs past their estimate (possible only when jobs are not
// killed) have their holds extended to now+1 and the waiting jobs are
// re-placed in reservation order, each at its earliest fit, possibly
// later than before and past their deadlines — a scheduler that cannot
// kill cannot keep a promise an overrun breaks (the auditor reports such
// misses apart).
func (s *Policy) Tick(now int64, start func(*job.Request)) int64 {
	s.book.Settle(now)
	return s.book.Pass(now, func(x *djob) {
		s.keyDelete(x)
		start(x.J)
	})
}

// snapshot copies the profile into s.snap, when copying it back later is
// cheaper than undoing n holds: when the profile has at most 8n
// breakpoints (a copy is O(B) words, an undone hold O(log B) and more; on
// LCG-2005 at offered load 0.95, a profile of thousands of breakpoints and
// queues of a few jobs, copying at every decision made MSB 2.4× slower).
// It reports whether it did.
func (s *Policy) snapshot(n int) bool {
	if s.run.Prof.Len() > 8*n {
		return false
	}
	if s.snap == nil {
		s.snap = profile.New(1)
	}
	s.snap.CopyFrom(s.run.Prof)
	return true
}

// release records the reservation of each of xs in old and removes its
// hold from the profile.
func (s *Policy) release(xs []*djob) {
	for _, x := range xs {
		x.X.old = x.Start
		s.unhold(x, x.Start)
	}
}

// releaseAll is release of every waiting job (xs): when fewer jobs run
// than wait, the profile is rebuilt from the running jobs' holds instead
// (Running.HoldsOnly: the same free counts from now on, so the same
// searches).
func (s *Policy) releaseAll(now int64, xs []*djob) {
	if s.run.Len() >= len(xs) {
		s.release(xs)
		return
	}
	for _, x := range xs {
		x.X.old = x.Start
	}
	s.run.HoldsOnly(now)
	s.fm.released(now)
}

// restore re-holds xs at their old reservations.
func (s *Policy) restore(xs []*djob) {
	for _, x := range xs {
		x.Start = x.X.old
		s.hold(x, x.Start)
	}
}
