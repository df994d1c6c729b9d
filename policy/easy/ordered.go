package easy

import (
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// The passes for order sjbf and sjf. The waiting jobs are kept twice: in
// arrival order (fifo) and by (planned duration, ID) (short, a treap).
// Planned durations of waiting jobs never change (predictions are made at
// submission and corrected only for running jobs), so short stays sorted.
// A started or cancelled job leaves short at once (O(log Q)) and stays in
// fifo, marked gone, until the gone jobs are the majority (amortized O(1)
// per job).

func (e *Policy) setState(j *job.Request, s uint8) {
	for j.ID >= len(e.state) {
		e.state = append(e.state, make([]uint8, max(64, len(e.state)))...)
	}
	e.state[j.ID] = s
}

func (e *Policy) insertOrdered(j *job.Request) {
	e.setState(j, stWaiting)
	e.fifo = append(e.fifo, j)
	e.short.insert(j, e.plan.Dur(j))
}

// cancelOrdered removes waiting job j (a cancellation).
func (e *Policy) cancelOrdered(j *job.Request) {
	if j.ID < 0 || j.ID >= len(e.state) || e.state[j.ID] != stWaiting {
		return
	}
	if !slices.Contains(e.fifo[e.fifoFirst:], j) {
		return
	}
	e.gone(j)
	e.compactFifo()
}

// gone takes waiting job j (started or cancelled) out of short and marks
// it gone in fifo.
func (e *Policy) gone(j *job.Request) {
	e.state[j.ID] = stGone
	if !e.short.remove(j, e.plan.Dur(j)) {
		panic("easy: a waiting job missing from the duration order") // unreachable: planned durations of waiting jobs never change
	}
	e.fifoGone++
}

// compactFifo advances past the gone jobs at the front of fifo, and drops
// every gone job when they are the majority.
func (e *Policy) compactFifo() {
	for e.fifoFirst < len(e.fifo) && e.state[e.fifo[e.fifoFirst].ID] == stGone {
		e.fifoFirst++
		e.fifoGone--
	}
	if e.fifoFirst == len(e.fifo) || (e.fifoGone+e.fifoFirst > 64 && 2*(e.fifoGone+e.fifoFirst) > len(e.fifo)) {
		n := 0
		for _, j := range e.fifo[e.fifoFirst:] {
			if e.state[j.ID] != stGone {
				e.fifo[n] = j
				n++
			}
		}
		clear(e.fifo[n:])
		e.fifo = e.fifo[:n]
		e.fifoFirst, e.fifoGone = 0, 0
	}
}

// primary is the order in which jobs start and get reservations, as a
// slice that may hold gone jobs (skip them by state); O(Q) for sjf.
func (e *Policy) primary() []*job.Request {
	if e.order == SJF {
		return e.shortSlice()
	}
	return e.fifo[e.fifoFirst:]
}

// shortSlice is the waiting jobs by (planned duration, ID), in scratch
// storage valid until the next call.
func (e *Policy) shortSlice() []*job.Request {
	e.shortBuf = e.short.appendTo(e.shortBuf[:0])
	return e.shortBuf
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
	launch := func(j *job.Request, d int64) {
		if err := e.run.StartFor(now, j, d); err != nil {
			panic("easy: " + err.Error()) // unreachable: it fits
		}
		free -= j.Procs
		e.gone(j)
		start(j)
	}
	var head *job.Request
	var shadow int64
	extra := 0
	try := func(j *job.Request) bool { // false at the head
		d := e.plan.Dur(j)
		t := prof.EarliestFit(now, d, j.Procs)
		if t == now {
			launch(j, d)
			return true
		}
		head, shadow = j, t
		extra = prof.FreeAt(t) - j.Procs
		return false
	}
	if e.order == SJF {
		for k := beforeAll; free > 0; {
			j, d := e.short.next(k, math.MaxInt)
			if j == nil || !try(j) {
				break
			}
			k = skey{d, j.ID}
		}
	} else {
		for _, j := range e.fifo[e.fifoFirst:] {
			if free == 0 {
				break
			}
			if e.state[j.ID] == stWaiting && !try(j) {
				break
			}
		}
	}
	if head != nil {
		// the candidates that end by the shadow time (a prefix of the
		// duration order) start if they fit the free processors; the
		// later ones if they also fit the extra nodes
		late := shadow - now // a job runs past S iff its duration > late
		for k := beforeAll; free > 0; {
			j, d := e.short.next(k, free)
			if j == nil || d > late {
				break
			}
			k = skey{d, j.ID}
			if j != head {
				launch(j, d)
			}
		}
		for k := (skey{late, math.MaxInt}); free > 0 && extra > 0; {
			j, d := e.short.next(k, min(free, extra))
			if j == nil {
				break
			}
			k = skey{d, j.ID}
			if j != head {
				extra -= j.Procs
				launch(j, d)
			}
		}
	}
	e.compactFifo()
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
	// started jobs are marked gone and leave short after the pass, so
	// that the walks over short stay valid
	started := e.startedBuf[:0]
	launch := func(j *job.Request, d int64) {
		if err := e.run.StartFor(now, j, d); err != nil {
			panic("easy: " + err.Error()) // unreachable: it fits
		}
		free -= j.Procs
		e.state[j.ID] = stGone
		e.fifoGone++
		started = append(started, j)
		start(j)
	}
	e.held = e.held[:0]
	var heldJobs []*job.Request
	reserved := 0
	// visit is one job of the primary order; false ends the loop
	visit := func(j *job.Request) bool {
		if free == 0 || reserved == e.depth {
			return false
		}
		d := e.plan.Dur(j)
		t := prof.EarliestFit(now, d, j.Procs)
		if t == now {
			if reserved == 0 {
				launch(j, d)
			}
			return true // after a reservation: a backfill candidate
		}
		_ = prof.Add(t, t+d, j.Procs)
		e.held = append(e.held, hold{t, t + d, j.Procs})
		e.state[j.ID] = stHeld
		heldJobs = append(heldJobs, j)
		reserved++
		return true
	}
	if e.order == SJF {
		w := e.short.walk(e.stack)
		for {
			j, _ := w.next(math.MaxInt)
			if j == nil || !visit(j) {
				break
			}
		}
		e.stack = w.stack
	} else {
		for _, j := range e.fifo[e.fifoFirst:] {
			if e.state[j.ID] == stWaiting && !visit(j) {
				break
			}
		}
	}
	if reserved > 0 {
		// the other waiting jobs no larger than the free processors,
		// shortest first (the held ones are skipped)
		w := e.short.walk(e.stack)
		for free > 0 {
			j, d := w.next(free)
			if j == nil {
				break
			}
			if e.state[j.ID] == stWaiting && prof.Fits(now, d, j.Procs) {
				launch(j, d)
			}
		}
		e.stack = w.stack
	}
	for _, j := range started {
		if !e.short.remove(j, e.plan.Dur(j)) {
			panic("easy: a waiting job missing from the duration order") // unreachable: planned durations of waiting jobs never change
		}
	}
	clear(started)
	e.startedBuf = started[:0]
	for _, h := range e.held {
		_ = prof.Remove(h.start, h.end, h.n)
	}
	for _, j := range heldJobs {
		e.state[j.ID] = stWaiting
	}
	e.compactFifo()
	return policy.NoWake
}
