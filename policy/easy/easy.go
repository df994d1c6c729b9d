// Package easy is EASY (aggressive) backfilling.
//
// It also generalizes EASY to reservations for the first k waiting jobs.
//
// EASY, as Talby & Feitelson §3.1 and Feitelson's slides define it: jobs
// start in arrival order while they fit; the first waiting job that does
// not fit gets a reservation at the shadow time (the earliest time enough
// processors will be free, by the running jobs' estimates), and the
// processors left over at that time are the extra nodes. A later job is
// backfilled — started now — if it fits now and either (1) ends, by its
// estimate, by the shadow time, or (2) uses no more than min(free nodes,
// extra nodes). Candidates are scanned in arrival order, and every start
// is taken into account for the following candidates.
//
// Implementation: the running jobs are held in the shared availability
// profile; at each scheduling pass the reservation is a temporary hold
// [shadow, shadow+estimate) in that profile, and a candidate starts iff
// its whole estimate [now, now+estimate) fits in the profile. This is
// exactly criterion (1) or (2): before the shadow time free capacity only
// grows, and from the shadow time on it never falls below the extra nodes.
//
// With depth k > 1, the first k waiting jobs that cannot start get
// reservations (each placed at its earliest fit given the reservations
// before it), and backfilled jobs may delay none of them. The reservations
// are recomputed at every pass, in queue order, as production schedulers
// (Maui/Moab's RESERVATIONDEPTH, Slurm's backfill) do; depth=all therefore
// differs from conservative backfilling, which keeps each job's first
// reservation as a guarantee and only compresses it.
//
// Variants (Feitelson's slides, after Tsafrir, Etsion & Feitelson 2007):
//
//   - order: the order of the backfill candidates. fcfs (default) is
//     arrival order; sjbf (shortest job backfilled first) scans them by
//     increasing planned duration, ties by arrival; sjf also orders the
//     queue itself that way (jobs start, and the first that cannot start
//     gets the reservation, in shortest-first order), keeping EASY's
//     reservation rule.
//   - predict / correct: plan with runtime predictions instead of the
//     estimates (package predict): reservations, shadow time, extra nodes
//     and backfill decisions use the planned durations, while jobs are
//     still killed at their estimates. A job still running at its planned
//     end gets a corrected prediction at the next pass.
//
// EASY++ (registered as "easy++") is EASY with sjbf order and history-2
// predictions corrected to the estimate.
//
// With order sjbf or sjf and depth k > 1: jobs start in the queue's order
// while they fit; from the first that does not, the next k jobs in that
// order that do not fit now get reservations (placed one after the other),
// and every other waiting job is a backfill candidate, tried shortest
// first, that may start only if it touches no reservation.
package easy

import (
	"fmt"
	"math"

	"github.com/backfill-hpc/backfill/internal/fitindex"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/predict"
)

// Order is the order in which EASY considers waiting jobs.
type Order int

const (
	// FCFS considers every job in arrival order (the default).
	FCFS Order = iota
	// SJBF starts jobs and places the reservation in arrival order, and
	// scans the backfill candidates shortest planned duration first.
	SJBF
	// SJF orders the whole queue shortest planned duration first (ties by
	// arrival), for starting, reserving and backfilling alike.
	SJF
)

var orderNames = []string{"fcfs", "sjbf", "sjf"}

// String is the order's parameter value.
func (o Order) String() string {
	if o < 0 || int(o) >= len(orderNames) {
		return fmt.Sprintf("order(%d)", int(o))
	}
	return orderNames[o]
}

// ParseOrder parses an order parameter value ("" means fcfs).
func ParseOrder(s string) (Order, error) {
	if s == "" {
		return FCFS, nil
	}
	for i, n := range orderNames {
		if s == n {
			return Order(i), nil
		}
	}
	return 0, fmt.Errorf("easy: unknown order %q (want fcfs, sjbf or sjf)", s)
}

// Config selects an EASY variant. The zero value is classic EASY (depth
// 1, arrival order, planning with the estimates).
type Config struct {
	// Depth is the number of waiting jobs that get a reservation (≥ 1;
	// math.MaxInt for all).
	Depth int
	// Order is the queue order.
	Order Order
	// Plan gives the planned durations; nil means the estimates.
	Plan *predict.Plan
	// Prio, when set, is a general queue order (policy.Order, e.g. Slurm's
	// multifactor priority) that replaces Order: jobs start in Prio order
	// while they fit, the first Depth that do not get reservations in that
	// order, and the others backfill in that order where they delay none.
	Prio policy.Order
}

// PlusPlus is the configuration of EASY++: sjbf order, history-2
// predictions, corrected to the estimate.
func PlusPlus() Config {
	return Config{Depth: 1, Order: SJBF, Plan: predict.NewPlan(predict.NewHistory(2), predict.ToEstimate{})}
}

func register(name, doc, order, pred string) {
	policy.Register(policy.Info{
		Name: name,
		Doc:  doc,
		Params: []policy.Param{
			{Name: "depth", Default: "1", Doc: "number of waiting jobs that get a reservation (1 = EASY, all = reservations for every waiting job, recomputed each pass)"},
			{Name: "order", Default: order, Doc: "fcfs (arrival order), sjbf (backfill candidates shortest planned duration first), sjf (the whole queue shortest first, keeping EASY's reservation rule), or any registered order (the queue orders of 'backfill policies'), e.g. multifactor"},
			{Name: "predict", Default: pred, Doc: predict.PredictDoc},
			{Name: "correct", Default: "estimate", Doc: predict.CorrectDoc},
		},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			d, err := p.Int("depth", 1, math.MaxInt)
			if err != nil {
				return nil, err
			}
			if d < 1 {
				return nil, fmt.Errorf("%s: depth must be at least 1, got %d", name, d)
			}
			o, ok := p["order"]
			if !ok {
				o = order
			}
			var prio policy.Order
			ord, err := ParseOrder(o)
			if err != nil {
				if prio, err = policy.NewOrder(p, order, procs); err != nil {
					return nil, fmt.Errorf("%s: %w", name, err)
				}
			}
			pr, ok := p["predict"]
			if !ok {
				pr = pred
			}
			plan, err := predict.Parse(pr, p["correct"])
			if err != nil {
				return nil, fmt.Errorf("%s: %w", name, err)
			}
			return New(procs, Config{Depth: d, Order: ord, Plan: plan, Prio: prio}), nil
		},
	})
}

func init() {
	register("easy", "EASY backfilling: a reservation for the first waiting job (shadow time, extra nodes); later jobs backfill if they do not delay it", "fcfs", "estimate")
	register("easy++", "EASY++ (Tsafrir, Etsion & Feitelson): EASY with shortest-job backfilled first and predictions = mean runtime of the user's last 2 jobs, corrected to the estimate when too short", "sjbf", "history-2")
}

// Policy is Policy backfilling with reservations for the first Depth waiting
// jobs.
type Policy struct {
	depth int
	order Order
	plan  *predict.Plan
	run   *policy.Running
	queue []*job.Request // waiting jobs in arrival order; nil = started (a hole)
	first int            // index of the first non-hole
	holes int            // holes after first
	idx   fitindex.Index // sizes and planned durations by queue position, for the backfill scan
	// indexed says idx holds the queue. The index is kept only from the
	// moment the queue holds more than indexFrom jobs until it empties:
	// on a short queue the plain scan is cheaper than keeping the index
	// (a descent per submission and per start). Both routes return the
	// same positions.
	indexed bool
	// scratch for the pass
	held []hold
	// viaProfile makes depth 1 use the general profile route instead of
	// the paper's criteria (tests check that the two agree).
	viaProfile bool
	// For order sjbf and sjf: the waiting jobs in arrival order and by
	// (planned duration, ID), and the state of each job by ID.
	// fifo may hold gone jobs (state stGone) from fifoFirst on, fifoGone
	// of them; short holds only waiting jobs.
	fifo                []*job.Request
	fifoFirst, fifoGone int
	short               shortQueue
	shortBuf            []*job.Request // scratch for shortSlice
	startedBuf          []*job.Request // scratch: jobs started in a profile-route pass
	stack               []int32        // scratch: walks over short
	state               []uint8
	// prio is the general order (Config.Prio), nil for the built-in ones;
	// obs is prio as an observer, when it is one.
	prio policy.Order
	obs  policy.OrderObserver
}

// Job states for order sjbf and sjf.
const (
	stWaiting uint8 = iota
	stGone          // started or cancelled this pass, to be filtered out
	stHeld          // holds a reservation during the current pass
)

type hold struct {
	start, end int64
	n          int
}

var (
	_ policy.Scheduler  = (*Policy)(nil)
	_ policy.Predicting = (*Policy)(nil)
)

// New returns the EASY variant c for a machine of procs processors
// (Config{Depth: 1} is classic EASY; a depth below 1 is 1), the shape of
// lookahead.New and multiqueue.New.
func New(procs int, c Config) *Policy {
	if c.Depth < 1 {
		c.Depth = 1
	}
	if c.Plan == nil {
		c.Plan = predict.Default()
	}
	e := &Policy{depth: c.Depth, order: c.Order, plan: c.Plan, run: policy.NewRunning(procs)}
	if c.Prio != nil && !policy.IsArrival(c.Prio) {
		e.order, e.prio = FCFS, c.Prio
		e.obs, _ = c.Prio.(policy.OrderObserver)
	}
	return e
}

// Name implements policy.Scheduler: "easy" with the parameters that differ
// from the defaults, or, for the EASY++ configuration, "easy++" (with
// ":correct=step" for stepwise corrections).
func (e *Policy) Name() string {
	if e.depth == 1 && e.order == SJBF && e.plan.P.Name() == "history-2" {
		if _, ok := e.plan.C.(predict.ToEstimate); ok {
			return "easy++"
		}
		return "easy++:correct=" + e.plan.C.Name()
	}
	s := "easy"
	switch {
	case e.depth == math.MaxInt:
		s += ":depth=all"
	case e.depth != 1:
		s += fmt.Sprintf(":depth=%d", e.depth)
	}
	if e.order != FCFS {
		s += ":order=" + e.order.String()
	}
	if e.prio != nil {
		s += ":order=" + e.prio.Name()
	}
	return s + e.plan.Params()
}

// Prediction implements policy.Predicting.
func (e *Policy) Prediction(j *job.Request) (int64, int, bool) { return e.plan.Prediction(j) }

// Insert implements policy.Scheduler.
func (e *Policy) Insert(now int64, j *job.Request) {
	e.plan.Submit(now, j)
	if e.obs != nil {
		e.obs.Submitted(now, j)
	}
	if e.order != FCFS {
		e.insertOrdered(j)
		return
	}
	e.queue = append(e.queue, j)
	switch {
	case !e.indexed:
		if len(e.queue)-e.first-e.holes > indexFrom {
			e.rebuild()
		}
	case len(e.queue) > e.idx.Len():
		e.rebuild()
	default:
		e.idx.Set(len(e.queue)-1, j.Procs, e.plan.Dur(j))
	}
}

// Remove implements policy.Scheduler.
func (e *Policy) Remove(now int64, j *job.Request) {
	if e.obs != nil {
		e.obs.Ended(now, j)
	}
	if start, running := e.run.Started(j); running {
		e.run.End(now, j)
		e.plan.Ended(now, start, j)
		return
	}
	if e.order != FCFS {
		e.cancelOrdered(j)
		return
	}
	for i := e.first; i < len(e.queue); i++ {
		if e.queue[i] == j {
			e.queue[i] = nil
			if e.indexed {
				e.idx.Clear(i)
			}
			e.holes++
			e.compact()
			return
		}
	}
}

// squeeze removes every hole from the queue.
func (e *Policy) squeeze() {
	if e.first == 0 && e.holes == 0 {
		return
	}
	n := 0
	for _, j := range e.queue[e.first:] {
		if j != nil {
			e.queue[n] = j
			n++
		}
	}
	clear(e.queue[n:])
	e.queue = e.queue[:n]
	e.first, e.holes = 0, 0
	e.rebuild()
}

// Tick implements policy.Scheduler: one scheduling pass over the queue.
func (e *Policy) Tick(now int64, start func(*job.Request)) int64 {
	e.plan.Flush()
	prof := e.run.Prof
	prof.Forget(now)
	if e.run.Overrunning(now) {
		// no reservations are held between passes, so there is room
		if _, err := e.run.ExtendWith(now, e.plan.Extender(now)); err != nil {
			panic("easy: " + err.Error()) // unreachable: running jobs fit by construction
		}
	}
	free := prof.FreeAt(now)
	if e.order != FCFS {
		if e.depth == 1 && !e.viaProfile {
			return e.tickOrdered(now, free, start)
		}
		return e.tickOrderedProfile(now, free, start)
	}
	if e.prio != nil {
		// a general order: sort the queue at each pass (the order may
		// change with time), then the profile route
		if e.obs != nil {
			e.obs.Advance(now)
			inner := start
			start = func(j *job.Request) {
				e.obs.Started(now, j)
				inner(j)
			}
		}
		e.squeeze()
		policy.SortWaiting(now, e.prio, e.queue)
		e.rebuild()
	} else if e.depth == 1 && !e.viaProfile {
		return e.tickEASY(now, free, start)
	}
	e.squeeze()
	reserved := 0
	kept := e.queue[:0]
	e.held = e.held[:0]
	for i, j := range e.queue {
		if free == 0 {
			kept = append(kept, e.queue[i:]...)
			break
		}
		startNow := false
		d := e.plan.Dur(j)
		if reserved < e.depth {
			t := prof.EarliestFit(now, d, j.Procs)
			if t == now {
				startNow = true
			} else {
				// temporary reservation for this pass
				_ = prof.Add(t, t+d, j.Procs)
				e.held = append(e.held, hold{t, t + d, j.Procs})
				reserved++
			}
		} else if j.Procs <= free && prof.Fits(now, d, j.Procs) {
			startNow = true
		}
		if startNow {
			if err := e.run.StartFor(now, j, d); err != nil {
				panic("easy: " + err.Error()) // unreachable: it fits
			}
			free -= j.Procs
			start(j)
		} else {
			kept = append(kept, j)
		}
	}
	for i := len(kept); i < len(e.queue); i++ {
		e.queue[i] = nil
	}
	e.queue = kept
	for _, h := range e.held {
		_ = prof.Remove(h.start, h.end, h.n)
	}
	return policy.NoWake
}

// tickEASY is the pass for depth 1, with the paper's two criteria taken
// literally: the first job that does not fit now gets the shadow time S
// (its earliest fit) and the extra nodes X (processors free at S once it
// starts); a later job starts now iff it fits now and ends by S, or uses
// no more than min(free, X). Each start updates free, and X when the job
// runs past S. After one earliest-fit query, the fit index (package fitindex)
// hands out only the candidates that start, O(log Q) each, so a pass that
// starts nothing costs one descent however long the queue; started jobs
// leave holes in the queue, compacted when they outnumber the jobs.
func (e *Policy) tickEASY(now int64, free int, start func(*job.Request)) int64 {
	prof := e.run.Prof
	var shadow int64
	extra := 0
	launch := func(i int, j *job.Request) {
		if err := e.run.StartFor(now, j, e.plan.Dur(j)); err != nil {
			panic("easy: " + err.Error()) // unreachable: it fits
		}
		free -= j.Procs
		e.queue[i] = nil
		if e.indexed {
			e.idx.Clear(i)
		}
		e.holes++
		start(j)
	}
	// jobs start in order while they fit; the first that does not is the
	// head and gets the reservation
	i := e.first
	for ; i < len(e.queue) && free > 0; i++ {
		j := e.queue[i]
		if j == nil {
			continue
		}
		t := prof.EarliestFit(now, e.plan.Dur(j), j.Procs)
		if t == now {
			launch(i, j)
			continue
		}
		shadow = t
		extra = prof.FreeAt(t) - j.Procs
		break
	}
	// backfill: jump from one job that can start to the next (the index
	// returns only those: no larger than min(free, extra), or no larger
	// than free and ending by the shadow time)
	for i++; free > 0; i++ {
		if e.indexed {
			i = e.idx.Next(i, min(free, extra), free, shadow-now)
		} else {
			i = e.scan(i, min(free, extra), free, shadow-now)
		}
		if i < 0 || i >= len(e.queue) {
			break
		}
		j := e.queue[i]
		switch {
		case now+e.plan.Dur(j) <= shadow:
			launch(i, j)
		case j.Procs <= extra:
			extra -= j.Procs
			launch(i, j)
		default:
			panic("easy: the fit index returned a job that cannot start") // unreachable: next tests both criteria
		}
	}
	e.compact()
	return policy.NoWake
}

// compact advances past leading holes, and squeezes the queue when holes
// are the majority (amortized O(1) per removed job).
func (e *Policy) compact() {
	for e.first < len(e.queue) && e.queue[e.first] == nil {
		e.first++
		e.holes--
	}
	if e.first == len(e.queue) {
		// every position was cleared in the index as its job left, so
		// the index is all holes already: no rebuild (on a lightly loaded
		// trace the queue empties at most passes, and a rebuild there cost
		// a third of a whole KTH run)
		e.queue = e.queue[:0]
		e.first, e.holes = 0, 0
		e.indexed = false // a short queue again: scanned until it grows
		return
	}
	if e.holes+e.first > 64 && 2*(e.holes+e.first) > len(e.queue) {
		e.squeeze()
	}
}

// indexFrom is the queue length above which the backfill scan uses the
// fit index (kept until the queue empties). Below it a pass scans the
// queue; measured on KTH (queues of tens) and Lublin at load 0.9 (queues
// of thousands), docs/PERFORMANCE.md. A variable only so that tests can
// force either route.
var indexFrom = 128

// scan is fitindex.Index.Next by a walk of the queue: the first position
// ≥ i whose job has size ≤ a, or size ≤ f and planned duration ≤ dur; -1
// if none.
func (e *Policy) scan(i, a, f int, dur int64) int {
	for ; i < len(e.queue); i++ {
		j := e.queue[i]
		if j != nil && (j.Procs <= a || (j.Procs <= f && e.plan.Dur(j) <= dur)) {
			return i
		}
	}
	return -1
}

// rebuild makes the fit index match the queue, with room to grow, once
// the queue is longer than indexFrom (else it leaves the index unused).
func (e *Policy) rebuild() {
	if !e.indexed && len(e.queue)-e.first-e.holes <= indexFrom {
		return
	}
	e.indexed = true
	e.idx.Reset(max(64, 2*len(e.queue)))
	for i, j := range e.queue {
		if j != nil {
			e.idx.Put(i, j.Procs, e.plan.Dur(j))
		}
	}
	e.idx.Build()
}
