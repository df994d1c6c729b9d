// Package lookahead is lookahead backfilling (LOS).
//
// It is lookahead backfilling: at each scheduling pass,
// the set of waiting jobs started is the one that uses the most free
// processors, found by dynamic programming over (jobs × free processors)
// — the matrix of the seed paper (Rajaei & Dadfar 2006) — and, in the
// default reservation-respecting variant, under the constraint that the
// first waiting job's reservation is kept, as in LOS (Shmueli & Feitelson
// 2005).
//
// A pass, with F the processors free now:
//
//  1. Forced starts: while the first waiting job (the head) fits (size ≤ F)
//     and has been skipped at least cs times, it starts.
//  2. If the head fits, the DP runs over the first depth waiting jobs that
//     fit, head included, with capacity F (Basic_DP): the head starts only
//     if the best set contains it.
//  3. If the head does not fit and the variant reserves (reserve=true, or
//     the head has been skipped cs times), the head gets EASY's reservation:
//     shadow time S, the earliest time it fits by the running jobs'
//     estimates, and extra processors X, those left at S once it starts.
//     The DP (Reservation_DP) runs over the following jobs that fit, with
//     two capacities: every job uses F, and a job that runs past S by its
//     estimate also uses X. So no chosen set delays the head.
//  4. Otherwise (reserve=false, head not yet aged) the DP runs over the
//     following jobs with capacity F alone and no reservation: the head
//     may starve, which aging (cs) prevents.
//
// The bound: the DP sees at most depth jobs at a time (the lookahead depth
// of Shmueli & Feitelson, who found about 50 as good as the whole queue).
// When a window of depth jobs was full, the processors still free after
// its best set are offered to the next depth jobs, and so on; no job of an
// earlier window fits in what is left (that would contradict its window's
// optimum), so the pass never leaves a job that fits unconsidered. With
// depth=1 and cs=0 this is exactly EASY.
//
// A skip is counted for the head at every pass in which it does not start
// and some job behind it does.
package lookahead

import (
	"fmt"
	"math"
	"strconv"

	"github.com/backfill-hpc/backfill/internal/jobq"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Order is the order of the waiting queue.
type Order int

const (
	// FCFS keeps the queue in arrival order (Shmueli & Feitelson).
	FCFS Order = iota
	// SJF keeps it by estimate, then arrival (the seed paper's Waiting Queue,
	// "ordered by estimated execution time").
	SJF
)

// Config selects a variant.
type Config struct {
	// Depth is the lookahead depth: the most jobs one DP considers (≥ 1,
	// math.MaxInt for the whole queue).
	Depth int
	// Reserve makes the head that does not fit get a reservation (LOS's
	// Reservation_DP). Without it, only aging protects the head.
	Reserve bool
	// Cs is the maximal skip count: a head skipped that many times starts
	// as soon as it fits and, when it does not, gets the reservation even
	// with Reserve false. math.MaxInt disables it.
	Cs int
	// Order is the queue order.
	Order Order
	// Prio, when set, is a general queue order (policy.Order, e.g. Slurm's
	// multifactor priority) that replaces Order.
	Prio policy.Order
}

// Defaults are the registered defaults.
var Defaults = Config{Depth: 50, Reserve: true, Cs: 5, Order: FCFS}

func init() {
	policy.Register(policy.Info{
		Name: "lookahead",
		Doc:  "lookahead backfilling (LOS, Shmueli & Feitelson): each pass starts the set of waiting jobs that uses the most free processors (dynamic programming), keeping the first waiting job's reservation",
		Params: []policy.Param{
			{Name: "depth", Default: strconv.Itoa(Defaults.Depth), Doc: "lookahead depth: jobs one DP considers at a time (all = the whole queue)"},
			{Name: "reserve", Default: strconv.FormatBool(Defaults.Reserve), Doc: "true: the first waiting job that cannot start gets a reservation (shadow time, extra processors) the chosen set must respect (Reservation_DP); false: the seed paper's plain DP, no reservation"},
			{Name: "cs", Default: strconv.Itoa(Defaults.Cs), Doc: "maximal skip count C: the first waiting job, once passed over this many times, starts as soon as it fits and is reserved when it does not (inf = never: no aging)"},
			{Name: "order", Default: "fcfs", Doc: "queue order: fcfs (arrival), sjf (estimate, then arrival: the seed paper's), or any registered order (the queue orders of 'backfill policies')"},
		},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			c := Defaults
			var err error
			if c.Depth, err = p.Int("depth", c.Depth, math.MaxInt); err != nil {
				return nil, err
			}
			if c.Depth < 1 {
				return nil, fmt.Errorf("lookahead: depth must be at least 1, got %d", c.Depth)
			}
			if c.Reserve, err = p.Bool("reserve", c.Reserve); err != nil {
				return nil, fmt.Errorf("lookahead: %w", err)
			}
			if c.Cs, err = p.Int("cs", c.Cs, math.MaxInt); err != nil {
				return nil, err
			}
			if c.Cs < 0 {
				return nil, fmt.Errorf("lookahead: cs must be at least 0, got %d", c.Cs)
			}
			switch p["order"] {
			case "", "fcfs":
			case "sjf":
				c.Order = SJF
			default:
				if c.Prio, err = policy.NewOrder(p, "fcfs", procs); err != nil {
					return nil, fmt.Errorf("lookahead: %w", err)
				}
			}
			return New(procs, c), nil
		},
	})
}

// Policy is the policy.
type Policy struct {
	c      Config
	run    *policy.Running
	q      *jobq.Queue
	skips  []int32 // by job ID
	solver Solver
	ord    policy.Ordering // Config.Prio's plumbing (arrival order when unset)
	// scratch
	items []Item
	cand  []int
	sel   []bool
}

var _ policy.Scheduler = (*Policy)(nil)

// New returns the variant c for a machine of procs processors.
func New(procs int, c Config) *Policy {
	if c.Depth < 1 {
		c.Depth = 1
	}
	var key func(*job.Request) int64
	if c.Order == SJF {
		key = func(j *job.Request) int64 { return j.Estimate }
	}
	ord := policy.NewOrdering(c.Prio)
	if c.Prio != nil {
		key = ord.Key
	}
	return &Policy{c: c, run: policy.NewRunning(procs), q: jobq.New(key), ord: ord}
}

// Name implements policy.Scheduler: "lookahead" and the parameters that
// differ from the defaults.
func (l *Policy) Name() string {
	s := "lookahead"
	num := func(v int) string {
		if v == math.MaxInt {
			return "inf"
		}
		return strconv.Itoa(v)
	}
	if l.c.Depth != Defaults.Depth {
		if l.c.Depth == math.MaxInt {
			s += ":depth=all"
		} else {
			s += ":depth=" + num(l.c.Depth)
		}
	}
	if l.c.Reserve != Defaults.Reserve {
		s += ":reserve=" + strconv.FormatBool(l.c.Reserve)
	}
	if l.c.Cs != Defaults.Cs {
		s += ":cs=" + num(l.c.Cs)
	}
	if l.c.Order == SJF {
		s += ":order=sjf"
	}
	if l.c.Prio != nil && !policy.IsArrival(l.c.Prio) {
		s += ":order=" + l.c.Prio.Name()
	}
	return s
}

// Insert implements policy.Scheduler.
func (l *Policy) Insert(now int64, j *job.Request) {
	for j.ID >= len(l.skips) {
		l.skips = append(l.skips, make([]int32, max(64, len(l.skips)))...)
	}
	l.skips[j.ID] = 0
	l.ord.Submitted(now, j)
	l.q.Push(j)
}

// Remove implements policy.Scheduler.
func (l *Policy) Remove(now int64, j *job.Request) {
	l.ord.Ended(now, j)
	if _, running := l.run.Started(j); running {
		l.run.End(now, j)
		return
	}
	l.q.Cancel(j)
}

// Skips is the number of times waiting job j was skipped as the head.
func (l *Policy) Skips(j *job.Request) int {
	if j.ID < len(l.skips) {
		return int(l.skips[j.ID])
	}
	return 0
}

func (l *Policy) aged(j *job.Request) bool { return int(l.skips[j.ID]) >= l.c.Cs }

// Tick implements policy.Scheduler: one pass, as the package comment says.
func (l *Policy) Tick(now int64, start func(*job.Request)) int64 {
	prof := l.run.Prof
	prof.Forget(now)
	if l.run.Overrunning(now) {
		if err := l.run.Extend(now); err != nil {
			panic("lookahead: " + err.Error()) // unreachable: no reservation is held between passes
		}
	}
	free := prof.FreeAt(now)
	if l.ord.Dynamic {
		l.ord.Advance(now)
		l.q.Resort(now, l.ord.O)
		start = l.ord.Wrap(now, start)
	}
	launch := func(pos int, j *job.Request) {
		if err := l.run.Start(now, j); err != nil {
			panic("lookahead: " + err.Error()) // unreachable: it fits
		}
		free -= j.Procs
		l.q.Take(pos)
		start(j)
	}
	defer l.q.Compact()
	// 1. forced starts of an aged head
	hp, h := l.q.Head()
	for h != nil && h.Procs <= free && l.aged(h) {
		launch(hp, h)
		hp, h = l.q.Head()
	}
	if h == nil || free == 0 {
		return policy.NoWake
	}
	// 2–4. the reservation, if any, and the DP windows
	shadow, extra := int64(math.MaxInt64), free
	from := hp
	if h.Procs > free {
		from = hp + 1
		if l.c.Reserve || l.aged(h) {
			shadow = prof.EarliestFit(now, h.Estimate, h.Procs)
			extra = prof.FreeAt(shadow) - h.Procs
		}
	}
	passed := false
	pos := from
	for free > 0 {
		xcap := min(extra, free)
		// the jobs that fit: no larger than xcap, or no larger than free
		// and ending by the shadow time (the queue's index skips the
		// others in O(log Q))
		l.items, l.cand = l.items[:0], l.cand[:0]
		for len(l.items) < l.c.Depth {
			pos = l.q.NextEASY(pos, xcap, free, shadow-now)
			if pos < 0 {
				break
			}
			j := l.q.At(pos)
			l.items = append(l.items, Item{Size: j.Procs, Long: now+j.Estimate > shadow})
			l.cand = append(l.cand, pos)
			pos++
		}
		if len(l.items) == 0 {
			break
		}
		if cap(l.sel) < len(l.items) {
			l.sel = make([]bool, len(l.items), 2*len(l.items))
		}
		sel := l.sel[:len(l.items)]
		l.solver.Solve(l.items, free, xcap, sel)
		for k, chosen := range sel {
			if !chosen {
				continue
			}
			j := l.q.At(l.cand[k])
			if l.items[k].Long {
				extra -= j.Procs
			}
			if j != h {
				passed = true
			}
			launch(l.cand[k], j)
		}
		if len(l.items) < l.c.Depth || pos < 0 {
			break
		}
	}
	if passed && l.q.At(hp) == h && l.skips[h.ID] < math.MaxInt32 {
		l.skips[h.ID]++
	}
	return policy.NoWake
}
