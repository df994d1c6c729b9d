// Package easy is EASY (aggressive) backfilling, and its generalization to
// reservations for the first k waiting jobs.
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
package easy

import (
	"fmt"
	"math"

	"backfill/job"
	"backfill/policy"
)

func init() {
	policy.Register(policy.Info{
		Name: "easy",
		Doc:  "EASY backfilling: a reservation for the first waiting job (shadow time, extra nodes); later jobs backfill if they do not delay it",
		Params: []policy.Param{
			{Name: "depth", Default: "1", Doc: "number of waiting jobs that get a reservation (1 = EASY, all = reservations for every waiting job, recomputed each pass)"},
		},
		New: func(procs int, p policy.Params) (policy.Scheduler, error) {
			d, err := p.Int("depth", 1, math.MaxInt)
			if err != nil {
				return nil, err
			}
			if d < 1 {
				return nil, fmt.Errorf("easy: depth must be at least 1, got %d", d)
			}
			return New(procs, d), nil
		},
	})
}

// EASY is EASY backfilling with reservations for the first Depth waiting
// jobs.
type EASY struct {
	depth int
	run   *policy.Running
	queue []*job.Request // waiting jobs in arrival order; nil = started (a hole)
	first int            // index of the first non-hole
	holes int            // holes after first
	idx   minIndex       // sizes by queue position, for the backfill scan
	// scratch for the pass
	held []hold
	// viaProfile makes depth 1 use the general profile route instead of
	// the paper's criteria (tests check that the two agree).
	viaProfile bool
}

type hold struct {
	start, end int64
	n          int
}

var _ policy.Scheduler = (*EASY)(nil)

// New returns EASY backfilling with reservation depth (1 = classic EASY).
func New(procs, depth int) *EASY {
	return &EASY{depth: depth, run: policy.NewRunning(procs)}
}

// Name implements policy.Scheduler.
func (e *EASY) Name() string {
	switch {
	case e.depth == 1:
		return "easy"
	case e.depth == math.MaxInt:
		return "easy:depth=all"
	}
	return fmt.Sprintf("easy:depth=%d", e.depth)
}

// Insert implements policy.Scheduler.
func (e *EASY) Insert(now int64, j *job.Request) {
	e.queue = append(e.queue, j)
	if len(e.queue) > e.idx.n {
		e.rebuild()
	} else {
		e.idx.set(len(e.queue)-1, j.Procs)
	}
}

// Remove implements policy.Scheduler.
func (e *EASY) Remove(now int64, j *job.Request) {
	if running, _ := e.run.End(now, j); running {
		return
	}
	for i := e.first; i < len(e.queue); i++ {
		if e.queue[i] == j {
			e.queue[i] = nil
			e.idx.set(i, hole)
			e.holes++
			e.compact()
			return
		}
	}
}

// squeeze removes every hole from the queue.
func (e *EASY) squeeze() {
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
func (e *EASY) Tick(now int64, start func(*job.Request)) int64 {
	prof := e.run.Prof
	prof.Forget(now)
	if e.run.Overrunning(now) {
		// no reservations are held between passes, so there is room
		if err := e.run.Extend(now); err != nil {
			panic("easy: " + err.Error()) // unreachable: running jobs fit by construction
		}
	}
	free := prof.FreeAt(now)
	if e.depth == 1 && !e.viaProfile {
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
		if reserved < e.depth {
			t := prof.EarliestFit(now, j.Estimate, j.Procs)
			if t == now {
				startNow = true
			} else {
				// temporary reservation for this pass
				_ = prof.Add(t, t+j.Estimate, j.Procs)
				e.held = append(e.held, hold{t, t + j.Estimate, j.Procs})
				reserved++
			}
		} else if j.Procs <= free && prof.Fits(now, j.Estimate, j.Procs) {
			startNow = true
		}
		if startNow {
			if err := e.run.Start(now, j); err != nil {
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
// runs past S. O(1) per candidate after one earliest-fit query; started
// jobs leave holes in the queue, compacted when they outnumber the jobs.
func (e *EASY) tickEASY(now int64, free int, start func(*job.Request)) int64 {
	prof := e.run.Prof
	var shadow int64
	extra := 0
	launch := func(i int, j *job.Request) {
		if err := e.run.Start(now, j); err != nil {
			panic("easy: " + err.Error()) // unreachable: it fits
		}
		free -= j.Procs
		e.queue[i] = nil
		e.idx.set(i, hole)
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
		t := prof.EarliestFit(now, j.Estimate, j.Procs)
		if t == now {
			launch(i, j)
			continue
		}
		shadow = t
		extra = prof.FreeAt(t) - j.Procs
		break
	}
	// backfill: jump from one job no larger than the free processors to
	// the next
	for i++; free > 0; i++ {
		i = e.idx.firstAtMost(i, free)
		if i < 0 || i >= len(e.queue) {
			break
		}
		j := e.queue[i]
		if now+j.Estimate <= shadow {
			launch(i, j)
		} else if j.Procs <= extra {
			extra -= j.Procs
			launch(i, j)
		}
	}
	e.compact()
	return policy.NoWake
}

// compact advances past leading holes, and squeezes the queue when holes
// are the majority (amortized O(1) per removed job).
func (e *EASY) compact() {
	for e.first < len(e.queue) && e.queue[e.first] == nil {
		e.first++
		e.holes--
	}
	if e.first == len(e.queue) {
		e.queue = e.queue[:0]
		e.first, e.holes = 0, 0
		e.rebuild()
		return
	}
	if e.holes+e.first > 64 && 2*(e.holes+e.first) > len(e.queue) {
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
}

// rebuild makes the size index match the queue, with room to grow.
func (e *EASY) rebuild() {
	e.idx.reset(max(64, 2*len(e.queue)))
	for i, j := range e.queue {
		if j != nil {
			e.idx.set(i, j.Procs)
		}
	}
}
