package report

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
)

// Processor assignment for the Gantt chart.
//
// The simulator counts free processors; it does not say which processors a
// job held. To draw a schedule as processors × time, Assign gives every job
// processor numbers after the fact, by this rule (deterministic, documented
// in docs/report.md):
//
//  1. Only jobs that held processors for a positive time are placed
//     (Start ≥ 0 and End > Start); zero-length and rejected jobs are not
//     drawn.
//  2. Jobs are placed in order of start time, ties by job ID (the order of
//     the outcomes slice). Before a job is placed, every placed job whose
//     End ≤ its Start releases its processors (a job ending at t frees its
//     processors for a job starting at t, as in the simulator).
//  3. A job of n processors takes the lowest-numbered run of at least n
//     consecutive free processors (first fit). When no such run exists, it
//     takes the lowest-numbered free processors, run by run, until it has
//     n: it is then drawn as several rectangles, one per run.
//
// A valid schedule never holds more than P processors at once, so the rule
// always succeeds within 0 … P−1. A schedule from another tool that holds
// more (its rows) is drawn on extra rows P, P+1, …, and the caller warns.
//
// Cost: O(log R) per rectangle with R = max(P, peak use), using a segment
// tree over processors that keeps, per node, the free count and the longest
// free run (with the free runs touching either end).

// Rect is a run of consecutive processors [Lo, Lo+N) held by job Job (an
// index into the outcomes) from its Start to its End.
type Rect struct {
	Job   int32
	Lo, N int32
}

// Placement is the result of Assign.
type Placement struct {
	// Rects lists the rectangles, grouped by job in order of placement
	// (start time, then ID).
	Rects []Rect
	// Rows is the number of processor rows drawn: P, or the schedule's peak
	// use when it exceeds P.
	Rows int
	// Peak is the largest number of processors held at once.
	Peak int
	// Placed is the number of jobs placed (drawn).
	Placed int
}

// Assign places the jobs of a schedule on procs processors by the rule
// above.
func Assign(outs []job.Outcome, procs int) Placement {
	order := make([]int32, 0, len(outs))
	for i := range outs {
		o := &outs[i]
		if o.Start >= 0 && o.End > o.Start && o.Procs > 0 {
			order = append(order, int32(i))
		}
	}
	byStart := func(a, b int32) int {
		if c := cmp.Compare(outs[a].Start, outs[b].Start); c != 0 {
			return c
		}
		return cmp.Compare(outs[a].ID, outs[b].ID)
	}
	slices.SortFunc(order, byStart)
	ends := slices.Clone(order)
	slices.SortFunc(ends, func(a, b int32) int {
		if c := cmp.Compare(outs[a].End, outs[b].End); c != 0 {
			return c
		}
		return cmp.Compare(outs[a].ID, outs[b].ID)
	})

	// peak use: ends before starts at the same instant
	peak, used := 0, 0
	for i, e := 0, 0; i < len(order); i++ {
		s := &outs[order[i]]
		for e < len(ends) && outs[ends[e]].End <= s.Start {
			used -= outs[ends[e]].Procs
			e++
		}
		used += s.Procs
		peak = max(peak, used)
	}
	rows := max(procs, peak, 1)

	t := newProcTree(rows)
	pl := Placement{Rows: rows, Peak: peak, Placed: len(order)}
	first := make([]int32, len(outs)) // first rect of each placed job
	count := make([]int32, len(outs))
	e := 0
	for _, ji := range order {
		o := &outs[ji]
		for e < len(ends) && outs[ends[e]].End <= o.Start {
			k := ends[e]
			for _, r := range pl.Rects[first[k] : first[k]+count[k]] {
				t.set(int(r.Lo), int(r.Lo+r.N), true)
			}
			e++
		}
		first[ji] = int32(len(pl.Rects))
		need := o.Procs
		if lo := t.firstRun(need); lo >= 0 {
			t.set(lo, lo+need, false)
			pl.Rects = append(pl.Rects, Rect{Job: ji, Lo: int32(lo), N: int32(need)})
		} else {
			pos := 0
			for need > 0 {
				lo := t.nextFree(pos)
				hi := t.nextBusy(lo)
				n := min(hi-lo, need)
				t.set(lo, lo+n, false)
				pl.Rects = append(pl.Rects, Rect{Job: ji, Lo: int32(lo), N: int32(n)})
				need -= n
				pos = lo + n
			}
		}
		count[ji] = int32(len(pl.Rects)) - first[ji]
	}
	return pl
}

// FromAlloc is the Placement of a schedule whose jobs carry their real
// processor ids (alloc[i] for outs[i], Batsim's interval-set syntax "0-3
// 8-11 15": jobs.csv's allocated_resources, written by simulate --machine):
// each interval is a rectangle, jobs in the order of Assign. ok is false,
// and the caller packs with Assign, when alloc is missing or any drawn job
// lacks a valid allocation of exactly its size within 0..procs-1.
func FromAlloc(outs []job.Outcome, alloc []string, procs int) (Placement, bool) {
	if len(alloc) != len(outs) {
		return Placement{}, false
	}
	order := make([]int32, 0, len(outs))
	for i := range outs {
		o := &outs[i]
		if o.Start >= 0 && o.End > o.Start && o.Procs > 0 {
			order = append(order, int32(i))
		}
	}
	slices.SortFunc(order, func(a, b int32) int {
		if c := cmp.Compare(outs[a].Start, outs[b].Start); c != 0 {
			return c
		}
		return cmp.Compare(outs[a].ID, outs[b].ID)
	})
	pl := Placement{Rows: max(procs, 1), Placed: len(order), Peak: peakUse(outs)}
	for _, ji := range order {
		n := 0
		for _, f := range strings.Fields(alloc[ji]) {
			lo, hi, dash := strings.Cut(f, "-")
			a, err1 := strconv.Atoi(lo)
			b := a
			var err2 error
			if dash {
				b, err2 = strconv.Atoi(hi)
			}
			if err1 != nil || err2 != nil || a < 0 || b < a || b >= procs {
				return Placement{}, false
			}
			pl.Rects = append(pl.Rects, Rect{Job: ji, Lo: int32(a), N: int32(b - a + 1)})
			n += b - a + 1
		}
		if n != outs[ji].Procs {
			return Placement{}, false
		}
	}
	return pl, true
}

// procTree is a segment tree over processors 0..n-1 with range
// assignment (free/busy) and queries for free runs.
type procTree struct {
	n    int
	node []procNode
}

type procNode struct {
	free, best, pre, suf int32 // free count, longest free run, free run at the left/right end
	lazy                 int8  // 0 none, 1 all free, 2 all busy
}

func newProcTree(n int) *procTree {
	t := &procTree{n: n, node: make([]procNode, 4*n)}
	t.build(1, 0, n)
	return t
}

func (t *procTree) build(x, lo, hi int) {
	t.fill(x, hi-lo, true)
	if hi-lo > 1 {
		mid := (lo + hi) / 2
		t.build(2*x, lo, mid)
		t.build(2*x+1, mid, hi)
	}
	t.node[x].lazy = 0
}

func (t *procTree) fill(x, length int, free bool) {
	nd := &t.node[x]
	if free {
		l := int32(length)
		nd.free, nd.best, nd.pre, nd.suf, nd.lazy = l, l, l, l, 1
	} else {
		nd.free, nd.best, nd.pre, nd.suf, nd.lazy = 0, 0, 0, 0, 2
	}
}

func (t *procTree) push(x, lo, hi int) {
	if l := t.node[x].lazy; l != 0 && hi-lo > 1 {
		mid := (lo + hi) / 2
		t.fill(2*x, mid-lo, l == 1)
		t.fill(2*x+1, hi-mid, l == 1)
	}
	t.node[x].lazy = 0
}

func (t *procTree) pull(x, lo, hi int) {
	mid := (lo + hi) / 2
	a, b, nd := &t.node[2*x], &t.node[2*x+1], &t.node[x]
	nd.free = a.free + b.free
	nd.best = max(a.best, b.best, a.suf+b.pre)
	nd.pre = a.pre
	if a.pre == int32(mid-lo) {
		nd.pre = a.pre + b.pre
	}
	nd.suf = b.suf
	if b.suf == int32(hi-mid) {
		nd.suf = b.suf + a.suf
	}
}

// set marks processors [a, b) free or busy.
func (t *procTree) set(a, b int, free bool) { t.setRec(1, 0, t.n, a, b, free) }

func (t *procTree) setRec(x, lo, hi, a, b int, free bool) {
	if b <= lo || hi <= a {
		return
	}
	if a <= lo && hi <= b {
		t.fill(x, hi-lo, free)
		return
	}
	t.push(x, lo, hi)
	mid := (lo + hi) / 2
	t.setRec(2*x, lo, mid, a, b, free)
	t.setRec(2*x+1, mid, hi, a, b, free)
	t.pull(x, lo, hi)
}

// firstRun returns the lowest p such that [p, p+need) is free, or -1.
func (t *procTree) firstRun(need int) int {
	if int(t.node[1].best) < need {
		return -1
	}
	x, lo, hi := 1, 0, t.n
	for hi-lo > 1 {
		t.push(x, lo, hi)
		mid := (lo + hi) / 2
		a, b := &t.node[2*x], &t.node[2*x+1]
		switch {
		case int(a.best) >= need:
			x, hi = 2*x, mid
		case int(a.suf+b.pre) >= need:
			return mid - int(a.suf)
		default:
			x, lo = 2*x+1, mid
		}
	}
	return lo
}

// nextFree returns the lowest free processor ≥ from (n if none).
func (t *procTree) nextFree(from int) int { return t.find(1, 0, t.n, from, true) }

// nextBusy returns the lowest busy processor ≥ from (n if none).
func (t *procTree) nextBusy(from int) int { return t.find(1, 0, t.n, from, false) }

func (t *procTree) find(x, lo, hi, from int, free bool) int {
	if hi <= from {
		return t.n
	}
	nd := &t.node[x]
	if free && nd.free == 0 || !free && int(nd.free) == hi-lo {
		return t.n
	}
	if hi-lo == 1 {
		return lo
	}
	t.push(x, lo, hi)
	mid := (lo + hi) / 2
	if r := t.find(2*x, lo, mid, from, free); r < t.n {
		return r
	}
	return t.find(2*x+1, mid, hi, from, free)
}
