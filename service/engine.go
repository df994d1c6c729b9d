package service

import (
	"encoding/json"
	"fmt"
	"github.com/backfill-hpc/backfill/internal/idwin"
	"math"
	"slices"

	"github.com/backfill-hpc/backfill/engine"
	"github.com/backfill-hpc/backfill/internal/minheap"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/service/store"
)

// State is the state of a job in the service.
type State string

// Job states. A job is waiting until the policy starts it, then running
// until it ends: completed (it ended by itself, reported by the executor
// or the resource manager), timeout (it reached its limit, start +
// estimate, and was killed), failed (it ended by itself with a non-zero
// exit status, as Slurm's FAILED), or cancelled (by its user or an
// admin). A job refused by admission control is rejected at once.
const (
	Waiting   State = "waiting"
	Running   State = "running"
	Completed State = "completed"
	Failed    State = "failed"
	Timeout   State = "timeout"
	Cancelled State = "cancelled"
	Rejected  State = "rejected"
)

// Final reports whether a job in state s will never change again.
func (s State) Final() bool { return s != Waiting && s != Running }

// Job is a job known to the service.
type Job struct {
	// Req is what the policy sees. Req.ID is the dense internal index;
	// the public id is Req.ID+1 (Req.SWFID).
	Req job.Request
	// UID is the owner's user id (store.User.ID, never reused); User is
	// the owner's name, for display only. Legacy logs have UID 0: the
	// owner is then the user of that name when the log is loaded.
	UID       int64
	User      string
	Workdir   string // the submit directory (local executor: the job's working directory)
	Name      string
	Command   string
	Key       string // idempotency key given at submission ("" for none)
	State     State
	Start     int64 // -1 until started
	End       int64 // -1 until ended
	Guarantee int64 // latest start promised at submission, -1 for none
	Reason    string
	ExitCode  *int
	OverQuota bool
	// Ref is the executor's handle (a process ID, a Slurm job ID).
	Ref string
}

// ID is the job's public id (1, 2, …).
func (j *Job) ID() int64 { return int64(j.Req.ID) + 1 }

// Limit is the time at which a running job is killed: start + estimate.
func (j *Job) Limit() int64 { return j.Start + j.Req.Estimate }

// Record is one entry of the event log: exactly the calls the engine made
// to the policy (submit → Insert, end and cancel → Remove, tick → Tick),
// plus executor handles. Replaying the records through a fresh policy
// rebuilds the same state, since policies are deterministic.
type Record = store.Record

// Record kinds.
const (
	KindSubmit = "submit"
	KindEnd    = "end"
	KindCancel = "cancel"
	KindTick   = "tick"
	KindExec   = "exec"
	KindOwner  = "owner"
	KindIDs    = "ids"
)

// OwnerKey identifies a job's owner in the engine's maps: the user id,
// or the name for jobs of legacy logs (UID 0).
func OwnerKey(uid int64, name string) string {
	if uid > 0 {
		return "#" + fmt.Sprint(uid)
	}
	return name
}

func (j *Job) owner() string { return OwnerKey(j.UID, j.User) }

type submitData struct {
	ID        int64   `json:"id"`
	UID       int64   `json:"uid,omitempty"`
	User      string  `json:"user"`
	Procs     int     `json:"procs"`
	Estimate  int64   `json:"estimate"`
	UP        float64 `json:"up"`
	PP        float64 `json:"pp"`
	OverQuota bool    `json:"over_quota,omitempty"`
	Deadline  int64   `json:"deadline,omitempty"`
	Name      string  `json:"name,omitempty"`
	Command   string  `json:"command,omitempty"`
	Workdir   string  `json:"workdir,omitempty"`
	Key       string  `json:"key,omitempty"`
	// the decision, checked on replay
	Admitted  bool   `json:"admitted"`
	Reason    string `json:"reason,omitempty"`
	Guarantee int64  `json:"guarantee"`
}

type endData struct {
	ID     int64  `json:"id"`
	Reason string `json:"reason"` // completed, failed, timeout
	Exit   *int   `json:"exit,omitempty"`
	Note   string `json:"note,omitempty"`
}

type cancelData struct {
	ID   int64  `json:"id"`
	Note string `json:"note,omitempty"`
}

type ownerData struct {
	ID   int64  `json:"id"`
	UID  int64  `json:"uid"`
	User string `json:"user"`
	Note string `json:"note,omitempty"`
}

type idsData struct {
	Next int64  `json:"next"` // the id of the next job
	Note string `json:"note,omitempty"`
}

type tickData struct {
	Started []int64 `json:"started"`
}

type execData struct {
	ID  int64  `json:"id"`
	Ref string `json:"ref"`
}

// Effect is something the executor must do once the records that decided
// it are committed.
type Effect struct {
	Kind string // "submit" (a job was admitted), "start", "kill"
	Job  *Job
}

// Decision is what a resource manager polls in advisor mode: start a
// job, or stop it (its limit was reached, or it was cancelled).
type Decision struct {
	Seq    int64  `json:"seq"`
	Action string `json:"action"` // start, stop
	ID     int64  `json:"id"`
	T      int64  `json:"time"`
}

// SubmitInput is a validated submission.
type SubmitInput struct {
	UID      int64
	User     string
	Workdir  string
	Procs    int
	Estimate int64
	UP, PP   float64
	Quota    int64 // processor-seconds of waiting+running work allowed; 0 = none
	Deadline int64
	Name     string
	Command  string
	Key      string
}

// Engine drives a policy with the events of a live system, in the order
// the simulator uses (sim.Run): at each instant, ends and cancellations,
// submissions, then one pass (Tick). The policy is called only through
// the core the simulator uses (package engine), so every start is checked
// the same way (known job, waiting, fits the free processors) and a
// wake-up in the past is an error; after such a policy error the core
// refuses every later call (Failed). It is not safe for concurrent use;
// the Service serializes calls. Every call that changes state appends
// Records (to be committed before anyone is answered) and Effects (for the
// executor, after the commit).
type Engine struct {
	core  *engine.Engine
	plan  policy.Planner
	procs int

	// jobs are the waiting and running jobs by internal ID; a job that
	// finishes is retired: its entry becomes nil, it goes to finished
	// (for the service to archive in the same commit as its record) and
	// Archived finds it again. Memory is thus bounded by the active jobs
	// (plus 8 bytes per job ever).
	jobs     idwin.Window[*Job]
	byKey    map[string]*Job
	finished []*Job
	// Archived, if set, finds a retired job by public id (or by owner and
	// idempotency key, id 0) in the archive.
	Archived func(id int64, owner, key string) *Job
	cur      int64 // current instant
	dirty    bool  // events at cur since its last pass
	wake     int64
	lims     minheap.Heap[int64, struct{}]
	seq      int64

	outstanding map[string]int64 // owner (OwnerKey) → processor-seconds waiting or running
	userIDs     map[string]int32 // owner (OwnerKey) → dense number, in order of first submission

	decisions []Decision

	out     []Record
	effects []Effect
	started []*Job // started during the current operation
	replay  bool
	// touched are the jobs changed since the service last published its
	// read view (view.go); not kept during a replay
	touched []*Job
	// planFresh: the policy's plan is settled at cur (the last operation
	// was a pass or a submission), so listing its reservations cannot
	// change its later decisions (view.go)
	planFresh bool

	// aheadAt is the instant of the last SettleAhead that a release at
	// that instant would undo (none once a submission or a pass kept it);
	// burstAt the last instant at which a release did (SettleAhead)
	aheadAt, burstAt int64

	// Stats
	Passes int64
}

// NewEngine returns an engine for policy sched on procs processors, at
// time start. Jobs are killed at their limits, so a policy.Guarantor's
// bounds hold and are reported.
func NewEngine(sched policy.Scheduler, procs int, start int64) (*Engine, error) {
	core, err := engine.New(sched, engine.Config{Procs: procs, Guarantees: true})
	if err != nil {
		return nil, err
	}
	e := &Engine{core: core, plan: core.Planner(), procs: procs, byKey: map[string]*Job{}, cur: start, wake: policy.NoWake, outstanding: map[string]int64{}, userIDs: map[string]int32{},
		aheadAt: math.MinInt64, burstAt: math.MinInt64}
	return e, nil
}

// Policy returns the policy's name.
func (e *Engine) Policy() string { return e.core.Name() }

// Failed is the policy's error that stopped the engine (a start beyond
// capacity, a wake-up in the past, …), or nil.
func (e *Engine) Failed() error { return e.core.Err() }

// Procs is the machine size.
func (e *Engine) Procs() int { return e.procs }

// Now is the current instant.
func (e *Engine) Now() int64 { return e.cur }

// Admits reports whether the policy does admission control (deadlines).
func (e *Engine) Admits() bool { return e.core.Admits() }

// Counts returns the numbers of waiting and running jobs and of busy
// processors.
func (e *Engine) Counts() (waiting, running, busy int) {
	return e.core.Waiting(), e.core.Running(), e.core.Busy()
}

// Jobs returns the jobs by internal ID, nil for the finished ones (do
// not modify).
func (e *Engine) Jobs() []*Job { return e.jobs.Slice() }

// Job returns the job with public id (from the archive if it finished),
// or nil.
func (e *Engine) Job(id int64) *Job {
	if id < 1 || id > int64(e.jobs.Len()) {
		return nil
	}
	if j := e.jobs.Get(int(id - 1)); j != nil {
		return j
	}
	if e.Archived != nil {
		return e.Archived(id, "", "")
	}
	return nil
}

// ByKey returns the job submitted by owner (OwnerKey) with idempotency
// key (from the archive if it finished), or nil.
func (e *Engine) ByKey(owner, key string) *Job {
	if j := e.byKey[owner+"\x00"+key]; j != nil {
		return j
	}
	if e.Archived != nil {
		return e.Archived(0, owner, key)
	}
	return nil
}

// TakeFinished returns and clears the jobs retired since the last call.
func (e *Engine) TakeFinished() []*Job {
	f := e.finished
	e.finished = nil
	return f
}

// touch notes that job j changed (for the read view).
func (e *Engine) touch(j *Job) {
	if !e.replay {
		e.touched = append(e.touched, j)
	}
}

// retire drops finished job j from memory (finished keeps it for the
// archive until the service takes it).
func (e *Engine) retire(j *Job) {
	*e.jobs.At(j.Req.ID) = nil
	e.jobs.Trim(func(j *Job) bool { return j == nil })
	if j.Key != "" {
		delete(e.byKey, j.owner()+"\x00"+j.Key)
	}
	e.finished = append(e.finished, j)
}

// keepDecisions is how many start/stop decisions the feed keeps (a
// resource manager polling from further back gets the oldest kept).
const keepDecisions = 100000

func (e *Engine) trimDecisions() {
	if len(e.decisions) > 2*keepDecisions {
		e.decisions = append(e.decisions[:0:0], e.decisions[len(e.decisions)-keepDecisions:]...)
	}
}

// Take returns and clears the records and effects produced so far.
func (e *Engine) Take() ([]Record, []Effect) {
	r, f := e.out, e.effects
	e.out, e.effects = nil, nil
	return r, f
}

// TakeStarted returns and clears the jobs started since the last call.
func (e *Engine) TakeStarted() []*Job {
	s := e.started
	e.started = nil
	return s
}

// Decisions returns the start/stop decisions with seq > after.
func (e *Engine) Decisions(after int64) []Decision {
	i, _ := slices.BinarySearchFunc(e.decisions, after+1, func(d Decision, s int64) int {
		switch {
		case d.Seq < s:
			return -1
		case d.Seq > s:
			return 1
		}
		return 0
	})
	return e.decisions[i:]
}

// Next is the earliest instant ≥ Now at which the engine will run a pass
// by itself (pending events at Now, a wake-up asked by the policy, or the
// limit of a running job), or policy.NoWake.
func (e *Engine) Next() int64 {
	if e.dirty {
		return e.cur
	}
	return min(e.wake, e.limMin())
}

func (e *Engine) emit(kind string, t int64, v any) int64 {
	data, err := json.Marshal(v)
	if err != nil {
		panic("service: " + err.Error()) // unreachable: plain structs
	}
	e.seq++
	if !e.replay {
		r := Record{Seq: e.seq, Kind: kind, T: t, Data: data}
		if d, ok := v.(submitData); ok {
			r.Job = d.ID
		}
		e.out = append(e.out, r)
	}
	return e.seq
}

// Advance moves time to t (t ≥ Now): every instant before t that has work
// (pending events, wake-ups, limits) gets its pass, in order; instant t is
// entered but its pass is left for Flush or a later Advance, so that
// events at t come first.
func (e *Engine) Advance(t int64) error {
	if t < e.cur {
		return fmt.Errorf("time %d is before the current instant %d", t, e.cur)
	}
	if t == e.cur {
		return nil
	}
	for {
		if e.dirty {
			if err := e.pass(); err != nil {
				return err
			}
		}
		x := min(e.wake, e.limMin())
		if x >= t {
			break
		}
		e.cur, e.dirty, e.planFresh = x, true, false
	}
	if t > e.cur {
		e.cur, e.planFresh = t, false
		e.dirty = e.wake == t || e.limMin() == t
	}
	return nil
}

// SettleAhead lets the policy react now to the capacity released at the
// current instant (policy.SettlerAhead: conservative compresses), at the
// end of the request that released it, instead of inside the next
// submission; the decisions do not change (a later release at the same
// instant undoes it first). Not during a replay: replaying the records
// gives the same state without it.
//
// When a release undid a compression made ahead (a burst of releases in
// one instant), the rest of the instant is left to the policy's next call:
// each further release would undo the compression again, wasted work
// under the engine lock; so at most one compression per instant is
// wasted.
func (e *Engine) SettleAhead() {
	if e.replay || !e.dirty || e.core.Err() != nil || e.burstAt == e.cur {
		return
	}
	if ok, _ := e.core.SettleAhead(e.cur); ok { // the core's instant is never after cur
		e.aheadAt = e.cur
	}
}

// Flush runs the pass of the current instant if it has work.
func (e *Engine) Flush() error {
	if e.dirty {
		return e.pass()
	}
	return nil
}

// pass ends the running jobs whose limit is now (killed at start +
// estimate, as in the simulator's kill mode), then runs one Tick.
func (e *Engine) pass() error {
	now := e.cur
	if err := e.killDue(); err != nil {
		return err
	}
	var started []int64
	wake, err := e.core.Pass(now, func(r *job.Request) {
		j := e.jobs.Get(r.ID)
		j.State, j.Start = Running, now
		e.touch(j)
		e.lims.Push(limitItem{Key: j.Limit(), ID: r.ID})
		started = append(started, j.ID())
		e.started = append(e.started, j)
		e.effects = append(e.effects, Effect{Kind: "start", Job: j})
	})
	e.Passes++
	e.aheadAt = math.MinInt64 // the pass kept a compression made ahead
	if err != nil {
		// the policy broke the protocol: nothing of this pass is logged
		// or executed, and the core refuses every later call
		e.out, e.effects, e.started = nil, nil, nil
		return err
	}
	e.wake = wake
	e.dirty = false
	e.planFresh = !e.replay
	seq := e.emit(KindTick, now, tickData{Started: started})
	for _, id := range started {
		e.decisions = append(e.decisions, Decision{Seq: seq, Action: "start", ID: id, T: now})
	}
	e.trimDecisions()
	return nil
}

// killDue ends the running jobs whose limit is now: killed at start +
// estimate, as in the simulator's kill mode. It runs before the first
// submission and before the pass of an instant (an end the executor
// reports at the limit's instant comes first and wins: the job completed).
func (e *Engine) killDue() error {
	now := e.cur
	for e.limMin() == now {
		it := e.lims.Pop()
		j := e.jobs.Get(it.ID)
		if j == nil || j.State != Running || j.Limit() != now {
			continue // ended earlier; stale entry
		}
		if err := e.end(now, j, Timeout, nil, ""); err != nil {
			return err
		}
		e.effects = append(e.effects, Effect{Kind: "kill", Job: j})
	}
	return nil
}

func (e *Engine) end(now int64, j *Job, st State, exit *int, note string) error {
	wasRunning := j.State == Running
	var err error
	if wasRunning {
		_, err = e.core.End(now, &j.Req)
	} else {
		err = e.core.Cancel(now, &j.Req)
	}
	if err != nil {
		return err
	}
	if e.aheadAt == now {
		e.burstAt = now // the policy undid its compression made ahead
	}
	j.State, j.End, j.ExitCode = st, now, exit
	if note != "" {
		j.Reason = note
	}
	e.touch(j)
	e.outstanding[j.owner()] -= int64(j.Req.Procs) * j.Req.Estimate
	e.dirty, e.planFresh = true, false
	var seq int64
	if st == Cancelled {
		seq = e.emit(KindCancel, now, cancelData{ID: j.ID(), Note: note})
	} else {
		seq = e.emit(KindEnd, now, endData{ID: j.ID(), Reason: string(st), Exit: exit, Note: note})
	}
	if wasRunning {
		e.decisions = append(e.decisions, Decision{Seq: seq, Action: "stop", ID: j.ID(), T: now})
		e.trimDecisions()
	}
	e.retire(j)
	return nil
}

// Submit admits a job at instant t (after Advance(t)): the policy's
// Insert, its admission decision (a policy.Admitter), the guarantee (a
// policy.Guarantor). A job the policy rejects is recorded as rejected.
func (e *Engine) Submit(t int64, in SubmitInput) (*Job, error) {
	if err := e.Advance(t); err != nil {
		return nil, err
	}
	// ends come before submissions (sim.Run): a job whose limit is t is
	// killed before the policy sees the new job
	if err := e.killDue(); err != nil {
		return nil, err
	}
	if in.Key != "" {
		if j := e.ByKey(OwnerKey(in.UID, in.User), in.Key); j != nil {
			return j, nil
		}
	}
	if in.Procs < 1 || in.Procs > e.procs || in.Estimate < 1 {
		return nil, fmt.Errorf("job of %d processors with estimate %d on a machine of %d", in.Procs, in.Estimate, e.procs)
	}
	id := e.jobs.Len()
	j := &Job{
		Req: job.Request{
			ID: id, SWFID: int64(id) + 1, Submit: t, Procs: in.Procs, Estimate: in.Estimate,
			User: -1, Group: -1, Queue: -1, Partition: -1, UP: in.UP, PP: in.PP, Deadline: in.Deadline,
		},
		UID: in.UID, User: in.User, Workdir: in.Workdir, Name: in.Name, Command: in.Command, Key: in.Key,
		State: Waiting, Start: -1, End: -1, Guarantee: -1,
	}
	if in.Quota > 0 && e.outstanding[j.owner()]+int64(in.Procs)*in.Estimate > in.Quota {
		// over quota: the paper's soft policy (Talby & Feitelson §2.3),
		// PP = −∞: the job runs only where it disturbs nobody
		j.Req.PP = math.Inf(-1)
		j.OverQuota = true
	}
	return j, e.insert(t, j, nil)
}

// insert runs the policy's Insert for a new job; want is the logged
// decision on replay (nil live).
func (e *Engine) insert(t int64, j *Job, want *submitData) error {
	uid, ok := e.userIDs[j.owner()]
	if !ok {
		uid = int32(len(e.userIDs))
	}
	// the policy sees users as numbers (runtime predictors group jobs by
	// user), numbered in order of their first job
	j.Req.User = uid
	a, err := e.core.Submit(t, &j.Req)
	if err != nil {
		return err
	}
	e.aheadAt = math.MinInt64 // the policy's Insert kept a compression made ahead
	e.userIDs[j.owner()] = uid
	e.jobs.Append(j)
	defer e.touch(j) // after the decision below
	if j.Key != "" {
		e.byKey[j.owner()+"\x00"+j.Key] = j
	}
	e.dirty = true
	if a.Admitted {
		e.outstanding[j.owner()] += int64(j.Req.Procs) * j.Req.Estimate
		j.Guarantee = a.Bound
	} else {
		j.State, j.Reason = Rejected, a.Reason
		if j.Reason == "" {
			j.Reason = "rejected by admission control"
		}
	}
	d := submitData{
		ID: j.ID(), UID: j.UID, User: j.User, Workdir: j.Workdir, Procs: j.Req.Procs, Estimate: j.Req.Estimate, UP: j.Req.UP, PP: j.Req.PP,
		OverQuota: j.OverQuota, Deadline: j.Req.Deadline, Name: j.Name, Command: j.Command, Key: j.Key,
		Admitted: a.Admitted, Reason: a.Reason, Guarantee: j.Guarantee,
	}
	if math.IsInf(d.PP, -1) {
		d.PP = 0 // JSON has no −∞; OverQuota carries it
	}
	if want != nil && (want.Admitted != d.Admitted || want.Guarantee != d.Guarantee) {
		return fmt.Errorf("replay diverged at job %d: logged admitted=%v guarantee=%d, policy now says admitted=%v guarantee=%d",
			j.ID(), want.Admitted, want.Guarantee, d.Admitted, d.Guarantee)
	}
	e.emit(KindSubmit, t, d)
	e.planFresh = !e.replay
	if a.Admitted {
		e.effects = append(e.effects, Effect{Kind: "submit", Job: j})
	} else {
		e.retire(j)
	}
	return nil
}

// Planned is the start the policy currently plans for a waiting job
// (policy.Planner), or -1.
func (e *Engine) Planned(j *Job) int64 {
	if e.plan == nil || j.State != Waiting {
		return -1
	}
	if s, ok := e.plan.Planned(e.cur, &j.Req); ok {
		return s
	}
	return -1
}

// Reservations lists the planned starts of the waiting jobs.
func (e *Engine) Reservations(fn func(j *Job, start int64)) {
	if e.plan == nil {
		return
	}
	e.plan.Reservations(e.cur, func(r *job.Request, s int64) { fn(e.jobs.Get(r.ID), s) })
}

// End records at instant t that running job j ended by itself with exit
// status exit (nil if unknown). A job that already ended is left as it is
// (an end reported twice, or after the job's limit, changes nothing); ok
// reports whether this call ended it.
func (e *Engine) End(t int64, j *Job, exit *int, note string) (ok bool, err error) {
	if err := e.Advance(t); err != nil {
		return false, err
	}
	if j.State != Running {
		if j.State == Waiting {
			return false, fmt.Errorf("job %d has not started", j.ID())
		}
		return false, nil
	}
	st := Completed
	if exit != nil && *exit != 0 {
		st = Failed
	}
	if err := e.end(t, j, st, exit, note); err != nil {
		return false, err
	}
	return true, nil
}

// Fail records at instant t that running job j could not run (its
// executor failed to start it): failed, without an exit status.
func (e *Engine) Fail(t int64, j *Job, note string) (bool, error) {
	if err := e.Advance(t); err != nil {
		return false, err
	}
	if j.State != Running {
		return false, nil
	}
	if err := e.end(t, j, Failed, nil, note); err != nil {
		return false, err
	}
	return true, nil
}

// Cancel cancels waiting or running job j at instant t; a running job is
// killed by the executor. Cancelling a finished job changes nothing.
func (e *Engine) Cancel(t int64, j *Job) (bool, error) { return e.CancelNote(t, j, "") }

// CancelNote is Cancel with a note recorded in the log (e.g. "owner
// deleted").
func (e *Engine) CancelNote(t int64, j *Job, note string) (bool, error) {
	if err := e.Advance(t); err != nil {
		return false, err
	}
	if j.State.Final() {
		return false, nil
	}
	running := j.State == Running
	if err := e.end(t, j, Cancelled, nil, note); err != nil {
		return false, err
	}
	if running {
		e.effects = append(e.effects, Effect{Kind: "kill", Job: j})
	} else {
		e.effects = append(e.effects, Effect{Kind: "cancel", Job: j})
	}
	return true, nil
}

// SetOwner gives job j to the user with id uid and name user (a deleted
// user's jobs kept for the admin), recorded in the log with note.
func (e *Engine) SetOwner(j *Job, uid int64, user, note string) {
	e.chown(j, uid, user)
	e.emit(KindOwner, e.cur, ownerData{ID: j.ID(), UID: uid, User: user, Note: note})
}

func (e *Engine) chown(j *Job, uid int64, user string) {
	if !j.State.Final() {
		w := int64(j.Req.Procs) * j.Req.Estimate
		e.outstanding[j.owner()] -= w
		defer func() { e.outstanding[j.owner()] += w }()
	}
	j.UID, j.User = uid, user
	e.touch(j)
}

// SkipIDs makes next the id of the next job (next > the ids given so
// far), recorded in the log: after a loss was accepted, the ids of the
// jobs lost are never given again (the service takes the highest id
// acknowledged from the high-water mark).
func (e *Engine) SkipIDs(next int64, note string) error {
	if err := e.skip(next); err != nil {
		return err
	}
	e.emit(KindIDs, e.cur, idsData{Next: next, Note: note})
	return nil
}

func (e *Engine) skip(next int64) error {
	if next <= int64(e.jobs.Len()) {
		return fmt.Errorf("next job id %d: ids up to %d are taken", next, e.jobs.Len())
	}
	if err := e.core.Skip(int(next - 1)); err != nil {
		return err
	}
	e.jobs.Cover(int(next-2), nil)
	e.jobs.Trim(func(j *Job) bool { return j == nil })
	return nil
}

// SetRef records the executor's handle of job j.
func (e *Engine) SetRef(j *Job, ref string) {
	j.Ref = ref
	e.touch(j)
	e.emit(KindExec, e.cur, execData{ID: j.ID(), Ref: ref})
}

// Replay applies one logged record. Records must come in log order, into
// a fresh engine with the same policy and machine size.
func (e *Engine) Replay(r Record) error {
	e.replay = true
	defer func() { e.replay = false }()
	if r.Seq <= e.seq {
		return fmt.Errorf("record %d after record %d: the log is out of order", r.Seq, e.seq)
	}
	if r.T < e.cur {
		return fmt.Errorf("record %d at time %d, before %d", r.Seq, r.T, e.cur)
	}
	if r.T > e.cur {
		e.cur, e.dirty = r.T, false
	}
	bad := func(err error) error { return fmt.Errorf("record %d (%s at %d): %w", r.Seq, r.Kind, r.T, err) }
	get := func(id int64) (*Job, error) {
		j := e.Job(id)
		if j == nil {
			return nil, fmt.Errorf("unknown job %d", id)
		}
		return j, nil
	}
	e.seq = r.Seq - 1
	switch r.Kind {
	case KindSubmit:
		var d submitData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		if d.ID != int64(e.jobs.Len())+1 {
			return bad(fmt.Errorf("job id %d, expected %d", d.ID, e.jobs.Len()+1))
		}
		if d.Procs < 1 || d.Procs > e.procs || d.Estimate < 1 {
			return bad(fmt.Errorf("job %d: %d processors, estimate %d, on a machine of %d", d.ID, d.Procs, d.Estimate, e.procs))
		}
		id := e.jobs.Len()
		j := &Job{
			Req: job.Request{ID: id, SWFID: int64(id) + 1, Submit: r.T, Procs: d.Procs, Estimate: d.Estimate,
				User: -1, Group: -1, Queue: -1, Partition: -1, UP: d.UP, PP: d.PP, Deadline: d.Deadline},
			UID: d.UID, User: d.User, Workdir: d.Workdir, Name: d.Name, Command: d.Command, Key: d.Key, OverQuota: d.OverQuota,
			State: Waiting, Start: -1, End: -1, Guarantee: -1,
		}
		if d.OverQuota {
			j.Req.PP = math.Inf(-1)
		}
		if err := e.insert(r.T, j, &d); err != nil {
			return bad(err)
		}
	case KindEnd, KindCancel:
		var d endData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j, err := get(d.ID)
		if err != nil {
			return bad(err)
		}
		st := Cancelled
		if r.Kind == KindEnd {
			st = State(d.Reason)
			if st != Completed && st != Timeout && st != Failed {
				return bad(fmt.Errorf("unknown end reason %q", d.Reason))
			}
			if j.State != Running {
				return bad(fmt.Errorf("job %d ended but is %s", d.ID, j.State))
			}
		} else if j.State.Final() {
			return bad(fmt.Errorf("job %d cancelled but is %s", d.ID, j.State))
		}
		if err := e.end(r.T, j, st, d.Exit, d.Note); err != nil {
			return bad(err)
		}
	case KindTick:
		var d tickData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		if err := e.pass(); err != nil {
			return bad(err)
		}
		got := make([]int64, 0, len(e.started))
		for _, j := range e.started {
			got = append(got, j.ID())
		}
		e.started = e.started[:0]
		if !slices.Equal(got, d.Started) && !(len(got) == 0 && len(d.Started) == 0) {
			return bad(fmt.Errorf("replay diverged: the policy started %v, the log says %v", got, d.Started))
		}
	case KindOwner:
		var d ownerData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j, err := get(d.ID)
		if err != nil {
			return bad(err)
		}
		e.chown(j, d.UID, d.User)
	case KindReconfig:
		var d ReconfigReport
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		if _, err := e.reconfigure(d.Policy, d.Procs, d.Note, &d); err != nil {
			return bad(err)
		}
	case KindIDs:
		var d idsData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		if err := e.skip(d.Next); err != nil {
			return bad(err)
		}
	case KindExec:
		var d execData
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return bad(err)
		}
		j, err := get(d.ID)
		if err != nil {
			return bad(err)
		}
		j.Ref = d.Ref
	default:
		return bad(fmt.Errorf("unknown record kind"))
	}
	e.seq = r.Seq
	e.effects = e.effects[:0]
	return nil
}

// limMin is the earliest limit of a running job, dropping the entries of
// jobs that ended before their limit.
func (e *Engine) limMin() int64 {
	for e.lims.Len() > 0 {
		it := e.lims.Min()
		if j := e.jobs.Get(it.ID); j != nil && j.State == Running && j.Limit() == it.Key {
			return it.Key
		}
		e.lims.Pop()
	}
	return policy.NoWake
}

// limitItem is a running job's limit (Key) by internal ID; the heap of
// them (Engine.lims) is on (time, ID) and may hold stale entries (limMin).
type limitItem = minheap.Item[int64, struct{}]
