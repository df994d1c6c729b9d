// Package reservation is the reservation book of the reservation-based
// policies.
//
// A Book keeps the waiting jobs of a policy that gives every waiting job
// a reservation in the availability profile — conservative backfilling,
// ff-cons (K resources), QoPS/MSB/MRT and slack-based backfilling — and
// the protocol they share around it:
//
//   - the waiting list, sorted by (reservation, job ID), and the jobs by ID;
//   - placing a job at its earliest fit, holding and releasing
//     reservations in the profile;
//   - the releases of an instant (policy.Pending): a Remove only records
//     the capacity an early end or a cancellation frees, and the policy
//     reacts once, when every release of the instant is known (Settle, at
//     the next Insert, pass or query), so that the schedule does not
//     depend on the order in which the ends of one instant are reported;
//   - the catch-up after skipped passes while jobs ran past their
//     estimates (their holds lengthened to now+1, the reservations
//     re-placed in order), the re-plan when running jobs overrun, the
//     pass that starts the jobs whose reservation is now, and the wake-up
//     that skips the pass a reservation waiting only for overrunning jobs
//     would cause;
//   - the compression (Compress): after capacity was freed, each waiting
//     job in reservation order moves to its earliest fit, never later;
//   - policy.Planner's Planned and Reservations.
//
// A Book is generic over the amount a job holds, A: processors (int;
// NewScalar, on a profile.Profile and policy.Running) or a requirement
// vector ([]int; NewVector, on a profile.Multi and policy.RunningK), and
// over X, the policy's own state of a waiting job (Entry.X). What differs
// between the policies — how a new job is placed, what happens to released
// capacity (compression, QoPS's nothing-else, slack's priced search), how
// overrunning holds are extended (predictions) — is the policy's, through
// Hooks and the Entry list.
package reservation

import (
	"cmp"
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/profile"
)

// Infinity is the reservation of a job that can never fit (a requirement
// beyond a capacity): it holds nothing and sorts last.
const Infinity = profile.Infinity

// Entry is a waiting job and its reservation.
type Entry[A, X any] struct {
	J    *job.Request
	Need A     // what the job holds: its processors, or its requirement vector
	Dur  int64 // planned duration (the estimate, or a prediction): fixed while the job waits
	// Start is the current reservation: the job holds Need over [Start,
	// Start+Dur) in the profile. Infinity: no reservation (never fits).
	Start int64
	// First is the reservation given at submission (Add), the bound a
	// policy may guarantee.
	First int64
	// X is the policy's own state of the job.
	X X
	// seq numbers the jobs of Add, from 1 (0: an entry the policy built);
	// history.go
	seq uint64
}

// Cmp orders entries by (Start, job ID): the order of the waiting list.
func Cmp[A, X any](a, b *Entry[A, X]) int {
	if a.Start != b.Start {
		if a.Start < b.Start {
			return -1
		}
		return 1
	}
	return a.J.ID - b.J.ID
}

// Hooks are a policy's own steps in the book's protocol; a nil field takes
// the default.
type Hooks struct {
	// Release reacts to the capacity released at one instant, once all of
	// it is known: freed is the earliest start of released capacity (now
	// for an early end, the reservation for a cancelled job), released the
	// latest end (the early-ended job's hold end, the cancelled
	// reservation's end). Default: Compress.
	Release func(now, freed, released int64)
	// Extend lengthens the holds of the running jobs whose hold has ended
	// by now, after the book removed every reservation. Default:
	// policy.Running.Extend (to now+1, the job may end at any moment); a
	// policy with runtime predictions passes its corrections
	// (Running.ExtendWith).
	Extend func(now int64) error
}

// Book is the reservation book: the waiting jobs of a reservation-based
// policy, each holding its reservation in the profile alongside the
// running jobs. See the package comment.
type Book[A, X any] struct {
	m    machine[A]
	wait []*Entry[A, X] // sorted by (Start, ID)
	byID map[int]*Entry[A, X]
	pend policy.Pending
	// Hooks are the policy's steps; set them before the first call.
	Hooks Hooks
	// Literal makes Compress the paper's literal compression: remove every
	// reservation and re-place all in order (Replan). Tests check the fast
	// compression against it.
	Literal bool
	// FullSearch makes Compress search every waiting job from now to its
	// reservation, without the freed and released bounds or the memory of
	// failed searches (tests check that those change nothing).
	FullSearch bool
	// SearchBudget, when positive, replaces gridBudget (how many blocking
	// runs a compression search crosses before it asks the grid of the
	// pass's fits for a later start): tests set it to 1 so that the grid
	// is used at once.
	SearchBudget int
	// name prefixes the panics of broken invariants
	name   string
	failed []query[A] // the failed searches of a vector compression pass (failBoundVector)
	found  []query[A] // its successful searches (after: the start found; foundBoundVector)
	grid   foundGrid  // all of them (compressScalar)
	// compressScalar's failed and found, as columns (ring.go)
	sfailed, sfound ring
	// compressScalar's jumps (skipping, compress.go): the failures that
	// dominate the later jobs they cover, the index of the list
	cuts  []query[int]
	vcuts []query[[]int] // compressVector's
	ix    skipIndex
	// which jobs a compression can move (history.go): count numbers the
	// jobs of Add, hist is the history of the events that may free
	// capacity (histCut: the count of the last one cut off)
	count   uint64
	hist    []event
	histCut uint64
	// the pending releases apart (settle → compressScalar, spans.go)
	spans []policy.Span
	rels  relSpans
	edge  edgeSet // the released intervals of a pass (edge.go)
	// the compression's scratch: the jobs a pass moved out of order
	// (listMoved) and their indices in wait
	moved   []*Entry[A, X]
	movedAt []int
	// listMoved's state: the last listed position, the last kept job
	// before the listed run that ends there, the greatest listed job
	lastListed          int
	keptPred, maxListed *Entry[A, X]
	mkeys               []movedKey     // sortMoved's keys
	mtmp                []*Entry[A, X] // and its copy of moved
	// ahead is the state before SettleAhead's reaction while a Remove at
	// its instant may undo it, spare its buffers for the next (ahead.go)
	ahead, spare *aheadState[A, X]
	// fitted: every reservation was an earliest fit given all the others,
	// and since then holds were only added or lengthened, except for the
	// capacity released at or after freedFrom (Infinity: none); what a
	// re-plan after an overrun may skip (replan.go)
	fitted    bool
	freedFrom int64
	// the re-plan's memory of fits by shape, and the jobs it moved
	// (replan.go)
	shapes shapeCache
	rmoved []*Entry[A, X]
}

// NewScalar returns an empty book of processor reservations in run's
// profile; name (the policy's) prefixes its panics.
func NewScalar[X any](name string, run *policy.Running) *Book[int, X] {
	return &Book[int, X]{m: &scalar{run: run, p: run.Prof}, byID: make(map[int]*Entry[int, X]), name: name, fitted: true, freedFrom: Infinity}
}

// NewVector returns an empty book of requirement-vector reservations in
// run's multi-resource profile; name (the policy's) prefixes its panics.
func NewVector[X any](name string, run *policy.RunningK) *Book[[]int, X] {
	v := &vector{run: run, m: run.Prof, pms: make([]profile.PrefixMax, run.Prof.K())}
	return &Book[[]int, X]{m: v, byID: make(map[int]*Entry[[]int, X]), name: name, fitted: true, freedFrom: Infinity}
}

func (b *Book[A, X]) fail(err error) {
	panic(b.name + ": " + err.Error())
}

// Len is the number of waiting jobs.
func (b *Book[A, X]) Len() int { return len(b.wait) }

// Wait is the waiting list in (Start, ID) order. A caller that changes
// reservations must keep the profile in step (Hold, Unhold) and restore
// the order (Sort, SetWait).
func (b *Book[A, X]) Wait() []*Entry[A, X] { return b.wait }

// SetWait replaces the waiting list with w, in (Start, ID) order, whose
// entries hold their reservations (a policy that built a new schedule).
func (b *Book[A, X]) SetWait(w []*Entry[A, X]) {
	b.keepAhead()
	b.touch(0)
	b.fitted = false
	b.wait = w
}

// Sort restores the (Start, ID) order after reservations moved.
func (b *Book[A, X]) Sort() {
	b.touch(0)
	b.fitted = false
	b.sort()
}

func (b *Book[A, X]) sort() { slices.SortFunc(b.wait, Cmp[A, X]) }

// Get returns the entry of waiting job id.
func (b *Book[A, X]) Get(id int) (*Entry[A, X], bool) {
	e, ok := b.byID[id]
	return e, ok
}

// Index records e under its job's ID (it is waiting; Insert does it).
func (b *Book[A, X]) Index(e *Entry[A, X]) { b.byID[e.J.ID] = e }

// Hold holds e's Need over [at, at+Dur) in the profile.
func (b *Book[A, X]) Hold(e *Entry[A, X], at int64) {
	b.touch(0)
	b.fitted = false
	if err := b.m.add(at, at+e.Dur, e.Need); err != nil {
		b.fail(err) // unreachable: reservations are found free
	}
}

// Unhold releases e's hold over [at, at+Dur).
func (b *Book[A, X]) Unhold(e *Entry[A, X], at int64) {
	b.touch(0)
	b.fitted = false
	if err := b.m.remove(at, at+e.Dur, e.Need); err != nil {
		b.fail(err) // unreachable: the hold exists
	}
}

// place puts e at its earliest fit from now and holds it there; a job
// that can never fit stays at Infinity, unheld.
func (b *Book[A, X]) place(now int64, e *Entry[A, X]) {
	e.Start = b.m.earliestFit(now, e.Dur, e.Need)
	if e.Start == Infinity {
		return
	}
	if err := b.m.add(e.Start, e.Start+e.Dur, e.Need); err != nil {
		b.fail(err) // unreachable: EarliestFit found room
	}
}

// unplace releases e's reservation.
func (b *Book[A, X]) unplace(e *Entry[A, X]) {
	if e.Start != Infinity {
		_ = b.m.remove(e.Start, e.Start+e.Dur, e.Need)
	}
}

// Add places job j (holding need for dur seconds) at its earliest fit from
// now, records that reservation as its first, and inserts it: the new job
// of conservative backfilling. Call Settle first.
func (b *Book[A, X]) Add(now int64, j *job.Request, need A, dur int64, x X) *Entry[A, X] {
	b.keepAhead()
	b.count++
	if _, _, _, ok := b.pend.Peek(); ok {
		b.touch(0) // not settled: the profile before it is no bound (history.go)
	}
	e := &Entry[A, X]{J: j, Need: need, Dur: dur, X: x, seq: b.count}
	b.place(now, e)
	e.First = e.Start
	b.insert(e)
	return e
}

// Insert adds e, which holds its reservation, to the waiting list and
// the index.
func (b *Book[A, X]) Insert(e *Entry[A, X]) {
	b.keepAhead()
	b.touch(0) // a reservation the book did not place
	b.fitted = false
	b.insert(e)
}

func (b *Book[A, X]) insert(e *Entry[A, X]) {
	i, _ := slices.BinarySearchFunc(b.wait, e, Cmp[A, X])
	b.wait = slices.Insert(b.wait, i, e)
	b.byID[e.J.ID] = e
}

// Settle brings the schedule to now: the catch-up after skipped passes
// (overrunning jobs), then the reaction to the pending releases (Hooks.
// Release). Every Insert, pass and query starts with it.
func (b *Book[A, X]) Settle(now int64) {
	b.keepAhead()
	b.catchUp(now)
	b.settle()
}

// SettleReleases reacts to the pending releases (Hooks.Release) without
// the catch-up: for a call at an instant whose passes were not skipped
// (slack's tick strategy, asked as a job reaches its estimate).
func (b *Book[A, X]) SettleReleases() {
	b.keepAhead()
	b.settle()
}

func (b *Book[A, X]) settle() {
	b.spans = append(b.spans[:0], b.pend.Spans()...)
	now, freed, released, ok := b.pend.Take()
	if !ok {
		return
	}
	if b.Hooks.Release != nil {
		// the hook reacts to these very releases (conservative's Compress
		// with the same bounds, or a re-plan that ignores them), so the
		// spans stay for it
		b.Hooks.Release(now, freed, released)
	} else {
		b.Compress(now, freed, released)
	}
	b.spans = b.spans[:0]
}

// Remove records that j ended (running) or was cancelled (waiting) at
// now. The capacity released is only recorded; the reaction comes when
// every release of the instant is known (Settle), so that the schedule
// does not depend on the order in which the ends of one instant are
// reported, and a job whose hold ends now and whose Remove is still to
// come is not taken for an overrunning one. It returns, for a running
// job, running = true and its start; for a waiting job, its entry, no
// longer in the book; for an unknown job, nothing.
func (b *Book[A, X]) Remove(now int64, j *job.Request) (e *Entry[A, X], running bool, start int64) {
	if a := b.ahead; a != nil {
		if a.now == now {
			b.undoAhead() // the instant's releases are reacted to together
		} else {
			b.keepAhead()
		}
	}
	if b.pend.Due(now) {
		b.settle()
	}
	b.catchUp(now)
	start, holdEnd, _ := b.m.hold(j)
	if running, early := b.m.end(now, j); running {
		if early {
			b.pend.Add(now, now, holdEnd)
			b.touch(0)
			b.freedFrom = min(b.freedFrom, now)
		}
		return nil, true, start
	}
	e, ok := b.byID[j.ID]
	if !ok {
		return nil, false, 0
	}
	b.touch(e.seq)
	delete(b.byID, j.ID)
	b.unplace(e)
	i, _ := slices.BinarySearchFunc(b.wait, e, Cmp[A, X])
	b.wait = slices.Delete(b.wait, i, i+1)
	if e.Start == Infinity {
		b.pend.Add(now, now, now) // nothing held: nothing released
	} else {
		b.pend.Add(now, max(now, e.Start), e.Start+e.Dur)
		b.freedFrom = min(b.freedFrom, e.Start)
	}
	return e, false, 0
}

// Pending returns the releases not yet reacted to (a snapshot saves them);
// ok is false when there are none.
func (b *Book[A, X]) Pending() (now, freed, released int64, ok bool) { return b.pend.Peek() }

// AddPending records releases not yet reacted to (a restored snapshot).
func (b *Book[A, X]) AddPending(now, freed, released int64) {
	b.keepAhead()
	b.touch(0)
	b.fitted = false
	b.pend.Add(now, freed, released)
}

// Pass is the start of a pass at now, after Settle: it forgets the
// profile before now, re-plans if running jobs overrun (Replan), starts
// every job whose reservation is now — its reservation becomes its
// running hold, and started sees its entry, already out of the book — and
// returns the next wake-up (policy.NoWake for none).
func (b *Book[A, X]) Pass(now int64, started func(e *Entry[A, X])) int64 {
	b.keepAhead()
	b.m.forget(now)
	if b.m.overrunning(now) {
		b.Replan(now, nil)
	}
	n := 0
	for n < len(b.wait) && b.wait[n].Start <= now {
		e := b.wait[n]
		b.unplace(e) // the reservation [now, now+Dur) becomes the running hold
		if err := b.m.startFor(now, e.J, e.Need, e.Dur); err != nil {
			b.fail(err) // unreachable: reserved room
		}
		delete(b.byID, e.J.ID)
		started(e)
		n++
	}
	b.wait = slices.Delete(b.wait, 0, n)
	return b.wake(now)
}

// wake is the next reservation after a pass at now. When the first
// reservations are at now+1 only because they wait for overrunning jobs,
// whose holds end at now+1 only because they may end at any moment, there
// is no pass at now+1 unless an event happens then (catchUp).
func (b *Book[A, X]) wake(now int64) int64 {
	i := 0
	if len(b.wait) > 0 && b.wait[0].Start == now+1 && b.m.overrunUntil(now+1) {
		i, _ = slices.BinarySearchFunc(b.wait, now+2, func(e *Entry[A, X], t int64) int {
			return cmp.Compare(e.Start, t)
		})
	}
	if i < len(b.wait) && b.wait[i].Start != Infinity {
		return b.wait[i].Start
	}
	return policy.NoWake
}

// catchUp brings the schedule to now at the first call of an instant
// after passes were skipped while jobs ran past their estimates (wake):
// the holds of those still running are lengthened to now+1 — they may end
// at any moment — and, if any was, the reservations are re-placed in order
// from now. Nothing happens when no such hold ended before now.
func (b *Book[A, X]) catchUp(now int64) {
	if !b.m.stale(now) {
		return
	}
	over := b.m.overran(now)
	if len(over) == 0 {
		return
	}
	fast := b.replanFast(now, nil)
	b.unplaceAll(now, fast)
	if err := b.m.catchUp(now, over); err != nil {
		b.fail(err) // unreachable: no reservations held
	}
	b.replace(now, b.wait, fast)
}

// Replan removes every reservation, extends the holds of running jobs that
// reached their end (Hooks.Extend) and re-places the waiting jobs, each at
// its earliest fit from now, in the order of order (nil: the current
// reservation order). Jobs may move later. It is the paper's compression,
// used as is when running jobs overran their estimate or prediction, and
// the compression of a policy that re-places in a queue order.
func (b *Book[A, X]) Replan(now int64, order []*Entry[A, X]) {
	b.keepAhead()
	fast := b.replanFast(now, order)
	b.unplaceAll(now, fast)
	if b.m.overrunning(now) {
		var err error
		if b.Hooks.Extend != nil {
			err = b.Hooks.Extend(now)
		} else {
			err = b.m.extend(now)
		}
		if err != nil {
			b.fail(err) // unreachable: no reservations held
		}
	}
	if order == nil {
		order = b.wait
	}
	b.replace(now, order, fast)
}

// ReplanInOrder is Replan in queue order o at now (ties by arrival): the
// compression of a policy with a queue order other than arrival, where
// the highest priority is re-placed first. Jobs may move later.
func (b *Book[A, X]) ReplanInOrder(now int64, o policy.Order) {
	order := slices.Clone(b.wait)
	slices.SortFunc(order, func(x, y *Entry[A, X]) int {
		switch {
		case o.Less(now, x.J, y.J):
			return -1
		case o.Less(now, y.J, x.J):
			return 1
		}
		return x.J.ID - y.J.ID
	})
	b.Replan(now, order)
}

// Planned is policy.Planner's: the current reservation of waiting job j.
func (b *Book[A, X]) Planned(now int64, j *job.Request) (int64, bool) {
	b.Settle(now)
	if e, ok := b.byID[j.ID]; ok {
		return e.Start, true
	}
	return 0, false
}

// Reservations is policy.Planner's: every waiting job with its
// reservation, in (start, ID) order.
func (b *Book[A, X]) Reservations(now int64, fn func(j *job.Request, start int64)) {
	b.Settle(now)
	for _, e := range b.wait {
		fn(e.J, e.Start)
	}
}
