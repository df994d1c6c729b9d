package kresource

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/internal/fitindex"
	"github.com/backfill-hpc/backfill/internal/minheap"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/profile"
)

// EASY is EASY backfilling on requirement vectors with a backfill
// selection heuristic (FF, BL or BB).
//
// A pass (Tick), with the running jobs held in the multi-resource profile:
//
//  1. waiting jobs start in queue order (arrival order, or the order of
//     Config.Prio) while they fit now, in every resource, for their
//     whole estimate;
//  2. the first that does not fit (the head) gets a reservation at its
//     earliest vector fit S, the shadow time;
//  3. the backfill candidates are the later waiting jobs that fit now for
//     their whole estimate beside the reservation, i.e. that delay the
//     head in no resource: EASY's two criteria resource by resource (end
//     by S, or need no more than the extra units X_i = free_i(S) − head_i
//     of every resource), O(K) per candidate. FF starts them in queue
//     order; BL and BB repeatedly start the candidate with the lowest
//     score (ties by queue order), recomputing the scores after each
//     start, until no candidate fits.
//
// The reservation is recomputed at every pass, as in package easy. For
// K = 1 this is package easy's depth-1 pass (tested job by job); the
// criteria equal the profile test with the reservation held (tested).
type EASY struct {
	cfg   Config
	caps  []int
	k     int
	win   int // BL window, capped at K−1
	run   *policy.RunningK
	queue []*entry // waiting jobs in queue order
	ord   policy.Ordering
	// In arrival order (indexed), started and cancelled jobs stay in
	// queue as gone entries (holes) until they are the majority, and idx
	// indexes the waiting ones by (processors, estimate) position by
	// position, so that the backfill scan visits only jobs that can start
	// in processors (package fitindex). Other orders insert in the middle
	// or re-sort: their queue is scanned whole and compacted every pass.
	indexed bool
	idx     fitindex.Index
	// useIdx says idx holds the queue (indexed only): from the moment the
	// queue holds more than indexFrom waiting jobs until it empties. On a
	// short queue a walk is cheaper than keeping the index (a descent per
	// submission and per start, a rebuild when the queue empties); both
	// return the same positions.
	useIdx bool
	first  int // index of the first entry not gone (indexed)
	holes  int // gone entries at or after first (indexed)
	// viaProfile tests candidates against the profile with the
	// reservation held instead of by the criteria (tests check that the
	// two agree)
	viaProfile bool
	// scratch
	shadow int64 // the head's reservation, Infinity when none
	extra  []int // per resource: free at the shadow time once the head starts
	free   []int
	cands  []cand
	low    []int     // resources by increasing utilization (BL)
	util   []float64 // utilization of each resource (BL)
	shares []float64 // scratch of shares: U_i + R_i, sorted (BB, fullness)
	taken  []bool    // resources matched so far (BL)
}

type entry struct {
	j    *job.Request
	need []int
	gone bool // started during the current pass
}

// cand is a backfilling candidate: its score (Key) and queue index (ID).
type cand = minheap.Item[float64, struct{}]

var _ policy.Scheduler = (*EASY)(nil)

// NewEASY returns the EASY variant cfg for a machine of capacities caps
// (caps[0] processors).
func NewEASY(caps []int, cfg Config) (*EASY, error) {
	run, err := policy.NewRunningK(caps)
	if err != nil {
		return nil, err
	}
	k := len(caps)
	e := &EASY{cfg: cfg, caps: slices.Clone(caps), k: k, win: min(max(cfg.Window, 0), k-1), run: run, ord: policy.NewOrdering(cfg.Prio),
		free: make([]int, k), extra: make([]int, k), low: make([]int, k), util: make([]float64, k), shares: make([]float64, k), taken: make([]bool, k)}
	// The index tests the processors only. With K > 1 every job it returns
	// must still be tested in the other resources, and on reproduce
	// kresource's synthetic workloads (every resource scaled by the job's
	// size) most of them fail there, at the cost of a descent each: the
	// index and its holes cost 3.9× (K = 4, queues of 256) and the holes
	// alone 1.2× (queues of 2,048) the plain scan and compaction of every
	// pass. So the index is for one resource.
	e.indexed = e.ord.Key == nil && !e.ord.Dynamic && k == 1
	return e, nil
}

// Name implements policy.Scheduler: ff-easy, bl-easy or bb-easy with the
// parameters that differ from the defaults.
func (e *EASY) Name() string {
	s := e.cfg.Heuristic.String() + "-easy"
	if e.cfg.Heuristic == BL && e.cfg.Window != 1 {
		s += fmt.Sprintf(":w=%d", e.cfg.Window)
	}
	if e.cfg.Heuristic != FF && e.cfg.NoFullness {
		s += ":fullness=off"
	}
	if !policy.IsArrival(e.ord.O) {
		s += ":order=" + e.ord.O.Name()
	}
	return s
}

// Profile is the policy's availability profile (for tests and tools).
func (e *EASY) Profile() *profile.Multi { return e.run.Prof }

// Insert implements policy.Scheduler.
// A job goes to the end of the queue, or, with an order fixed at
// submission (policy.KeyOrder), to its place by (key, ID); an order that
// changes with time re-sorts the queue at each pass.
func (e *EASY) Insert(now int64, j *job.Request) {
	e.ord.Submitted(now, j)
	x := &entry{j: j, need: policy.NeedVector(j, e.k)}
	if e.ord.Key == nil {
		e.queue = append(e.queue, x)
		switch {
		case !e.indexed:
		case !e.useIdx:
			if len(e.queue)-e.first-e.holes > indexFrom {
				e.rebuild()
			}
		case len(e.queue) > e.idx.Len():
			e.rebuild()
		default:
			e.idx.Set(len(e.queue)-1, x.need[0], j.Estimate)
		}
		return
	}
	key := e.ord.Key
	i, _ := slices.BinarySearchFunc(e.queue, x, func(a, b *entry) int {
		if c := cmp.Compare(key(a.j), key(b.j)); c != 0 {
			return c
		}
		return cmp.Compare(a.j.ID, b.j.ID)
	})
	e.queue = slices.Insert(e.queue, i, x)
}

// Remove implements policy.Scheduler.
func (e *EASY) Remove(now int64, j *job.Request) {
	e.ord.Ended(now, j)
	if running, _ := e.run.End(now, j); running {
		return
	}
	for i := e.first; i < len(e.queue); i++ {
		if x := e.queue[i]; x.j == j && !x.gone {
			if e.indexed {
				x.gone = true
				if e.useIdx {
					e.idx.Clear(i)
				}
				e.holes++
				e.compact()
			} else {
				e.queue = slices.Delete(e.queue, i, i+1)
			}
			return
		}
	}
}

// compact advances first past gone entries, and squeezes the queue when
// they are the majority (amortized O(1) per gone entry; indexed only).
func (e *EASY) compact() {
	for e.first < len(e.queue) && e.queue[e.first].gone {
		e.first++
		e.holes--
	}
	if e.first == len(e.queue) {
		// every position was cleared in the index as its job left: no
		// rebuild, and a short queue again (walked until it grows)
		clear(e.queue)
		e.queue = e.queue[:0]
		e.first, e.holes = 0, 0
		e.useIdx = false
		return
	}
	if e.holes+e.first > 64 && 2*(e.holes+e.first) > len(e.queue) {
		n := 0
		for _, x := range e.queue[e.first:] {
			if !x.gone {
				e.queue[n] = x
				n++
			}
		}
		clear(e.queue[n:])
		e.queue = e.queue[:n]
		e.first, e.holes = 0, 0
		e.rebuild()
	}
}

// indexFrom is the number of waiting jobs above which the backfill scan
// uses the fit index (arrival order, one resource), as in package easy. A
// variable only so that tests can force either route.
var indexFrom = 128

// rebuild makes the index match the queue, with room to grow, once the
// queue holds more than indexFrom waiting jobs (else it leaves the index
// unused).
func (e *EASY) rebuild() {
	if !e.useIdx && len(e.queue)-e.first-e.holes <= indexFrom {
		return
	}
	e.useIdx = true
	e.idx.Reset(max(64, 2*len(e.queue)))
	for i, x := range e.queue {
		if !x.gone {
			e.idx.Put(i, x.need[0], x.j.Estimate)
		}
	}
	e.idx.Build()
}

// next is the first position ≥ i of a waiting job that may start now by
// its processors (indexed): no larger than the free processors, and, with
// the head's reservation computed by the criteria, ending by the shadow
// time or no larger than the extra processors. Every job that fits
// passes; with K > 1 the other resources are tested by fits.
func (e *EASY) next(now int64, i int) int {
	a, f, dur := e.free[0], e.free[0], int64(math.MinInt64)
	if !e.viaProfile && e.shadow != profile.Infinity {
		a, dur = min(e.free[0], e.extra[0]), e.shadow-now
	}
	if e.useIdx {
		return e.idx.Next(i, a, f, dur)
	}
	// the same test by a walk (fitindex.Index.Next's)
	for ; i < len(e.queue); i++ {
		x := e.queue[i]
		if !x.gone && (x.need[0] <= a || (x.need[0] <= f && x.j.Estimate <= dur)) {
			return i
		}
	}
	return -1
}

// fitsFree reports whether need ≤ free in every resource.
func fitsFree(need, free []int) bool {
	for i, n := range need {
		if n > free[i] {
			return false
		}
	}
	return true
}

// Tick implements policy.Scheduler.
func (e *EASY) Tick(now int64, start func(*job.Request)) int64 {
	prof := e.run.Prof
	prof.Forget(now)
	e.ord.Advance(now)
	start = e.ord.Wrap(now, start)
	if e.ord.Dynamic {
		slices.SortFunc(e.queue, func(a, b *entry) int {
			switch {
			case e.ord.O.Less(now, a.j, b.j):
				return -1
			case e.ord.O.Less(now, b.j, a.j):
				return 1
			}
			return cmp.Compare(a.j.ID, b.j.ID)
		})
	}
	if e.run.Overrunning(now) {
		// no reservation is held between passes, so there is room
		if err := e.run.Extend(now); err != nil {
			panic("kresource: " + err.Error()) // unreachable: running jobs fit by construction
		}
	}
	prof.FreeAt(now, e.free)
	e.shadow = profile.Infinity // no reservation yet
	launch := func(i int, x *entry) {
		if err := e.run.StartFor(now, x.j, x.need, x.j.Estimate); err != nil {
			panic("kresource: " + err.Error()) // unreachable: it fits
		}
		for i, n := range x.need {
			e.free[i] -= n
		}
		if !e.viaProfile && now+x.j.Estimate > e.shadow {
			for i, n := range x.need {
				e.extra[i] -= n
			}
		}
		x.gone = true
		if e.indexed {
			if e.useIdx {
				e.idx.Clear(i)
			}
			e.holes++
		}
		start(x.j)
	}
	// 1. start in order while jobs fit
	head := e.first
	for ; head < len(e.queue); head++ {
		x := e.queue[head]
		if x.gone {
			continue
		}
		if !e.fits(now, x) {
			break
		}
		launch(head, x)
	}
	if head < len(e.queue) {
		// 2. the head's reservation
		h := e.queue[head]
		d := h.j.Estimate
		s := prof.EarliestFit(now, d, h.need)
		held := s != profile.Infinity && e.viaProfile // Infinity: the job can never run here
		if held {
			_ = prof.Add(s, s+d, h.need) // cannot fail: it fits at s
		} else if s != profile.Infinity {
			e.shadow = s
			prof.FreeAt(s, e.extra)
			for i, n := range h.need {
				e.extra[i] -= n
			}
		}
		// 3. backfill: in queue order for FF, and for BB and BL on one
		// resource, where every score is 1 (BB: the balance of one
		// resource is 1; BL: the window is K−1 = 0) and ties go by queue
		// order: starting the first fitting candidate again and again is
		// the same as starting each one that fits in one scan, since a
		// candidate that does not fit never will in this pass
		switch {
		case (e.cfg.Heuristic == FF || e.k == 1) && e.indexed:
			for i := head + 1; i < len(e.queue); i++ {
				if i = e.next(now, i); i < 0 {
					break
				}
				if x := e.queue[i]; e.fits(now, x) {
					launch(i, x)
				}
			}
		case e.cfg.Heuristic == FF || e.k == 1:
			for i := head + 1; i < len(e.queue); i++ {
				if x := e.queue[i]; e.fits(now, x) {
					launch(i, x)
				}
			}
		default:
			e.backfillScored(now, head+1, launch)
		}
		if held {
			_ = prof.Remove(s, s+d, h.need)
		}
	}
	if e.indexed {
		e.compact()
		return policy.NoWake
	}
	// drop the started jobs
	n := 0
	for _, x := range e.queue {
		if !x.gone {
			e.queue[n] = x
			n++
		}
	}
	clear(e.queue[n:])
	e.queue = e.queue[:n]
	return policy.NoWake
}

// fits reports whether x can start now for its whole estimate without
// delaying the head's reservation in any resource. With the shadow time S
// and, per resource, the extra units X_i = free_i(S) − head_i, this is
// EASY's two criteria resource by resource: need ≤ free now, and either
// the job ends by S or need ≤ X. It equals the profile test with the
// reservation held (the viaProfile route), because before S the free
// units of every resource only grow (running jobs only end), and from S
// on they never fall below X_i, which they reach at S.
func (e *EASY) fits(now int64, x *entry) bool {
	if !fitsFree(x.need, e.free) {
		return false
	}
	if e.viaProfile {
		return e.run.Prof.Fits(now, x.j.Estimate, x.need)
	}
	return now+x.j.Estimate <= e.shadow || fitsFree(x.need, e.extra)
}

// backfillScored starts the candidates from queue index from on, best
// score first (ties by queue order), re-scoring after every start.
//
// Each round drops the candidates that do not fit for their whole
// estimate — they never will in this pass: capacity only shrinks as jobs
// start, and the reservation stays — scores the others and starts the one
// with the least (score, queue index); the rest are the next round's
// candidates. When none fits, the pass ends. A round costs O(C·K) for C
// candidates (plus a profile query each when the fit is asked of the
// profile).
func (e *EASY) backfillScored(now int64, from int, launch func(int, *entry)) {
	cs := e.cands[:0]
	if e.indexed {
		// only the jobs that may fit by their processors (the others
		// would be dropped, unscored, by the first round)
		for i := from; i < len(e.queue); i++ {
			if i = e.next(now, i); i < 0 {
				break
			}
			if fitsFree(e.queue[i].need, e.free) {
				cs = append(cs, cand{ID: i})
			}
		}
	} else {
		for i := from; i < len(e.queue); i++ {
			if fitsFree(e.queue[i].need, e.free) {
				cs = append(cs, cand{ID: i})
			}
		}
	}
	for len(cs) > 0 {
		e.prepare()
		best := -1 // index in cs of the least (score, ID)
		n := 0
		for _, c := range cs {
			x := e.queue[c.ID]
			if !e.fits(now, x) {
				continue
			}
			c.Key = e.score(x.need)
			cs[n] = c
			if best < 0 || c.Key < cs[best].Key || (c.Key == cs[best].Key && c.ID < cs[best].ID) {
				best = n
			}
			n++
		}
		if best < 0 {
			break
		}
		launch(cs[best].ID, e.queue[cs[best].ID])
		cs = append(cs[:best], cs[best+1:n]...)
	}
	e.cands = cs[:0]
}

// prepare computes, for BL, the resources ordered by increasing
// utilization now (ties by index).
func (e *EASY) prepare() {
	if e.cfg.Heuristic != BL {
		return
	}
	for i := range e.low {
		e.low[i] = i
	}
	for i := range e.util {
		e.util[i] = float64(e.caps[i]-e.free[i]) / float64(e.caps[i])
	}
	slices.SortStableFunc(e.low, func(a, b int) int { return cmp.Compare(e.util[a], e.util[b]) })
}

// score is the candidate's BL or BB score with the current free vector:
// lower is better. With the fullness modifier it is
//
//	1 + (b − 1) · (1 − mean_i(U_i + R_i))
//
// for the balance measure b ≥ 1: the imbalance b − 1 is relaxed by the
// availability left if the job starts, so that a job that nearly fills
// the machine scores close to 1 whatever its balance, and when the machine
// is nearly full every score is close to 1 and arrival order (FF)
// decides. See docs/policies.md for why this reading.
func (e *EASY) score(need []int) float64 {
	var b float64
	switch e.cfg.Heuristic {
	case BB:
		mx, sum := e.sumShares(need)
		b = mx / (sum / float64(e.k))
		if b < 1+1e-12 {
			b = 1 // perfect balance, up to rounding
		}
	case BL:
		b = float64(1 + e.win - e.match(need))
	}
	if e.cfg.NoFullness {
		return b
	}
	return 1 + (b-1)*e.fullness(need)
}

// fullness is 1 − mean_i(U_i + R_i): the mean availability left if the
// job starts.
func (e *EASY) fullness(need []int) float64 {
	_, sum := e.sumShares(need)
	return 1 - sum/float64(e.k)
}

// sumShares is the largest share U_i + R_i and their sum if the job
// needing need starts, summed in increasing order, so that the result
// does not depend on the order in which the machine lists its resources
// (in index order, the same shares gave sums a rounding apart, which
// ranked exactly tied candidates: TestScoreIgnoresResourceOrder).
func (e *EASY) sumShares(need []int) (mx, sum float64) {
	v := e.shares[:len(need)]
	for i, n := range need {
		v[i] = float64(e.caps[i]-e.free[i]+n) / float64(e.caps[i])
	}
	slices.Sort(v)
	for _, x := range v {
		sum += x
	}
	return v[len(v)-1], sum
}

// match is the number m ≤ w of leading positions where the job's
// requirements, largest first (relative to capacity, ties by index), name
// the same resources as the utilizations, lowest first: the job's largest
// requirement is on the least-used resource, its second largest on the
// second least-used, and so on.
func (e *EASY) match(need []int) int {
	m := 0
	clear(e.taken)
	for m < e.win {
		// the m-th largest requirement relative to capacity (exact ties
		// stay ties: both quotients are correctly rounded)
		best, bv := -1, 0.0
		for i, n := range need {
			if e.taken[i] {
				continue
			}
			if v := float64(n) / float64(e.caps[i]); best < 0 || v > bv {
				best, bv = i, v
			}
		}
		if best != e.low[m] {
			break
		}
		e.taken[best] = true
		m++
	}
	return m
}
