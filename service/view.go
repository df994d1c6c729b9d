package service

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/backfill-hpc/backfill/job"
)

// Reads never wait on writes (issue 18). Every change of the engine's
// state publishes, before the engine lock is released, an immutable read
// view (readView) through an atomic pointer; the API's reads (GET of a job,
// the job list, the schedule, the decisions feed, health and the metrics)
// are answered from the latest view without taking the engine lock, so a
// slow write (a cancel that re-plans 10,000 reservations, a slow policy)
// delays only the writes queued behind it.
//
// A view is consistent: it is the state after one whole write (never half
// of one), and a client that got the answer to its write reads that write
// or a later state (the view is published before the write is answered).
// Like the engine, a view may show a write whose commit is still under way
// (a failed commit stops the service); the decisions feed alone shows only
// committed decisions, since a resource manager acts on them.
//
// Publishing costs what the write changed, not the whole state: the jobs
// are copy-on-write chunks of viewChunk jobs (a write copies the chunks of
// the jobs it touched, and those jobs), plus one pass over the policy's
// reservations (policy.Planner), which it lists anyway to answer.

// viewChunk is the number of jobs per copy-on-write chunk of a view.
const viewChunk = 256

type chunk struct {
	jobs [viewChunk]*Job // immutable copies, by internal ID; nil: none or archived
	live int             // jobs not nil; a chunk of none is dropped (nil)
	enc  *chunkEnc       // the chunk's snapshot encoding, made once (snapshot.go)
}

type resvEntry struct {
	id    int
	start int64
}

// readView is an immutable state of the service for reads.
type readView struct {
	status                 string // ok, recovering
	now                    int64
	policy                 string
	procs                  int
	waiting, running, busy int
	passes                 int64
	njobs                  int // jobs ever submitted (internal IDs < njobs)
	chunks                 []*chunk
	resv                   []resvEntry // the policy's reservations, in its order
	decisions              []Decision  // shared with the engine: read [0:len) only

	planOnce sync.Once
	planned  map[int]int64 // from resv, built at first use
}

// job returns the view of the job with internal ID id, or nil (none, or
// finished and archived: read the archive).
func (v *readView) job(id int) *Job {
	if id < 0 || id >= v.njobs || id/viewChunk >= len(v.chunks) {
		return nil
	}
	c := v.chunks[id/viewChunk]
	if c == nil {
		return nil
	}
	return c.jobs[id%viewChunk]
}

// each calls fn for every job in the view, in ID order.
func (v *readView) each(fn func(j *Job)) {
	for _, c := range v.chunks {
		if c == nil {
			continue
		}
		for _, j := range c.jobs {
			if j != nil {
				fn(j)
			}
		}
	}
}

// plannedStart is the start the policy plans for waiting job j in this
// view, or -1.
func (v *readView) plannedStart(j *Job) int64 {
	if j.State != Waiting || len(v.resv) == 0 {
		return -1
	}
	v.planOnce.Do(func() {
		v.planned = make(map[int]int64, len(v.resv))
		for _, r := range v.resv {
			v.planned[r.id] = r.start
		}
	})
	if s, ok := v.planned[j.Req.ID]; ok {
		return s
	}
	return -1
}

// views holds the published view and what the next publication must
// drop (guarded by Service.mu, apart from the atomic pointer).
type views struct {
	cur     atomic.Pointer[readView]
	archive []int // internal IDs whose archive rows are committed: drop them (Service.amu)
	lastCur int64
}

// readView returns the latest published view (never nil once the service
// is open).
func (s *Service) readView() *readView { return s.views.cur.Load() }

// publishLocked publishes the engine's state as the new read view
// (s.mu held). With full, every job is copied (after a restart);
// otherwise only the jobs the engine touched since the last publication.
func (s *Service) publishLocked(full bool) {
	e := s.eng
	old := s.views.cur.Load()
	if old != nil && old.status != "ok" {
		old, full = nil, true
	}
	changed := full || old == nil || len(e.touched) > 0 || e.cur != s.views.lastCur ||
		old.njobs != e.jobs.Len() || old.passes != e.Passes || len(old.decisions) != len(e.decisions) ||
		old.procs != e.procs || old.policy != e.Policy()
	s.amu.Lock()
	archived := s.views.archive
	s.views.archive = nil
	s.amu.Unlock()
	if !changed && len(archived) == 0 {
		return
	}
	w, r, b := e.Counts()
	nv := &readView{status: "ok", now: e.cur, policy: e.Policy(), procs: e.procs, waiting: w, running: r, busy: b,
		passes: e.Passes, njobs: e.jobs.Len(), decisions: e.decisions}
	n := (e.jobs.Len() + viewChunk - 1) / viewChunk
	copied := map[int]bool{}
	set := func(id int, j *Job) {
		ci := id / viewChunk
		if !copied[ci] {
			c := &chunk{}
			if nv.chunks[ci] != nil {
				*c = *nv.chunks[ci]
			}
			c.enc = &chunkEnc{} // new content: encoded anew
			nv.chunks[ci] = c
			copied[ci] = true
		}
		c := nv.chunks[ci]
		if (c.jobs[id%viewChunk] != nil) != (j != nil) {
			if j != nil {
				c.live++
			} else {
				c.live--
			}
		}
		c.jobs[id%viewChunk] = j
		if c.live == 0 {
			// every job of the chunk archived: memory stays bounded by the
			// jobs not finished (set copies a fresh chunk if one comes back)
			nv.chunks[ci] = nil
			delete(copied, ci)
		}
	}
	if full || old == nil {
		nv.chunks = make([]*chunk, n)
		e.jobs.Each(func(id int, j *Job) {
			if j != nil {
				c := *j
				set(id, &c)
			}
		})
	} else {
		nv.chunks = make([]*chunk, n)
		copy(nv.chunks, old.chunks)
		for _, id := range archived {
			// archived: readers find it in the archive from now on
			if e.jobs.Get(id) == nil {
				set(id, nil)
			}
		}
		for _, j := range e.touched {
			c := *j
			set(j.Req.ID, &c)
		}
	}
	e.touched = e.touched[:0]
	switch {
	case !e.planFresh && e.dirty:
		// ends and cancellations re-plan at the instant's pass: listing
		// the reservations now would settle the policy's plan between
		// events of one instant, which can change its later decisions
		// (conservative compresses once per batch of releases); the
		// reservations of the last pass or submission stand until then
		if old != nil {
			nv.resv = old.resv
		}
	case !changed:
		nv.resv = old.resv
	case e.plan != nil && e.Failed() == nil:
		hint := 0 // the previous count: EASY lists a few, conservative all
		if old != nil {
			hint = len(old.resv)
		}
		resv := make([]resvEntry, 0, hint)
		e.plan.Reservations(e.cur, func(r *job.Request, start int64) { resv = append(resv, resvEntry{id: r.ID, start: start}) })
		nv.resv = resv
	}
	s.views.lastCur = e.cur
	s.views.cur.Store(nv)
}

// recoveringView is the view published while the state is rebuilt: every
// API request but health, metrics and the API document is answered 503
// with Retry-After.
func recoveringView(policy string, procs int) *readView {
	return &readView{status: "recovering", policy: policy, procs: procs}
}

// committedDecisions returns a copy of the decisions of ds with after <
// seq ≤ committed (ds is in seq order): a resource manager acts only on
// committed decisions.
func committedDecisions(ds []Decision, after, committed int64) []Decision {
	i, _ := slices.BinarySearchFunc(ds, after+1, cmpDecision)
	k, _ := slices.BinarySearchFunc(ds, committed+1, cmpDecision)
	if k <= i {
		return nil
	}
	return slices.Clone(ds[i:k])
}

func cmpDecision(d Decision, s int64) int {
	switch {
	case d.Seq < s:
		return -1
	case d.Seq > s:
		return 1
	}
	return 0
}
