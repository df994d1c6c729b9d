package easy

import (
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// The passes for order sjbf and sjf. The waiting jobs are kept twice: in
// arrival order (fifo) and by (planned duration, ID) (short). Planned
// durations of waiting jobs never change (predictions are made at
// submission and corrected only for running jobs), so short stays sorted.
// Started jobs are marked and filtered out of both slices at the end of the
// pass: O(Q) per pass that starts a job, O(log Q + Q) per insertion.

func (e *Policy) cmpShort(a, b *job.Request) int {
	da, db := e.plan.Dur(a), e.plan.Dur(b)
	switch {
	case da < db:
		return -1
	case da > db:
		return 1
	}
	return a.ID - b.ID
}

func (e *Policy) setState(j *job.Request, s uint8) {
	for j.ID >= len(e.state) {
		e.state = append(e.state, make([]uint8, max(64, len(e.state)))...)
	}
	e.state[j.ID] = s
}

func (e *Policy) insertOrdered(j *job.Request) {
	e.setState(j, stWaiting)
	e.fifo = append(e.fifo, j)
	i, _ := slices.BinarySearchFunc(e.short, j, e.cmpShort)
	e.short = slices.Insert(e.short, i, j)
}

// cancelOrdered removes waiting job j (a cancellation).
func (e *Policy) cancelOrdered(j *job.Request) {
	if j.ID < 0 || j.ID >= len(e.state) || e.state[j.ID] != stWaiting {
		return
	}
	if !slices.Contains(e.fifo, j) {
		return
	}
	e.state[j.ID] = stGone
	e.filter()
}

// filter drops the jobs marked gone from both slices.
func (e *Policy) filter() {
	keep := func(q []*job.Request) []*job.Request {
		n := 0
		for _, j := range q {
			if e.state[j.ID] != stGone {
				q[n] = j
				n++
			}
		}
		clear(q[n:])
		return q[:n]
	}
	e.fifo = keep(e.fifo)
	e.short = keep(e.short)
}

// primary is the order in which jobs start and get reservations.
func (e *Policy) primary() []*job.Request {
	if e.order == SJF {
		return e.short
	}
	return e.fifo
}

// tickOrdered is tickEASY for order sjbf and sjf: jobs start in the
// primary order while they fit; the first that does not gets the shadow
// time S and the extra nodes X; then the other waiting jobs, shortest
// planned duration first, start if they fit now and end by S, or use no
// more than min(free, X). Since candidates come by increasing duration,
// once one ends after S only criterion 2 can start the rest, and the scan
// stops when no extra nodes are left.
func (e *Policy) tickOrdered(now int64, free int, start func(*job.Request)) int64 {
	prof := e.run.Prof
	started := false
	launch := func(j *job.Request, d int64) {
		if err := e.run.StartFor(now, j, d); err != nil {
			panic("easy: " + err.Error()) // unreachable: it fits
		}
		free -= j.Procs
		e.state[j.ID] = stGone
		started = true
		start(j)
	}
	var head *job.Request
	var shadow int64
	extra := 0
	for _, j := range e.primary() {
		if free == 0 {
			break
		}
		d := e.plan.Dur(j)
		t := prof.EarliestFit(now, d, j.Procs)
		if t == now {
			launch(j, d)
			continue
		}
		head, shadow = j, t
		extra = prof.FreeAt(t) - j.Procs
		break
	}
	if head != nil {
		for _, j := range e.short {
			if free == 0 {
				break
			}
			if j == head || e.state[j.ID] != stWaiting {
				continue
			}
			d := e.plan.Dur(j)
			late := now+d > shadow
			if late && extra <= 0 {
				break // every later candidate is at least as long
			}
			if j.Procs > free {
				continue
			}
			if !late {
				launch(j, d)
			} else if j.Procs <= extra {
				extra -= j.Procs
				launch(j, d)
			}
		}
	}
	if started {
		e.filter()
	}
	return policy.NoWake
}

// tickOrderedProfile is the profile route for order sjbf and sjf (any
// depth): in the primary order, jobs start while they fit; from the first
// that does not, the next jobs that do not fit get temporary reservations
// at their earliest fit, up to Depth in all, while those that fit are left
// to the backfill phase; then the waiting jobs without a reservation,
// shortest first, start if they fit now for their whole planned duration
// without touching any reservation.
func (e *Policy) tickOrderedProfile(now int64, free int, start func(*job.Request)) int64 {
	prof := e.run.Prof
	started := false
	launch := func(j *job.Request, d int64) {
		if err := e.run.StartFor(now, j, d); err != nil {
			panic("easy: " + err.Error()) // unreachable: it fits
		}
		free -= j.Procs
		e.state[j.ID] = stGone
		started = true
		start(j)
	}
	e.held = e.held[:0]
	var heldJobs []*job.Request
	reserved := 0
	for _, j := range e.primary() {
		if free == 0 || reserved == e.depth {
			break
		}
		d := e.plan.Dur(j)
		t := prof.EarliestFit(now, d, j.Procs)
		if t == now {
			if reserved == 0 {
				launch(j, d)
			}
			continue // after a reservation: a backfill candidate
		}
		_ = prof.Add(t, t+d, j.Procs)
		e.held = append(e.held, hold{t, t + d, j.Procs})
		e.state[j.ID] = stHeld
		heldJobs = append(heldJobs, j)
		reserved++
	}
	if reserved > 0 {
		for _, j := range e.short {
			if free == 0 {
				break
			}
			if e.state[j.ID] != stWaiting || j.Procs > free {
				continue
			}
			if d := e.plan.Dur(j); prof.Fits(now, d, j.Procs) {
				launch(j, d)
			}
		}
	}
	for _, h := range e.held {
		_ = prof.Remove(h.start, h.end, h.n)
	}
	for _, j := range heldJobs {
		e.state[j.ID] = stWaiting
	}
	if started {
		e.filter()
	}
	return policy.NoWake
}
