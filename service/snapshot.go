package service

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"strconv"
	"sync"
	"time"

	"github.com/backfill-hpc/backfill/engine"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/service/store"
)

// Snapshots (issue 18). Every Config.SnapshotEvery records, or
// Config.SnapshotInterval after the last snapshot if records were logged
// since, the service saves the engine's state — the waiting and running
// jobs, the engine core's and the policy's state (policy.Snapshotter),
// the owners' outstanding work, the decision feed — as a store snapshot,
// in log order behind the records it includes; the store compacts the log
// behind the previous snapshot in the same transaction. A restart restores
// the latest snapshot whose checksum matches (the store falls back to the
// older generation otherwise) and replays only the records after it.
//
// A policy that cannot save its state (no policy.Snapshotter, or a
// configuration it does not save, such as a runtime predictor) takes no
// snapshot: the service replays its whole log at every restart, as before.

// Snapshot defaults.
const (
	// DefaultSnapshotEvery is the number of records after which a
	// snapshot is taken.
	DefaultSnapshotEvery = 1000
	// DefaultSnapshotInterval is the time after which a snapshot is
	// taken if records were logged since the last one.
	DefaultSnapshotInterval = 5 * time.Minute
	// DefaultSnapshotCost is the engine time after which a snapshot is
	// taken if records were logged since the last one.
	DefaultSnapshotCost = time.Second
)

// engineSnapshot is the service engine's saved state (version 1).
type engineSnapshot struct {
	V int `json:"v"`
	// Policy (a spec policy.New takes) and Procs are the configuration
	// the state belongs to (absent in snapshots from before
	// reconfiguration: the database's creation configuration).
	Policy string       `json:"policy,omitempty"`
	Procs  int          `json:"procs,omitempty"`
	Core   engine.State `json:"core"`
	Jobs   int          `json:"jobs"`   // jobs ever submitted
	Live   []*Job       `json:"live"`   // the waiting and running jobs, by ID
	Cur    int64        `json:"cur"`    // current instant
	Dirty  bool         `json:"dirty"`  // events at Cur since its pass
	Wake   int64        `json:"wake"`   // the policy's wake-up
	Seq    int64        `json:"seq"`    // the last record included
	Pass   int64        `json:"passes"` // passes so far
	// Outstanding is each owner's waiting and running work; UserIDs the
	// dense user numbers the policy sees.
	Outstanding map[string]int64 `json:"outstanding"`
	UserIDs     map[string]int32 `json:"user_ids"`
	// Decisions is the decision feed: seq, action (0 start, 1 stop), id,
	// time.
	Decisions [][4]int64 `json:"decisions"`
}

// snapCapture is what a snapshot needs of the engine, taken under the
// engine lock: the scalars, the core's and the policy's state (which the
// policy encodes itself), copies of the two small maps, and references to
// immutable data — the published read view's job copies and the decision
// feed (append-only: the engine never rewrites an entry, and trimming it
// allocates a new array). encode turns it into the snapshot's bytes
// without the lock, so that writers wait only for the capture.
type snapCapture struct {
	s         engineSnapshot // Live and Decisions left to encode
	view      *readView      // the jobs, when set; else jobs
	jobs      []*Job         // copies of the live jobs (no view)
	decisions []Decision
}

// capture takes the engine's state as of its last record. With v (the
// read view published for exactly this state) the jobs are read from the
// view later; without, they are copied now. It fails when the policy
// cannot save its state.
func (e *Engine) capture(v *readView) (*snapCapture, error) {
	core, err := e.core.Snapshot()
	if err != nil {
		return nil, err
	}
	c := &snapCapture{view: v, decisions: e.decisions[:len(e.decisions):len(e.decisions)],
		s: engineSnapshot{V: 1, Policy: e.Policy(), Procs: e.procs, Core: core, Jobs: e.jobs.Len(), Cur: e.cur, Dirty: e.dirty, Wake: e.wake, Seq: e.seq, Pass: e.Passes,
			Outstanding: maps.Clone(e.outstanding), UserIDs: maps.Clone(e.userIDs)}}
	if v == nil {
		for _, j := range e.jobs.Slice() {
			if j != nil {
				cp := *j
				c.jobs = append(c.jobs, &cp)
			}
		}
	}
	return c, nil
}

// encode is the snapshot's bytes (no lock needed). From a view, the jobs
// of each copy-on-write chunk are encoded once (a chunk is immutable: a
// write copies the chunks it changes), and the decision feed's encoding
// is extended by the decisions added since the last snapshot (feed): a
// snapshot costs the chunks and decisions changed since the last one,
// plus copying the bytes. The result is the same JSON as encoding
// engineSnapshot whole.
func (c *snapCapture) encode(feed *feedEnc) ([]byte, error) {
	s := c.s
	s.Live, s.Decisions = nil, nil
	head, err := json.Marshal(&s)
	if err != nil {
		return nil, err
	}
	var live [][]byte
	size := len(head) + 64
	if c.view != nil {
		for _, ch := range c.view.chunks {
			if ch == nil {
				continue
			}
			b, err := ch.enc.bytes(ch)
			if err != nil {
				return nil, err
			}
			if len(b) > 0 {
				live = append(live, b)
				size += len(b) + 1
			}
		}
	} else {
		for _, j := range c.jobs {
			b, err := encodeLive(j)
			if err != nil {
				return nil, err
			}
			live = append(live, b)
			size += len(b) + 1
		}
	}
	dec := feed.bytes(c.decisions)
	size += len(dec)
	// head ends with "live":null,...,"decisions":null}: splice the two in
	out := make([]byte, 0, size)
	i := bytes.Index(head, []byte(`"live":null`))
	k := bytes.Index(head, []byte(`"decisions":null`))
	if i < 0 || k < i {
		return nil, errors.New("snapshot: unexpected encoding")
	}
	out = append(out, head[:i]...)
	out = append(out, `"live":[`...)
	for n, b := range live {
		if n > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	out = append(out, ']')
	out = append(out, head[i+len(`"live":null`):k]...)
	out = append(out, `"decisions":[`...)
	out = append(out, dec...)
	out = append(out, ']')
	out = append(out, head[k+len(`"decisions":null`):]...)
	return out, nil
}

// encodeLive is a live job's encoding in a snapshot.
func encodeLive(j *Job) ([]byte, error) {
	cp := *j
	cp.Req.PP = finitePP(cp.Req.PP) // restored from OverQuota
	return json.Marshal(&cp)
}

// chunkEnc is a view chunk's snapshot encoding: its waiting and running
// jobs, comma-separated, made at most once (by whichever snapshot needs
// it first).
type chunkEnc struct {
	once sync.Once
	b    []byte
	err  error
}

func (e *chunkEnc) bytes(c *chunk) ([]byte, error) {
	e.once.Do(func() {
		for _, j := range c.jobs {
			// the view also holds finished jobs until their archive rows
			// are committed: the live ones wait or run
			if j == nil || (j.State != Waiting && j.State != Running) {
				continue
			}
			b, err := encodeLive(j)
			if err != nil {
				e.err = err
				return
			}
			if len(e.b) > 0 {
				e.b = append(e.b, ',')
			}
			e.b = append(e.b, b...)
		}
	})
	return e.b, e.err
}

// feedEnc caches the encoding of the decision feed: the entries of one
// backing array are never rewritten (the engine appends, and trimming
// allocates a new array), so the encoding of its first n entries stays
// valid and a later snapshot encodes only the entries added since.
type feedEnc struct {
	mu    sync.Mutex
	first *Decision // the backing array encoded (its first entry)
	n     int       // entries encoded
	b     []byte
}

// bytes is the encoding of ds, comma-separated [seq, action (0 start, 1
// stop), id, time] arrays.
func (f *feedEnc) bytes(ds []Decision) []byte {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(ds) == 0 {
		return nil
	}
	if f.first != &ds[0] || f.n > len(ds) {
		f.first, f.n, f.b = &ds[0], 0, nil
	}
	b := f.b
	for _, d := range ds[f.n:] {
		if len(b) > 0 {
			b = append(b, ',')
		}
		a := byte('0')
		if d.Action == "stop" {
			a = '1'
		}
		b = append(b, '[')
		b = strconv.AppendInt(b, d.Seq, 10)
		b = append(b, ',', a, ',')
		b = strconv.AppendInt(b, d.ID, 10)
		b = append(b, ',')
		b = strconv.AppendInt(b, d.T, 10)
		b = append(b, ']')
	}
	f.n, f.b = len(ds), b
	// later snapshots append beyond len(b) only
	return b[:len(b):len(b)]
}

// snapshot encodes the engine's state as of its last record, under the
// caller's lock. It fails when the policy cannot save its state.
func (e *Engine) snapshot() ([]byte, error) {
	c, err := e.capture(nil)
	if err != nil {
		return nil, err
	}
	return c.encode(&feedEnc{})
}

// restore sets a fresh engine to a snapshot's state.
func (e *Engine) restore(data []byte) error {
	if e.jobs.Len() > 0 || e.seq != 0 {
		return fmt.Errorf("restore into an engine that is not fresh")
	}
	var s engineSnapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	if s.V != 1 {
		return fmt.Errorf("snapshot version %d, expected 1", s.V)
	}
	if s.Jobs < 0 || s.Jobs < len(s.Live) || s.Jobs != s.Core.Jobs {
		return fmt.Errorf("snapshot of %d jobs (core %d) with %d live", s.Jobs, s.Core.Jobs, len(s.Live))
	}
	// the window of jobs starts at the oldest live one (every job before
	// it is archived)
	base := s.Jobs
	for _, j := range s.Live {
		if j != nil && j.Req.ID >= 0 {
			base = min(base, j.Req.ID)
		}
	}
	jobs := make([]*Job, s.Jobs-base)
	for _, j := range s.Live {
		if j == nil || j.Req.ID < base || j.Req.ID >= s.Jobs || jobs[j.Req.ID-base] != nil || (j.State != Waiting && j.State != Running) {
			return fmt.Errorf("snapshot: a live job is invalid or listed twice")
		}
		if j.OverQuota {
			j.Req.PP = negInf
		}
		jobs[j.Req.ID-base] = j
	}
	err := e.core.Restore(s.Core, func(id int) *job.Request {
		if id < base || id >= s.Jobs || jobs[id-base] == nil {
			return nil
		}
		return &jobs[id-base].Req
	})
	if err != nil {
		return fmt.Errorf("snapshot: %w", err)
	}
	e.jobs.Reset(base)
	for _, j := range jobs {
		e.jobs.Append(j)
		if j == nil {
			continue
		}
		if j.Key != "" {
			e.byKey[j.owner()+"\x00"+j.Key] = j
		}
		if j.State == Running {
			e.lims.Push(limitItem{Key: j.Limit(), ID: j.Req.ID})
		}
	}
	e.cur, e.dirty, e.wake, e.seq, e.Passes = s.Cur, s.Dirty, s.Wake, s.Seq, s.Pass
	if s.Outstanding != nil {
		e.outstanding = s.Outstanding
	}
	if s.UserIDs != nil {
		e.userIDs = s.UserIDs
	}
	e.decisions = make([]Decision, len(s.Decisions))
	for i, d := range s.Decisions {
		a := "start"
		if d[1] == 1 {
			a = "stop"
		}
		e.decisions[i] = Decision{Seq: d[0], Action: a, ID: d[2], T: d[3]}
	}
	return nil
}

// snapshotConfig is the configuration a snapshot's state belongs to
// ("", 0 when it does not say).
func snapshotConfig(data []byte) (string, int) {
	var c struct {
		Policy string `json:"policy"`
		Procs  int    `json:"procs"`
	}
	if json.Unmarshal(data, &c) != nil {
		return "", 0
	}
	return c.Policy, c.Procs
}

// loadState rebuilds an engine from st: the latest snapshot, if any, then
// the records after it. The engine is built by mk with the configuration
// of the snapshot, or spec and procs (the configuration the log starts
// with) when there is none or it does not say. It returns the engine, the
// number of records replayed and the record of the snapshot (0 for none);
// after (nil: none) is called once each record is replayed.
func loadState(st *store.Store, mk func(spec string, procs int) (*Engine, error), spec string, procs int, after func(*Engine) error) (eng *Engine, n int, base int64, err error) {
	snap, ok, err := st.LatestSnapshot()
	if err != nil {
		return nil, 0, 0, err
	}
	if ok {
		if sp, p := snapshotConfig(snap.Data); sp != "" && p > 0 {
			spec, procs = sp, p
		}
	}
	if eng, err = mk(spec, procs); err != nil {
		return nil, 0, 0, err
	}
	if ok {
		if err := eng.restore(snap.Data); err != nil {
			return nil, 0, 0, fmt.Errorf("%s: snapshot at record %d: %w", st.Path, snap.Seq, err)
		}
		if eng.seq != snap.Seq {
			return nil, 0, 0, fmt.Errorf("%s: snapshot at record %d holds the state of record %d", st.Path, snap.Seq, eng.seq)
		}
		base = snap.Seq
	}
	err = st.Load(func(r store.Record) error {
		if n == 0 && !ok {
			eng.cur = r.T
		}
		n++
		if err := eng.Replay(r); err != nil {
			return err
		}
		if after != nil {
			return after(eng)
		}
		return nil
	})
	return eng, n, base, err
}

// newEngineFor builds an engine for policy spec on procs processors.
func newEngineFor(spec string, procs int) (*Engine, error) {
	sched, err := policy.New(spec, procs)
	if err != nil {
		return nil, err
	}
	return NewEngine(sched, procs, 0)
}

// snapshotDue reports whether a snapshot is due after the engine's last
// record (called with s.mu held).
func (s *Service) snapshotDue() bool {
	if s.snapOff || s.cfg.SnapshotEvery < 0 {
		return false
	}
	since := s.eng.seq - s.snapSeq
	if since <= 0 {
		return false
	}
	return since >= int64(s.cfg.SnapshotEvery) || time.Since(s.snapTime) >= s.cfg.SnapshotInterval ||
		(s.cfg.SnapshotCost > 0 && s.snapCost >= s.cfg.SnapshotCost)
}

// pendingSnap is a snapshot being encoded off the engine lock: data
// waits for its bytes; saved, when set, is told how saving it went.
type pendingSnap struct {
	Seq, T int64
	done   chan struct{}
	bytes  []byte
	err    error
	saved  chan error
}

// supersede drops p for a later snapshot of the same log.
func (p *pendingSnap) supersede() {
	if p.saved != nil {
		p.saved <- errors.New("superseded by a later snapshot")
	}
}

// ready reports whether the snapshot's bytes are ready.
func (p *pendingSnap) ready() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// data waits for the snapshot's bytes.
func (p *pendingSnap) data() ([]byte, error) {
	<-p.done
	return p.bytes, p.err
}

// encodedSnap is a snapshot encoded already.
func encodedSnap(seq, t int64, data []byte) *pendingSnap {
	p := &pendingSnap{Seq: seq, T: t, done: make(chan struct{}), bytes: data}
	close(p.done)
	return p
}

// takeSnapshotLocked captures the engine's state for the batch that ends
// with its last record and encodes it in the background, or returns nil
// (not due, or the policy cannot save its state: then snapshots are off
// for this run, logged once). It publishes the read view first: the
// snapshot's jobs are read from it, off the lock.
func (s *Service) takeSnapshotLocked() *pendingSnap {
	if !s.snapshotDue() {
		return nil
	}
	s.publishLocked(false)
	c, err := s.eng.capture(s.readView())
	if err != nil {
		s.snapOff = true
		s.log.Info("no snapshots: restarts replay the whole log", "policy", s.eng.Policy(), "reason", err)
		return nil
	}
	s.snapSeq, s.snapTime, s.snapCost = s.eng.seq, time.Now(), 0
	p := &pendingSnap{Seq: s.eng.seq, T: s.eng.cur, done: make(chan struct{})}
	go func() {
		p.bytes, p.err = c.encode(&s.feedEnc)
		close(p.done)
		s.qmu.Lock() // the committer saves it when it is ready
		s.qcond.Broadcast()
		s.qmu.Unlock()
	}()
	return p
}

var negInf = math.Inf(-1)

// finitePP is a political priority JSON can hold: −∞ (an over-quota job,
// restored from OverQuota) becomes 0.
func finitePP(pp float64) float64 {
	if math.IsInf(pp, 0) || math.IsNaN(pp) {
		return 0
	}
	return pp
}

// commitBatches writes the records and archive rows of q, in order, in
// one transaction.
func (s *Service) commitBatches(q []*batch) error {
	var recs []Record
	var arch []store.Archived
	for _, b := range q {
		recs = append(recs, b.recs...)
		arch = append(arch, b.arch...)
	}
	if len(recs) == 0 && len(arch) == 0 {
		return nil
	}
	t0 := time.Now()
	err := s.st.AppendArchive(recs, arch)
	s.met.commit.Observe(time.Since(t0).Seconds())
	return err
}

// saveSnapshot saves p once the records it includes are committed (the
// log may go on after them), waiting for its encoding, all its parts one
// after the other.
func (s *Service) saveSnapshot(p *pendingSnap) {
	if sv := s.beginSnapshot(p); sv != nil {
		for !s.stepSnapshot(sv) {
		}
	}
}

// snapSaving is a snapshot the committer is saving, part by part.
type snapSaving struct {
	p  *pendingSnap
	w  *store.SnapshotSave
	t0 time.Time
	n  int
}

// beginSnapshot starts saving p (its records committed), waiting for its
// encoding; nil when it failed to encode (logged: the log still holds
// every record).
func (s *Service) beginSnapshot(p *pendingSnap) *snapSaving {
	t0 := time.Now()
	data, err := p.data()
	if err != nil {
		s.log.Warn("snapshot not saved; the log is kept whole", "seq", p.Seq, "err", err)
		if p.saved != nil {
			p.saved <- err
		}
		return nil
	}
	return &snapSaving{p: p, w: s.st.BeginSnapshot(store.Snapshot{Seq: p.Seq, T: p.T, Data: data}, nil), t0: t0, n: len(data)}
}

// stepSnapshot writes the next part of sv; it reports whether the
// snapshot is done (saved, or failed: logged and skipped, the log still
// holds every record).
func (s *Service) stepSnapshot(sv *snapSaving) bool {
	done, err := sv.w.Step()
	if !done {
		return false
	}
	p := sv.p
	if err != nil {
		s.log.Warn("snapshot not saved; the log is kept whole", "seq", p.Seq, "err", err)
	} else {
		s.log.Debug("snapshot saved", "seq", p.Seq, "bytes", sv.n, "took", time.Since(sv.t0))
	}
	if p.saved != nil {
		p.saved <- err
	}
	return true
}
