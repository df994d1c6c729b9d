package policytest

import (
	"cmp"
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/predict"
)

// LiteralEASY is EASY backfilling written as the papers state it, with
// no index, no profile and no shortcut, for differential tests of the
// optimised policies (package easy's depth-1 pass with its fit index,
// order sjbf and sjf; K-resource EASY with the FF heuristic). On a
// machine of capacities Caps (Caps[0] processors), at each pass:
//
//  1. the waiting jobs, in the primary order (arrival; for SJF by
//     (estimate, ID)), start while they fit now in every resource;
//  2. the first that does not (the head) gets the shadow time S: the
//     earliest estimated end of a running job at which, with every job
//     ending by then gone, the head fits; the extra units X_i are what
//     is free at S in resource i beyond the head's need;
//  3. every other waiting job, in the backfill order (arrival; for SJBF
//     and SJF by (estimate, ID)), starts iff it fits now and either ends
//     by S (now + estimate ≤ S) or needs no more than X_i of every
//     resource i (then X_i decreases by its need).
//
// With Plan nil, durations are the estimates and a running job's
// estimated end is start + estimate, or now + 1 once it runs past its
// estimate (no-kill mode: it may end at any moment, the rule of
// predict.Plan's extension). With a Plan (package predict: EASY++'s
// history predictions), every "estimate" above is the job's planned
// duration, fed as package easy feeds it (submissions, ends, a flush
// before each pass) and corrected by the plan's extension when a running
// job reaches its planned end.
type LiteralEASY struct {
	Caps []int
	Plan *predict.Plan
	// SJBF scans the backfill candidates by (estimate, ID); SJF also
	// orders the queue that way.
	SJBF, SJF bool
	queue     []*job.Request // waiting, arrival order
	running   map[*job.Request]int64
}

var _ policy.Scheduler = (*LiteralEASY)(nil)

// Name implements policy.Scheduler.
func (l *LiteralEASY) Name() string { return "literal-easy" }

// Insert implements policy.Scheduler.
func (l *LiteralEASY) Insert(now int64, j *job.Request) {
	if l.Plan != nil {
		l.Plan.Submit(now, j)
	}
	l.queue = append(l.queue, j)
}

// dur is j's planned duration.
func (l *LiteralEASY) dur(j *job.Request) int64 {
	if l.Plan != nil {
		return l.Plan.Dur(j)
	}
	return j.Estimate
}

// Remove implements policy.Scheduler.
func (l *LiteralEASY) Remove(now int64, j *job.Request) {
	if s, ok := l.running[j]; ok {
		delete(l.running, j)
		if l.Plan != nil {
			l.Plan.Ended(now, s, j)
		}
		return
	}
	l.queue = slices.DeleteFunc(l.queue, func(q *job.Request) bool { return q == j })
}

// Tick implements policy.Scheduler.
func (l *LiteralEASY) Tick(now int64, start func(*job.Request)) int64 {
	if l.running == nil {
		l.running = map[*job.Request]int64{}
	}
	var extend func(j *job.Request, start, end int64) int64
	if l.Plan != nil {
		l.Plan.Flush()
		extend = l.Plan.Extender(now)
	}
	k := len(l.Caps)
	free := slices.Clone(l.Caps)
	type end struct {
		t int64
		j *job.Request
	}
	for j := range l.running {
		for i := range k {
			free[i] -= j.Need(i)
		}
	}
	fits := func(j *job.Request, avail []int) bool {
		for i := range k {
			if j.Need(i) > avail[i] {
				return false
			}
		}
		return true
	}
	launch := func(j *job.Request) {
		for i := range k {
			free[i] -= j.Need(i)
		}
		l.running[j] = now
		l.queue = slices.DeleteFunc(l.queue, func(q *job.Request) bool { return q == j })
		start(j)
	}
	short := func(q []*job.Request) []*job.Request { return byDuration(q, l.dur) }
	primary := slices.Clone(l.queue)
	if l.SJF {
		primary = short(l.queue)
	}
	var head *job.Request
	for _, j := range primary {
		if !fits(j, free) {
			head = j
			break
		}
		launch(j)
	}
	if head == nil {
		return policy.NoWake
	}
	// the shadow time: free capacity at the running jobs' estimated ends
	// (those started in this pass included)
	var ends []end
	for j, s := range l.running {
		e := estimatedEnd(j, s, s+l.dur(j), now, extend)
		ends = append(ends, end{e, j})
	}
	slices.SortFunc(ends, func(a, b end) int { return int(a.t - b.t) })
	atS := slices.Clone(free)
	shadow := int64(-1)
	for x := 0; x < len(ends); {
		t := ends[x].t
		for ; x < len(ends) && ends[x].t == t; x++ {
			for i := range k {
				atS[i] += ends[x].j.Need(i)
			}
		}
		if fits(head, atS) {
			shadow = t
			break
		}
	}
	if shadow < 0 {
		panic("literal EASY: the head never fits") // the engine refuses jobs larger than the machine
	}
	extra := make([]int, k)
	for i := range k {
		extra[i] = atS[i] - head.Need(i)
	}
	cands := slices.Clone(l.queue)
	if l.SJBF || l.SJF {
		cands = short(cands)
	}
	for _, j := range cands {
		if j == head || !fits(j, free) {
			continue
		}
		if now+l.dur(j) <= shadow {
			launch(j)
			continue
		}
		if fits(j, extra) {
			for i := range k {
				extra[i] -= j.Need(i)
			}
			launch(j)
		}
	}
	return policy.NoWake
}

// LiteralDepth is EASY with reservations for the first Depth waiting jobs
// that cannot start (package easy's profile route), written out with a
// list of holds and sums over it: at each pass the running jobs hold
// [start, planned end) (now + 1 for a job past its estimate, or the
// plan's correction), and
//
//   - arrival order: every job in turn, while processors are free: while
//     fewer than Depth reservations are placed, it starts if its earliest
//     fit beside the holds is now, else its earliest fit is held; after
//     that, it starts iff it fits now for its whole planned duration
//     beside the holds;
//   - SJBF and SJF: in the primary order (arrival; SJF by (planned
//     duration, ID)), until Depth reservations or no free processor: a
//     job whose earliest fit is now starts if no reservation is placed
//     yet (else it is left to the backfill phase), otherwise its earliest
//     fit is held; then, if a reservation was placed, every other waiting
//     job by (planned duration, ID) starts iff it fits now beside the
//     holds.
//
// Processors only; Plan as in LiteralEASY.
type LiteralDepth struct {
	Procs, Depth int
	SJBF, SJF    bool
	Plan         *predict.Plan
	lit          LiteralEASY // the queue, running jobs and plan feeding
}

type span struct {
	s, e int64
	n    int
}

// Name implements policy.Scheduler.
func (l *LiteralDepth) Name() string { return "literal-easy-depth" }

// Insert implements policy.Scheduler.
func (l *LiteralDepth) Insert(now int64, j *job.Request) {
	l.lit.Plan = l.Plan
	l.lit.Insert(now, j)
}

// Remove implements policy.Scheduler.
func (l *LiteralDepth) Remove(now int64, j *job.Request) { l.lit.Remove(now, j) }

// Tick implements policy.Scheduler.
func (l *LiteralDepth) Tick(now int64, start func(*job.Request)) int64 {
	x := &l.lit
	x.Plan = l.Plan
	if x.running == nil {
		x.running = map[*job.Request]int64{}
	}
	var extend func(j *job.Request, start, end int64) int64
	if x.Plan != nil {
		x.Plan.Flush()
		extend = x.Plan.Extender(now)
	}
	var holds []span
	for j, s := range x.running {
		e := estimatedEnd(j, s, s+x.dur(j), now, extend)
		holds = append(holds, span{now, e, j.Procs})
	}
	freeAt := func(t int64) int {
		f := l.Procs
		for _, h := range holds {
			if h.s <= t && t < h.e {
				f -= h.n
			}
		}
		return f
	}
	fits := func(t, d int64, n int) bool {
		if freeAt(t) < n {
			return false
		}
		for _, h := range holds {
			if h.s > t && h.s < t+d && freeAt(h.s) < n {
				return false
			}
		}
		return true
	}
	earliest := func(d int64, n int) int64 {
		best := int64(math.MaxInt64)
		for _, c := range append([]span{{now, now, 0}}, holds...) {
			if t := c.e; t >= now && t < best && fits(t, d, n) {
				best = t
			}
		}
		return best
	}
	free := freeAt(now)
	started := map[*job.Request]bool{}
	held := map[*job.Request]bool{}
	launch := func(j *job.Request) {
		free -= j.Procs
		holds = append(holds, span{now, now + x.dur(j), j.Procs})
		x.running[j] = now
		started[j] = true
		start(j)
	}
	short := func(q []*job.Request) []*job.Request { return byDuration(q, x.dur) }
	reserved := 0
	if !l.SJBF && !l.SJF {
		for _, j := range x.queue {
			if free == 0 {
				break
			}
			d := x.dur(j)
			if reserved < l.Depth {
				if t := earliest(d, j.Procs); t == now {
					launch(j)
				} else {
					holds = append(holds, span{t, t + d, j.Procs})
					reserved++
				}
			} else if j.Procs <= free && fits(now, d, j.Procs) {
				launch(j)
			}
		}
	} else {
		primary := x.queue
		if l.SJF {
			primary = short(x.queue)
		}
		for _, j := range primary {
			if free == 0 || reserved == l.Depth {
				break
			}
			d := x.dur(j)
			t := earliest(d, j.Procs)
			if t == now {
				if reserved == 0 {
					launch(j)
				}
				continue
			}
			holds = append(holds, span{t, t + d, j.Procs})
			held[j] = true
			reserved++
		}
		if reserved > 0 {
			for _, j := range short(x.queue) {
				if free == 0 {
					break
				}
				if held[j] || started[j] || j.Procs > free {
					continue
				}
				if fits(now, x.dur(j), j.Procs) {
					launch(j)
				}
			}
		}
	}
	x.queue = slices.DeleteFunc(x.queue, func(q *job.Request) bool { return started[q] })
	return policy.NoWake
}

// byDuration is a copy of q by increasing planned duration, ties by ID
// (the literal policies' shortest-first orders).
func byDuration(q []*job.Request, dur func(*job.Request) int64) []*job.Request {
	q = slices.Clone(q)
	slices.SortStableFunc(q, func(a, b *job.Request) int {
		if c := cmp.Compare(dur(a), dur(b)); c != 0 {
			return c
		}
		return cmp.Compare(a.ID, b.ID)
	})
	return q
}

// estimatedEnd is when a job running since start is expected to end, as
// both literal policies plan it: its estimated end e while that is in
// the future; once it has passed, the predictor's extension (extend) or
// else one second from now.
func estimatedEnd(j *job.Request, start, e, now int64, extend func(j *job.Request, start, end int64) int64) int64 {
	switch {
	case e > now:
		return e
	case extend != nil:
		return extend(j, start, e)
	default:
		return now + 1
	}
}
