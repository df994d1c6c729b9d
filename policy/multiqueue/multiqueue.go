// Package multiqueue is multiple-queue backfilling (Lawson & Smirni).
//
// After Lawson & Smirni 2002 and the seed paper (Rajaei & Dadfar 2006,
// §2).
//
// Jobs are classified by their estimate into Q queues (by default four:
// e ≤ 100 s, ≤ 1,000 s, ≤ 10,000 s, longer). The processors are split into
// Q home partitions (evenly by default). Every partition has its own
// availability profile (package profile) holding the processors of that
// partition that running jobs use, by their estimates. A job takes
// processors of its own partition first and, when they do not suffice,
// borrows idle processors of the other partitions: the seed paper's
// "Lobby for Free Nodes". Borrowed processors return to their partition
// when the job ends, so the boundaries between partitions move with the
// load (the partition state is visible through Partitions).
//
// A pass at time now, with every partition's profile:
//
//  1. Heads, oldest first. The head of each queue (its first waiting job in
//     the queue's order) is considered in order of submission across the
//     queues. It starts if its own partition plus what the others can lend
//     cover it for its whole estimate; a partition lends only processors
//     that keep the reservations already placed in it. Otherwise it becomes
//     its queue's pivot and gets a reservation — aggressive (EASY)
//     backfilling inside its partition: the earliest time its own partition
//     fits it (the shadow time), held in that partition's profile for the
//     pass. A queue with a pivot takes no further part in step 1.
//  2. Backfilling. In class order (shortest class first), every other
//     waiting job, in its queue's order, starts if its own partition plus
//     the others' lendable processors cover it for its whole estimate
//     without touching any reservation: a backfilled job delays no pivot,
//     neither of its own queue nor of a queue it borrows from.
//
// A job wider than its own partition (size > its home size) can never fit
// there alone. It starts only by borrowing; when it is a pivot, its
// reservation is the earliest time at which its partition and the others
// together have enough processors free for its whole estimate (own
// partition first, then the others in order), held in each of them.
//
// Reservations are recomputed at every pass, as in EASY. Pivots are placed
// oldest first, so an older pivot's reservation can only be delayed by an
// even older job; every job eventually becomes the oldest waiting job, and
// then nothing delays its reservation: no job starves (in kill mode, with
// order fcfs).
package multiqueue

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/internal/jobq"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/profile"
	"github.com/backfill-hpc/backfill/spec"
)

// Order is the order of each queue.
type Order int

const (
	// FCFS orders each queue by arrival (Lawson & Smirni).
	FCFS Order = iota
	// SJF orders each queue by estimate, then arrival (the seed paper:
	// "ordered based on their estimated execution time and then the arrival
	// time in case of ties").
	SJF
)

// Config selects a variant.
type Config struct {
	// Bounds are the upper limits, in seconds, of the estimates of queues
	// 1..Q-1 (strictly increasing); queue Q takes the rest.
	Bounds []int64
	// Procs are the home partition sizes (Q values summing to the machine
	// size); nil splits the machine evenly, the first partitions taking one
	// more processor when it does not divide (15 → 4/4/4/3).
	Procs []int
	// Order is the order inside each queue.
	Order Order
	// Prio, when set, is a general queue order (policy.Order, e.g. Slurm's
	// multifactor priority) that replaces Order inside each queue.
	Prio policy.Order
}

// DefaultBounds are the seed paper's and Lawson & Smirni's class limits.
var DefaultBounds = []int64{100, 1000, 10000}

func init() {
	policy.Register(policy.Info{
		Name: "multiqueue",
		Doc:  "multiple-queue backfilling (Lawson & Smirni): one queue per estimate class, each with EASY backfilling in its own processor partition; idle processors are lent across partitions",
		Params: []policy.Param{
			{Name: "bounds", Default: "100/1000/10000", Doc: "upper estimate limits in seconds of the queues but the last, '/'-separated (Q-1 values, increasing)"},
			{Name: "procs", Default: "even", Doc: "home partition sizes, '/'-separated, summing to the machine size (e.g. 4/4/4/3); even = equal split, the first partitions one larger"},
			{Name: "order", Default: "fcfs", Doc: "order inside each queue: fcfs (arrival, Lawson & Smirni) or sjf (estimate then arrival, the seed paper)"},
		},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			c := Config{Bounds: DefaultBounds}
			if v, ok := p["bounds"]; ok {
				b, err := spec.Int64s("bounds", v, 1)
				if err != nil {
					return nil, fmt.Errorf("multiqueue: %w", err)
				}
				c.Bounds = b
			}
			if v, ok := p["procs"]; ok && v != "even" {
				ns, err := spec.Int64s("procs", v, 0)
				if err != nil {
					return nil, fmt.Errorf("multiqueue: %w", err)
				}
				for _, n := range ns {
					if n > math.MaxInt32 {
						return nil, fmt.Errorf("multiqueue: %w", spec.Expected("procs", v, "processor counts separated by '/'"))
					}
					c.Procs = append(c.Procs, int(n))
				}
			}
			switch p["order"] {
			case "", "fcfs":
			case "sjf":
				c.Order = SJF
			default:
				var err error
				if c.Prio, err = policy.NewOrder(p, "fcfs", procs); err != nil {
					return nil, fmt.Errorf("multiqueue: %w", err)
				}
			}
			return New(procs, c)
		},
	})
}

// Policy is the policy.
type Policy struct {
	c     Config
	home  []int
	prof  []*profile.Profile // one per home partition
	run   *policy.Running    // the whole machine: overruns, and a check
	qs    []*jobq.Queue
	ord   policy.Ordering // Config.Prio's plumbing (arrival order when unset)
	runs  []running       // by job ID
	held  [][]int         // held[p][q]: processors of partition p used by jobs of queue q
	holds []hold          // reservations of the current pass
	free  []int           // scratch: processors of each partition free now
	amt   []int           // scratch
	pivot []int           // scratch: position of each queue's pivot, -1 none
	// For a quick rejection: the start of the first reservation in each
	// partition this pass (MaxInt64: none) and the processors free there
	// at that instant, an upper bound on what the partition can give to a
	// job still running then.
	first  []int64
	hfree  []int
	nholds []int // reservations placed in each partition this pass
	// memo of gives by estimate, per partition, valid until the partition's
	// profile changes (a start or a reservation in it), and of what all the
	// partitions together give (valid until any of them changes)
	memo []estMemo
	gsum estMemo
	// scratch of the cross-partition reservation
	wide []wideScan
	// base counts the changes of the partitions' profiles other than this
	// pass's reservations (starts, ends, overruns); wideMemo keeps, per
	// queue, the last cross-partition reservation (see reserveWide).
	base     uint64
	wideMemo []wideMemo
	// g is what the partitions give together for [now, now+e) as a
	// step function of e (giveSteps), rebuilt when gDirty
	g      giveSteps
	gDirty bool
}

// giveSteps is G(e) = Σ_p gives(p, now, e), what the partitions together
// can give a job of estimate e at a pass at now without touching a
// reservation, as a step function: G(e) = val[i] for i the number of
// thresholds thr[k] < e (thr ascending). A partition's window minimum
// falls only at this pass's reservation starts in it (running jobs' holds
// began by now, and only end from then on), so
// gives(p, now, e) = min(free now, free at each reservation start of p
// before now+e), and G has a step per reservation start.
type giveSteps struct {
	thr  []int64
	val  []int
	part []int   // scratch: the partition's running minimum
	ord  []int32 // scratch: indices of m.holds by start
}

// at is G(e).
func (g *giveSteps) at(e int64) int {
	i := 0
	for i < len(g.thr) && g.thr[i] < e {
		i++
	}
	return g.val[i]
}

// wideMemo is a cross-partition reservation as reserveWide found it: for
// job id, with the profiles' base count and the reservations placed
// before it in its pass, at t with amt[p] the least free count of each
// partition over the window.
type wideMemo struct {
	id    int
	base  uint64
	holds []hold
	t     int64
	amt   []int
}

type running struct {
	end  int64   // end of the hold (start + estimate, or later for an overrun)
	take []int32 // processors held in each partition
}

type hold struct {
	p          int
	start, end int64
	n          int
}

var _ policy.Scheduler = (*Policy)(nil)

// New returns the variant c for a machine of procs processors.
func New(procs int, c Config) (*Policy, error) {
	if len(c.Bounds) == 0 {
		c.Bounds = DefaultBounds
	}
	for i := 1; i < len(c.Bounds); i++ {
		if c.Bounds[i] <= c.Bounds[i-1] {
			return nil, fmt.Errorf("multiqueue: bounds must increase, got %v", c.Bounds)
		}
	}
	q := len(c.Bounds) + 1
	home := c.Procs
	if home == nil {
		home = make([]int, q)
		for i := range home {
			home[i] = procs / q
			if i < procs%q {
				home[i]++
			}
		}
	}
	if len(home) != q {
		return nil, fmt.Errorf("multiqueue: %d partition sizes for %d queues", len(home), q)
	}
	sum := 0
	for _, n := range home {
		sum += n
	}
	if sum != procs {
		return nil, fmt.Errorf("multiqueue: partition sizes %v sum to %d, the machine has %d processors", home, sum, procs)
	}
	c.Procs = home
	m := &Policy{c: c, home: home, run: policy.NewRunning(procs), gsum: estMemo{gen: 1},
		free: make([]int, q), amt: make([]int, q), pivot: make([]int, q), first: make([]int64, q), hfree: make([]int, q), nholds: make([]int, q)}
	var key func(*job.Request) int64
	if c.Order == SJF {
		key = func(j *job.Request) int64 { return j.Estimate }
	}
	m.ord = policy.NewOrdering(c.Prio)
	if c.Prio != nil {
		key = m.ord.Key
	}
	for p := 0; p < q; p++ {
		m.prof = append(m.prof, profile.New(home[p]))
		m.qs = append(m.qs, jobq.New(key))
		m.held = append(m.held, make([]int, q))
		m.memo = append(m.memo, estMemo{gen: 1})
	}
	return m, nil
}

// Name implements policy.Scheduler.
func (m *Policy) Name() string {
	s := "multiqueue"
	if !slices.Equal(m.c.Bounds, DefaultBounds) {
		s += ":bounds=" + join(m.c.Bounds)
	}
	even := true
	q := len(m.home)
	sum := 0
	for _, n := range m.home {
		sum += n
	}
	for i, n := range m.home {
		w := sum / q
		if i < sum%q {
			w++
		}
		even = even && n == w
	}
	if !even {
		s += ":procs=" + join(m.home)
	}
	if m.c.Order == SJF {
		s += ":order=sjf"
	}
	if m.c.Prio != nil && !policy.IsArrival(m.c.Prio) {
		s += ":order=" + m.c.Prio.Name()
	}
	return s
}

func join[T int | int64](v []T) string {
	f := make([]string, len(v))
	for i, x := range v {
		f[i] = strconv.FormatInt(int64(x), 10)
	}
	return strings.Join(f, "/")
}

// Class is the queue (0-based) of a job with estimate e.
func (m *Policy) Class(e int64) int {
	for i, b := range m.c.Bounds {
		if e <= b {
			return i
		}
	}
	return len(m.c.Bounds)
}

// Insert implements policy.Scheduler.
func (m *Policy) Insert(now int64, j *job.Request) {
	m.ord.Submitted(now, j)
	m.qs[m.Class(j.Estimate)].Push(j)
}

// Remove implements policy.Scheduler: a running job's processors return to
// their partitions; a waiting job leaves its queue.
func (m *Policy) Remove(now int64, j *job.Request) {
	m.ord.Ended(now, j)
	if _, running := m.run.Started(j); !running {
		m.qs[m.Class(j.Estimate)].Cancel(j)
		return
	}
	m.run.End(now, j)
	r := &m.runs[j.ID]
	q := m.Class(j.Estimate)
	for p, t := range r.take {
		if t == 0 {
			continue
		}
		if r.end > now {
			m.base++
			if err := m.prof[p].Remove(now, r.end, int(t)); err != nil {
				panic("multiqueue: " + err.Error()) // unreachable: it was added at start
			}
		}
		m.held[p][q] -= int(t)
	}
	r.take = nil
}

// PartState is the state of one partition at the last pass.
type PartState struct {
	Home     int // processors the partition owns
	Own      int // of them, used by jobs of its own queue
	Lent     int // of them, used by jobs of other queues
	Borrowed int // processors of other partitions used by its queue's jobs
}

// Partitions reports each partition's processors: the current extent of
// partition p is Home − Lent + Borrowed processors, of which Own + Borrowed
// are busy.
func (m *Policy) Partitions() []PartState {
	out := make([]PartState, len(m.home))
	for p := range out {
		out[p].Home = m.home[p]
		for q, n := range m.held[p] {
			if q == p {
				out[p].Own += n
			} else {
				out[p].Lent += n
				out[q].Borrowed += n
			}
		}
	}
	return out
}

// Tick implements policy.Scheduler: one pass, as the package comment says.
func (m *Policy) Tick(now int64, start func(*job.Request)) int64 {
	if m.ord.Dynamic {
		m.ord.Advance(now)
		for _, q := range m.qs {
			q.Resort(now, m.ord.O)
		}
		start = m.ord.Wrap(now, start)
	}
	for _, p := range m.prof {
		p.Forget(now)
	}
	m.run.Prof.Forget(now)
	if m.run.Overrunning(now) {
		// no reservation is held between passes, so there is room
		_, err := m.run.ExtendWith(now, func(j *job.Request, _, end int64) int64 {
			r := &m.runs[j.ID]
			for p, t := range r.take {
				if t > 0 {
					m.base++
					if err := m.prof[p].Add(end, now+1, int(t)); err != nil {
						panic("multiqueue: " + err.Error())
					}
				}
			}
			r.end = now + 1
			return now + 1
		})
		if err != nil {
			panic("multiqueue: " + err.Error())
		}
	}
	total := 0
	for p, pr := range m.prof {
		m.free[p] = pr.FreeAt(now)
		total += m.free[p]
		m.pivot[p] = -1
		m.first[p] = math.MaxInt64
		m.nholds[p] = 0
		m.memo[p].reset()
	}
	m.gsum.reset()
	m.gDirty = true
	defer func() {
		for _, h := range m.holds {
			_ = m.prof[h.p].Remove(h.start, h.end, h.n)
		}
		m.holds = m.holds[:0]
		for _, q := range m.qs {
			q.Compact()
		}
	}()
	if total == 0 {
		return policy.NoWake
	}
	reserved := 0
	// 1. heads, oldest first
	for total > 0 && reserved < len(m.qs) {
		best, bpos := -1, -1
		var bj *job.Request
		for q, qq := range m.qs {
			if m.pivot[q] >= 0 {
				continue
			}
			pos, h := qq.Head()
			if h != nil && (bj == nil || h.Submit < bj.Submit || (h.Submit == bj.Submit && h.ID < bj.ID)) {
				best, bpos, bj = q, pos, h
			}
		}
		if bj == nil {
			break
		}
		if m.try(now, best, bpos, bj, &total, start) {
			continue
		}
		m.reserve(now, best, bj)
		m.pivot[best] = bpos
		reserved++
	}
	// 2. backfilling, shortest class first
	for q, qq := range m.qs {
		pos := m.pivot[q] + 1
		if m.pivot[q] < 0 {
			pos, _ = qq.Head() // the loop stopped early: nothing fits
			if pos < 0 {
				continue
			}
		}
		// exactly the jobs try starts (giveSteps): n ≤ G(e), which
		// implies n ≤ total; G only falls as e grows, as NextFit needs
		fits := func(n int, e int64) bool { return n <= m.give(now, e) }
		for m.classBound(now, q, total) > 0 {
			pos = qq.NextFit(pos, fits)
			if pos < 0 {
				break
			}
			if !m.try(now, q, pos, qq.At(pos), &total, start) {
				panic("multiqueue: a job that fits did not start") // unreachable: fits is try's test
			}
			pos++
		}
	}
	return policy.NoWake
}

// give is G(e), what the partitions together give for [now, now+e)
// (giveSteps), rebuilt after any start or reservation of the pass.
func (m *Policy) give(now, e int64) int {
	if m.gDirty {
		m.buildGive(now)
	}
	return m.g.at(e)
}

// buildGive computes giveSteps from the pass's reservations (m.holds) and
// each partition's free count now.
func (m *Policy) buildGive(now int64) {
	g := &m.g
	g.ord = g.ord[:0]
	for i := range m.holds {
		g.ord = append(g.ord, int32(i))
	}
	slices.SortFunc(g.ord, func(a, b int32) int { return cmp.Compare(m.holds[a].start, m.holds[b].start) })
	g.part = append(g.part[:0], m.free...)
	sum := 0
	for _, f := range m.free {
		sum += f
	}
	g.thr, g.val = g.thr[:0], append(g.val[:0], sum)
	for _, i := range g.ord {
		h := m.holds[i]
		if f := m.prof[h.p].FreeAt(h.start); f < g.part[h.p] {
			sum -= g.part[h.p] - f
			g.part[h.p] = f
		}
		g.thr = append(g.thr, h.start-now)
		g.val = append(g.val, sum)
	}
	m.gDirty = false
}

// classBound is the most processors a job of queue q could start on now:
// what the partitions can give for the shortest estimate of the class
// (gives is the least free count over the window, which only falls as the
// window grows, and a job starts exactly when the partitions together give
// its size), at most total. Jobs of the queue wider than that are not
// tried: try would refuse them.
func (m *Policy) classBound(now int64, q, total int) int {
	var lo int64 // the shortest estimate of queue q
	if q > 0 {
		lo = m.c.Bounds[q-1] + 1
	}
	x := 0
	for p := range m.prof {
		if m.free[p] > 0 {
			x += m.gives(p, now, lo)
		}
	}
	return min(x, total)
}

// try starts job j (queue q, position pos) now if its own partition and
// what the others can lend cover it for its whole estimate.
func (m *Policy) try(now int64, q, pos int, j *job.Request, total *int, start func(*job.Request)) bool {
	n, e := j.Procs, j.Estimate
	if n > *total {
		return false
	}
	if m.ub(now, e) < n {
		return false
	}
	if g, ok := m.gsum.get(e); ok && g < n {
		return false
	}
	need := n
	clear(m.amt)
	for k := 0; k < len(m.prof) && need > 0; k++ {
		p := (q + k) % len(m.prof) // own partition first, then the next ones
		if m.free[p] == 0 {
			continue
		}
		m.amt[p] = min(need, m.gives(p, now, e))
		need -= m.amt[p]
	}
	if need > 0 {
		// every partition gave all it could: n - need is what they give
		// together for this estimate
		m.gsum.put(e, n-need)
		return false
	}
	m.gsum.reset()
	for j.ID >= len(m.runs) {
		m.runs = append(m.runs, make([]running, max(64, len(m.runs)))...)
	}
	r := &m.runs[j.ID]
	r.end = now + e
	r.take = make([]int32, len(m.prof))
	for p, a := range m.amt {
		if a == 0 {
			continue
		}
		m.base++
		if err := m.prof[p].Add(now, now+e, a); err != nil {
			panic("multiqueue: " + err.Error()) // unreachable: a ≤ MinFree
		}
		r.take[p] = int32(a)
		m.free[p] -= a
		m.held[p][q] += a
		if m.first[p] != math.MaxInt64 {
			m.hfree[p] = m.prof[p].FreeAt(m.first[p])
		}
		m.memo[p].reset()
	}
	if err := m.run.Start(now, j); err != nil {
		panic("multiqueue: " + err.Error()) // unreachable: the partitions had room
	}
	*total -= n
	m.gDirty = true
	m.qs[q].Take(pos)
	start(j)
	return true
}

// ub is an upper bound on what the partitions can give together for
// [now, now+e): each at most its free processors now, and, for a window
// reaching its first reservation, what is free when that starts. It only
// falls as e grows.
func (m *Policy) ub(now, e int64) int {
	ub := 0
	for p, f := range m.free {
		if now+e > m.first[p] {
			f = min(f, m.hfree[p])
		}
		ub += f
	}
	return ub
}

// gives is what partition p can give for [now, now+e) without touching
// its reservations: MinFree over the window. Without reservations the free
// processors only grow from now on, so before the first reservation it is
// the processors free now, and with one reservation the lesser of that and
// what is free when the reservation starts (EASY's extra processors); with
// more, the profile is asked.
func (m *Policy) gives(p int, now, e int64) int {
	switch {
	case now+e <= m.first[p]:
		return m.free[p]
	case m.nholds[p] == 1:
		return min(m.free[p], m.hfree[p])
	}
	if a, ok := m.memo[p].get(e); ok {
		return a
	}
	a := m.prof[p].MinFree(now, now+e)
	m.memo[p].put(e, a)
	return a
}

// estMemo is a direct-mapped cache of a number by estimate, emptied in
// O(1) by starting a new generation; gen starts at 1.
type estMemo struct {
	gen   uint32
	slots [64]estSlot
}

type estSlot struct {
	e   int64
	v   int
	gen uint32
}

func estHash(e int64) int { return int(uint64(e) * 0x9E3779B97F4A7C15 >> 58) }

func (c *estMemo) get(e int64) (int, bool) {
	s := &c.slots[estHash(e)]
	if s.gen == c.gen && s.e == e {
		return s.v, true
	}
	return 0, false
}

func (c *estMemo) put(e int64, v int) { c.slots[estHash(e)] = estSlot{e, v, c.gen} }

func (c *estMemo) reset() {
	c.gen++
	if c.gen == 0 { // wrapped: no slot may look current
		clear(c.slots[:])
		c.gen = 1
	}
}

// reserve places the reservation of pivot j of queue q: in its own
// partition when it fits there, else across the partitions.
func (m *Policy) reserve(now int64, q int, j *job.Request) {
	n, e := j.Procs, j.Estimate
	if n <= m.home[q] {
		t := m.prof[q].EarliestFit(now, e, n)
		m.add(q, t, t+e, n)
		return
	}
	m.reserveWide(now, q, j.ID, n, e)
}

// reserveWide places the reservation of a pivot wider than its partition:
// at the earliest time t ≥ now at which the partitions together have n
// processors free for all of [t, t+e), taking from each partition its
// least free count over the window (own partition first, then the next
// ones).
//
// Only now and the instants at which some partition's free count rises
// are tried: between two consecutive breakpoints of the union every
// partition is constant, so at a breakpoint where no partition rises each
// partition's window minimum is at most its minimum at the breakpoint
// before (the window there covers the same future plus a value no lower),
// and the first fit is never such an instant. Each partition's window
// minimum is kept by a sliding-window minimum over its steps (both ends of
// the window only move forward), so a reservation costs O(B) for B steps
// in all, not a profile query per partition and instant.
//
// The pivot of a queue often stays the same over many passes in which no
// job starts or ends (submissions that cannot start). When the profiles
// are the same as at the last reservation of the queue's pivot (no start,
// end or overrun since — the base count — and the same reservations
// placed before it in the pass) and that reservation's time is still ≥ now,
// it is the answer again: every instant tried before it failed on the same
// profiles, and now, if it was not tried, lies after a tried instant with
// only falls in between, where each window minimum is no higher (the
// argument above).
func (m *Policy) reserveWide(now int64, q, id, n int, e int64) {
	np := len(m.prof)
	if len(m.wide) < np {
		m.wide = make([]wideScan, np)
		m.wideMemo = make([]wideMemo, np)
	}
	memo := &m.wideMemo[q]
	if memo.amt != nil && memo.id == id && memo.base == m.base && memo.t >= now && slices.Equal(memo.holds, m.holds) {
		m.place(q, n, memo.t, e, memo.amt)
		return
	}
	for p, pr := range m.prof {
		w := &m.wide[p]
		*w = wideScan{steps: pr.AppendSteps(w.steps[:0]), dq: w.dq[:0], free: m.home[p]}
	}
	for t := now; t != profile.Infinity; t = m.nextRise(t) {
		sum := 0
		for p := range m.wide[:np] {
			m.amt[p] = m.wide[p].minFree(t, t+e)
			sum += m.amt[p]
		}
		if sum < n {
			continue
		}
		*memo = wideMemo{id: id, base: m.base, holds: append(memo.holds[:0], m.holds...), t: t, amt: append(memo.amt[:0], m.amt...)}
		m.place(q, n, t, e, m.amt)
		return
	}
	panic("multiqueue: no time fits a job of the machine's size") // unreachable: every hold ends
}

// place holds n processors over [t, t+e) for a pivot of queue q, taking up
// to amt[p] from each partition p, its own partition first, then the next
// ones.
func (m *Policy) place(q, n int, t, e int64, amt []int) {
	need := n
	for k := 0; k < len(m.prof) && need > 0; k++ {
		p := (q + k) % len(m.prof)
		a := min(need, amt[p])
		if a > 0 {
			m.add(p, t, t+e, a)
			need -= a
		}
	}
}

// nextRise is the first instant after t at which some partition's free
// count rises (profile.Infinity: none), the partitions' rising steps
// merged on the fly.
func (m *Policy) nextRise(t int64) int64 {
	next := profile.Infinity
	for p := range m.prof {
		w := &m.wide[p]
		for w.rise < len(w.steps) {
			s, prev := w.steps[w.rise], m.home[p]
			if w.rise > 0 {
				prev = w.steps[w.rise-1].Free
			}
			if s.At > t && s.Free > prev {
				next = min(next, s.At)
				break
			}
			w.rise++
		}
	}
	return next
}

// wideScan is one partition's sliding window over its steps for
// reserveWide: the free count at the window's start and a deque of the
// steps inside the window, with increasing free counts.
type wideScan struct {
	steps []profile.Step
	cur   int // steps[:cur] are at or before the window's start
	next  int // steps[:next] have been offered to the deque
	free  int // free count at the window's start
	dq    []int32
	head  int // dq[head:] is the deque
	rise  int // steps[rise] is the next step that may be a rising instant
}

// minFree is the least free count over [t, end); t and end never
// decrease between calls.
func (w *wideScan) minFree(t, end int64) int {
	st := w.steps
	for w.cur < len(st) && st[w.cur].At <= t {
		w.free = st[w.cur].Free
		w.cur++
	}
	for w.next < len(st) && st[w.next].At < end {
		if st[w.next].At > t {
			f := st[w.next].Free
			for len(w.dq) > w.head && st[w.dq[len(w.dq)-1]].Free >= f {
				w.dq = w.dq[:len(w.dq)-1]
			}
			w.dq = append(w.dq, int32(w.next))
		}
		w.next++
	}
	for w.head < len(w.dq) && st[w.dq[w.head]].At <= t {
		w.head++
	}
	if w.head < len(w.dq) {
		return min(w.free, st[w.dq[w.head]].Free)
	}
	return w.free
}

func (m *Policy) add(p int, s, e int64, n int) {
	if err := m.prof[p].Add(s, e, n); err != nil {
		panic("multiqueue: " + err.Error()) // unreachable: it fits
	}
	m.holds = append(m.holds, hold{p, s, e, n})
	m.first[p] = min(m.first[p], s)
	m.hfree[p] = m.prof[p].FreeAt(m.first[p])
	m.nholds[p]++
	m.memo[p].reset()
	m.gsum.reset()
	m.gDirty = true
}
