// Package service is the live scheduler behind an HTTP/JSON API.
//
// It is the live scheduler: the policies of package policy
// deciding for real jobs, behind an HTTP/JSON API (see openapi.json and
// docs/service.md).
//
// The service plays the simulator's role around the same policy code
// (Engine): a submission is the policy's Insert, the end of a running job
// or a cancellation its Remove, and at every instant with events,
// wake-ups or job limits the policy gets one pass (Tick), after the
// instant's events, as in sim.Run. Time is int64 seconds from a Clock: the
// wall clock (instant t covers the real interval (t−1, t]; its pass runs
// just after real time t) or a controllable clock for tests and replays.
//
// Durability: each request's records are committed to the state database
// (package store: bbolt, fsynced at each commit) before the request is answered, and
// the executor acts on a decision only after it is committed. Commits of
// concurrent requests are grouped into one transaction. After a crash the
// service replays the log through a fresh policy (policies are
// deterministic), checks that it decides as logged (same admissions,
// guarantees and starts), and reconciles the running jobs with the
// executor.
package service

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/backfill-hpc/backfill/engine"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/service/executor"
	"github.com/backfill-hpc/backfill/service/store"
)

// Clock gives the current instant in seconds.
type Clock interface {
	Now() int64
}

// WallClock is real time: Now is the Unix time rounded up, so that the
// instant t covers (t−1, t] and its pass can run as soon as t is past.
type WallClock struct{}

// Now implements Clock.
func (WallClock) Now() int64 {
	ns := time.Now().UnixNano()
	s := ns / 1e9
	if ns%1e9 != 0 {
		s++
	}
	return s
}

// ManualClock is a clock that moves only when told (tests, replays).
type ManualClock struct {
	mu sync.Mutex
	t  int64
}

// NewManualClock returns a manual clock at t.
func NewManualClock(t int64) *ManualClock { return &ManualClock{t: t} }

// Now implements Clock.
func (c *ManualClock) Now() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

// Set moves the clock to t if t is later.
func (c *ManualClock) Set(t int64) {
	c.mu.Lock()
	if t > c.t {
		c.t = t
	}
	c.mu.Unlock()
}

// Config configures a Service.
type Config struct {
	// Policy is a policy spec ("conservative", "easy:depth=4", …).
	Policy string
	// Procs is the machine size P.
	Procs int
	// StateDir holds the state database, the admin token and the local
	// executor's job directories.
	StateDir string
	// Clock defaults to the wall clock.
	Clock Clock
	// Executor is none, local or slurm (default none).
	Executor string
	// NewExecutor, if set, builds the executor instead of Executor's name
	// (tests: an executor that blocks or fails on demand).
	NewExecutor func(ev executor.Events, opt executor.Options) (executor.Executor, error)
	// ExecOptions configure the executor (Dir and Procs are filled in).
	ExecOptions executor.Options
	// Sync is the state database's sync mode: full (default: fsync at
	// each commit) or normal (no fsync); see store.Options.
	Sync string
	// MaxBody is the largest request body accepted, in bytes (default
	// 64 KiB).
	MaxBody int64
	// BodyTimeout is the time a client has, from the end of its headers,
	// to send the whole request body (default 10 s).
	BodyTimeout time.Duration
	// MaxEstimate is the longest estimate accepted, in seconds (default
	// one year).
	MaxEstimate int64
	// AdminToken, if set, becomes the admin user's token; otherwise one is
	// generated at the first start and written to StateDir/admin.token.
	AdminToken string
	// AdminTokenFile is the file AdminToken was read from: a token reset
	// through the API rewrites it (default StateDir/admin.token).
	AdminTokenFile string
	// Logger defaults to a discarding logger.
	Logger *slog.Logger
	// MaxInFlight is the number of API requests handled at once beyond
	// which a request is answered 503 with Retry-After (backpressure);
	// 0 means DefaultMaxInFlight, a negative value no limit.
	MaxInFlight int
	// MaxExecBacklog is the number of executor actions waiting (a slow
	// resource manager) beyond which new submissions are answered 503
	// with Retry-After; 0 means DefaultMaxExecBacklog, negative no limit.
	MaxExecBacklog int
	// SnapshotEvery is the number of log records after which the service
	// saves a snapshot of its state and compacts the log behind the
	// previous one (0: DefaultSnapshotEvery; negative: never). A restart
	// then replays only the records after the latest snapshot.
	SnapshotEvery int
	// SnapshotInterval is the time after which a snapshot is saved if
	// records were logged since the last one (0: DefaultSnapshotInterval).
	SnapshotInterval time.Duration
	// SnapshotCost is the engine time (the policy's decisions, measured
	// under the engine lock) after which a snapshot is saved if records
	// were logged since the last one, whatever their number: a restart
	// replays about that much (0: DefaultSnapshotCost; negative: never).
	// It bounds the restart of policies whose decisions are slow at large
	// queues (slack: ~0.2 s per submission with 500 waiting).
	SnapshotCost time.Duration
	// AcceptLoss lets Open continue from what a damaged state directory
	// still holds (store.Options.AcceptLoss) instead of refusing; the loss
	// is logged. Without it, a state directory that lost acknowledged
	// records is refused with a *store.IntegrityError.
	AcceptLoss bool
}

// Service is a running scheduler service.
type Service struct {
	cfg   Config
	clock Clock
	log   *slog.Logger
	st    *store.Store
	exec  executor.Executor
	inst  string // instance tag of the state directory

	mu      sync.Mutex     // guards eng, pending
	pending pendingArchive // finished jobs whose archive rows are not yet committed
	// amu guards pending and views.archive, which the committer updates
	// after each commit: it must not wait for the engine lock (a slow
	// write would hold every commit, and so every answer, behind it)
	amu sync.Mutex
	// writers counts the writes waiting for mu (doTimed)
	writers atomic.Int32
	eng     *Engine
	// umu guards users and names (apart from mu: authentication must not
	// wait for the engine)
	umu   sync.Mutex
	users map[string]*store.User // by token hash
	names map[string]*store.User // by name

	// group commit
	qmu     sync.Mutex
	qcond   *sync.Cond
	queue   []*batch
	closing bool
	fatal   error
	wg      sync.WaitGroup

	failed  chan struct{} // closed when fatal is set
	effects effectQueue   // committed effects, for the executor (effects.go)
	newDec  chan struct{} // closed and replaced when decisions are added (decMu)
	decMu   sync.Mutex

	// snapshots (snapshot.go), guarded by mu
	snapOff  bool      // the policy cannot save its state
	snapSeq  int64     // the record of the latest snapshot
	snapTime time.Time // when it was taken (or the service started)
	// snapCost is the engine time (under the lock) spent on the records
	// since the latest snapshot: about what replaying them would cost
	snapCost time.Duration
	// lastSave is when the committer last saved a snapshot (committer
	// only: the requests' timing, reqTiming)
	lastSave [2]time.Time
	replayed int     // records replayed by Open (after the snapshot)
	feedEnc  feedEnc // the decision feed's encoding, extended by each snapshot

	// recovery (Start): ready is closed once the state is rebuilt
	ready      chan struct{}
	readyErr   error
	started    bool   // the committer and effector run (guarded by qmu)
	policyName string // the policy's name (the engine may not exist yet)
	// the configuration the log starts with (meta; checkMeta)
	logSpec   string
	logProcs  int
	views     views        // the published read view (view.go)
	committed atomic.Int64 // the last record committed

	met    *metrics
	over   *overload
	routes []string // the API's patterns, as registered by Handler
}

type batch struct {
	snap    *pendingSnap     // saved after recs, when set
	arch    []store.Archived // jobs finished in recs
	fin     []*Job
	recs    []Record
	effects []Effect
	done    chan error
	// tm, when set, receives the times of the batch's commit (set by the
	// committer before done); enq is when it was queued
	tm  *reqTiming
	enq time.Time
}

// MaxProcs is the largest machine size the service takes (flags or a
// live reconfiguration): more than the largest machine (Fugaku's 7.6
// million cores), and small enough that the policies' per-processor
// tables (lookahead's dynamic program, a bitset per job over the free
// processors) stay within memory.
const MaxProcs = 1 << 23

// ErrUnavailable is returned once the service can no longer make its
// state durable; it must be restarted (it then recovers from the log).
var ErrUnavailable = errors.New("service unavailable: the state database failed; restart the service to recover from its log")

// Open opens (or creates) the service state in cfg.StateDir, rebuilds the
// policy's state from the event log, and reconciles the executor. It is
// Start followed by WaitReady.
func Open(cfg Config) (*Service, error) {
	s, err := Start(cfg)
	if err != nil {
		return nil, err
	}
	if err := s.WaitReady(); err != nil {
		s.Close()
		return nil, err
	}
	return s, nil
}

// Start opens (or creates) the service state in cfg.StateDir and returns
// at once, the state being rebuilt from the event log in the background
// (Ready, WaitReady): a server can listen at once, and answers 503 with
// Retry-After (health: "recovering") until the state is rebuilt. What can
// be refused without replaying — a bad configuration, a state directory
// that lost acknowledged records (store.IntegrityError), a missing admin
// user — is refused here; a log that does not replay (the policy decides
// otherwise than logged) is reported by WaitReady.
func Start(cfg Config) (*Service, error) {
	if cfg.Procs < 1 || cfg.Procs > MaxProcs {
		return nil, fmt.Errorf("machine size must be in [1, %d], got %d", MaxProcs, cfg.Procs)
	}
	if cfg.StateDir == "" {
		return nil, errors.New("no state directory")
	}
	if cfg.MaxBody <= 0 {
		cfg.MaxBody = 64 << 10
	}
	if cfg.BodyTimeout <= 0 {
		cfg.BodyTimeout = 10 * time.Second
	}
	if cfg.MaxEstimate <= 0 {
		cfg.MaxEstimate = 365 * 24 * 3600
	}
	if cfg.Clock == nil {
		cfg.Clock = WallClock{}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(discard{}, nil))
	}
	if cfg.Executor == "" {
		cfg.Executor = "none"
	}
	if cfg.SnapshotEvery == 0 {
		cfg.SnapshotEvery = DefaultSnapshotEvery
	}
	if cfg.SnapshotInterval <= 0 {
		cfg.SnapshotInterval = DefaultSnapshotInterval
	}
	if cfg.SnapshotCost == 0 {
		cfg.SnapshotCost = DefaultSnapshotCost
	}
	if cfg.MaxInFlight == 0 {
		cfg.MaxInFlight = DefaultMaxInFlight
	}
	if cfg.MaxExecBacklog == 0 {
		cfg.MaxExecBacklog = DefaultMaxExecBacklog
	}
	sched, err := policy.New(cfg.Policy, cfg.Procs)
	if err != nil {
		return nil, err
	}
	if err := secureDir(cfg.StateDir, cfg.Logger); err != nil {
		return nil, err
	}
	st, err := store.OpenWith(cfg.StateDir, store.Options{Sync: cfg.Sync, AcceptLoss: cfg.AcceptLoss})
	if err != nil {
		return nil, err
	}
	for _, n := range st.Notes {
		if st.Lost != 0 {
			cfg.Logger.Error("state loss accepted (--accept-loss)", "dir", cfg.StateDir, "note", n)
		} else {
			cfg.Logger.Warn("state", "dir", cfg.StateDir, "note", n)
		}
	}
	s := &Service{cfg: cfg, clock: cfg.Clock, log: cfg.Logger, st: st, policyName: sched.Name(),
		users: map[string]*store.User{}, names: map[string]*store.User{}, pending: pendingArchive{byID: map[int64]*Job{}, byKey: map[string]*Job{}},
		newDec: make(chan struct{}), failed: make(chan struct{}), ready: make(chan struct{})}
	s.effects.init()
	s.qcond = sync.NewCond(&s.qmu)
	s.views.cur.Store(recoveringView(sched.Name(), cfg.Procs))
	if err := s.checkMeta(sched.Name()); err != nil {
		st.Close()
		return nil, err
	}
	if err := s.loadUsers(); err != nil {
		st.Close()
		return nil, err
	}
	s.met = newMetrics(s)
	s.over = newOverload(cfg.MaxInFlight, 1)
	s.over.maxBacklog, s.over.backlog = cfg.MaxExecBacklog, s.effects.Len
	s.met.reg.MustRegister(s.over.rejected, s.over.gauge, s.over.backlogGauge)
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		s.readyErr = s.recover(sched)
		if s.readyErr != nil {
			s.log.Error("rebuilding the state failed", "err", s.readyErr)
		}
		close(s.ready)
	}()
	return s, nil
}

// testHookRecover, when set (tests), is called as the recovery begins.
var testHookRecover func()

// errClosed stops a recovery when the service is closed.
var errClosed = errors.New("service closed")

// Ready is closed once the state is rebuilt (or rebuilding failed:
// WaitReady says).
func (s *Service) Ready() <-chan struct{} { return s.ready }

// WaitReady waits until the state is rebuilt and returns the error that
// stopped it, if any (the service then answers 503 until closed).
func (s *Service) WaitReady() error {
	<-s.ready
	return s.readyErr
}

// isReady reports whether the state is rebuilt and usable.
func (s *Service) isReady() bool {
	select {
	case <-s.ready:
		return s.readyErr == nil
	default:
		return false
	}
}

// recover rebuilds the policy's state from the latest snapshot and the log
// after it, starts the committer and the executor, catches up with the
// clock and publishes the first read view.
func (s *Service) recover(sched policy.Scheduler) error {
	st, cfg := s.st, s.cfg
	if testHookRecover != nil {
		testHookRecover()
	}
	t0 := time.Now()
	start := cfg.Clock.Now()
	// the jobs that finish during the replay were archived when they
	// finished; a log from before the archive archives them now, once
	archived, _, err := st.Meta("archive")
	if err != nil {
		return err
	}
	if st.Fresh {
		archived = "live"
		if err := st.SetMeta("archive", "live"); err != nil {
			return err
		}
	}
	var backfill []store.Archived
	mk := func(spec string, procs int) (*Engine, error) {
		if spec == sched.Name() && procs == cfg.Procs {
			return NewEngine(sched, procs, 0)
		}
		return newEngineFor(spec, procs)
	}
	eng, n, base, err := loadState(st, func(spec string, procs int) (*Engine, error) {
		e, err := mk(spec, procs)
		if e != nil {
			e.Archived = s.archived
		}
		return e, err
	}, s.logSpec, s.logProcs, func(eng *Engine) error {
		if s.isClosing() {
			return errClosed
		}
		fin := eng.TakeFinished()
		if archived != "live" {
			for _, j := range fin {
				backfill = append(backfill, encodeArchived(j))
			}
			if len(backfill) >= 10000 {
				if err := st.ArchiveJobs(backfill); err != nil {
					return err
				}
				backfill = backfill[:0]
			}
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("%s: rebuilding the state from the log: %w", st.Path, err)
	}
	if archived != "live" {
		if err := st.ArchiveJobs(backfill); err != nil {
			return err
		}
		if err := st.SetMeta("archive", "live"); err != nil {
			return err
		}
	}
	if n == 0 && eng.seq == 0 {
		eng.cur = start
	}
	if mc, ok := cfg.Clock.(*ManualClock); ok {
		mc.Set(eng.cur) // a manual clock resumes where the log ends
	}
	var ex executor.Executor
	if cfg.NewExecutor != nil {
		ex, err = cfg.NewExecutor(endReporter{s}, s.execOptions())
	} else {
		ex, err = executor.New(cfg.Executor, endReporter{s}, s.execOptions())
	}
	if err != nil {
		return err
	}
	s.mu.Lock()
	s.eng, s.exec = eng, ex
	// the next snapshot is due SnapshotEvery records after the latest (a
	// log without one, e.g. from before snapshots, gets one at once)
	s.snapSeq, s.snapTime, s.replayed = base, time.Now(), n
	s.committed.Store(eng.seq)
	s.publishLocked(true)
	s.mu.Unlock()
	w, r, _ := eng.Counts()
	s.log.Info("state rebuilt", "records", n, "jobs", eng.jobs.Len(), "waiting", w, "running", r, "now", eng.cur, "took", time.Since(t0).String())
	// the executor is reconciled in the background, before it is given
	// any action: the port opens without waiting for the resource manager
	running, waiting := s.toReconcile()
	s.qmu.Lock()
	if s.closing {
		s.qmu.Unlock()
		ex.Close()
		return errClosed
	}
	s.started = true
	s.wg.Add(2)
	s.qmu.Unlock()
	go s.committer()
	go s.effector(running, waiting)
	// after an accepted loss, the ids of the jobs lost stay taken
	if floor := st.JobFloor(); floor > int64(eng.jobs.Len()) {
		note := fmt.Sprintf("ids %d to %d were acknowledged but lost (loss accepted); never given again", eng.jobs.Len()+1, floor)
		if err := s.do(func(e *Engine) error { return e.SkipIDs(floor+1, note) }); err != nil {
			return err
		}
		s.log.Error("job ids skipped after an accepted loss", "next", floor+1, "note", note)
	}
	if err := s.reconfigureAtStart(eng, sched.Name()); err != nil {
		return err
	}
	// catch up to the present (limits and wake-ups during the downtime)
	if now := s.clock.Now(); now > eng.cur {
		if err := s.do(func(e *Engine) error { return e.Advance(now) }); err != nil {
			return err
		}
	}
	return nil
}

// reconfigureAtStart applies --policy and --procs when they differ from
// those of the previous start (the operator changed them): the service is
// reconfigured to them (recorded in the log). Flags equal to the previous
// start's keep the state's configuration, even where it was changed live
// (POST /v1/reconfigure): a restart after a crash, with the same command
// line, must not undo a drain.
func (s *Service) reconfigureAtStart(eng *Engine, name string) error {
	cfg := s.cfg
	flags := name + "@" + strconv.Itoa(cfg.Procs)
	last, ok, err := s.st.Meta("start_config")
	if err != nil {
		return err
	}
	if !ok {
		last = s.logSpec + "@" + strconv.Itoa(s.logProcs) // the creation's flags
	}
	state := eng.Policy() + "@" + strconv.Itoa(eng.procs)
	if flags != last && flags != state {
		note := fmt.Sprintf("restart with --policy %s --procs %d (was %s on %d processors)", name, cfg.Procs, eng.Policy(), eng.procs)
		var rep *ReconfigReport
		err := s.do(func(e *Engine) error {
			var err error
			rep, err = e.Reconfigure(max(s.clock.Now(), e.cur), cfg.Policy, cfg.Procs, note)
			return err
		})
		if err != nil {
			return fmt.Errorf("%s: the state's configuration is %s on %d processors; changing it to %s on %d: %w (start with the state's --policy and --procs, or drain first)",
				cfg.StateDir, eng.Policy(), eng.procs, name, cfg.Procs, err)
		}
		s.logReconfig(rep)
	} else if flags != state {
		s.log.Info("the state's configuration was changed live; kept (the flags are those of the previous start)",
			"policy", eng.Policy(), "procs", eng.procs, "flags_policy", name, "flags_procs", cfg.Procs)
	}
	if flags != last || !ok {
		return s.st.SetMeta("start_config", flags)
	}
	return nil
}

func (s *Service) isClosing() bool {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return s.closing
}

// secureDir creates the state directory, or checks an existing one: it
// must belong to the service's user, and its mode becomes 0700 (it holds
// the database with token hashes and commands, and the admin token).
func secureDir(dir string, log *slog.Logger) error {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("state directory: %w", err)
	}
	if !fi.IsDir() {
		return fmt.Errorf("state directory %s is not a directory", dir)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("state directory %s belongs to user id %d, not to the service's user (%d): refusing to start (others could read or replace the database)", dir, st.Uid, os.Geteuid())
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("state directory %s has mode %o and cannot be made 0700: %w; refusing to start", dir, fi.Mode().Perm(), err)
		}
		log.Warn("state directory was accessible to others; its mode is now 0700", "dir", dir, "was", fmt.Sprintf("%o", fi.Mode().Perm()))
	}
	return nil
}

type discard struct{}

func (discard) Write(p []byte) (int, error) { return len(p), nil }

func (s *Service) execOptions() executor.Options {
	o := s.cfg.ExecOptions
	if o.Dir == "" {
		o.Dir = s.cfg.StateDir
	}
	o.Procs = s.cfg.Procs
	o.Instance = s.inst
	if o.Logger == nil {
		o.Logger = s.log
	}
	return o
}

// checkMeta records the policy and machine size at the first start: the
// configuration the log starts with (later ones are in the snapshots and
// the reconfiguration records). A restart with other flags reconfigures
// the service once its state is rebuilt (reconfig.go).
func (s *Service) checkMeta(name string) error {
	for _, kv := range [][2]string{{"policy", name}, {"procs", strconv.Itoa(s.cfg.Procs)}} {
		v, ok, err := s.st.Meta(kv[0])
		if err != nil {
			return err
		}
		if !ok {
			if err := s.st.SetMeta(kv[0], kv[1]); err != nil {
				return err
			}
			v = kv[1]
		}
		if kv[0] == "policy" {
			s.logSpec = v
		} else if s.logProcs, err = strconv.Atoi(v); err != nil || s.logProcs < 1 {
			return fmt.Errorf("%s: the database's machine size %q is not a positive integer", s.st.Path, v)
		}
	}
	if _, err := policy.New(s.logSpec, s.logProcs); err != nil {
		return fmt.Errorf("%s: the policy the log was written with, %q: %w", s.st.Path, s.logSpec, err)
	}
	inst, ok, err := s.st.Meta("instance")
	if err != nil {
		return err
	}
	if !ok {
		var b [6]byte
		if _, err := rand.Read(b[:]); err != nil {
			return err
		}
		inst = hex.EncodeToString(b[:])
		if err := s.st.SetMeta("instance", inst); err != nil {
			return err
		}
	}
	s.inst = inst
	return nil
}

// HashToken is the stored form of a token.
func HashToken(tok string) string {
	h := sha256.Sum256([]byte(tok))
	return hex.EncodeToString(h[:])
}

// NewToken returns a fresh random token.
func NewToken() string {
	var b [24]byte
	if _, err := rand.Read(b[:]); err != nil {
		panic("service: no randomness: " + err.Error())
	}
	return "bf_" + base64.RawURLEncoding.EncodeToString(b[:])
}

// AdminTokenFile is where the generated admin token is written.
func (s *Service) AdminTokenFile() string { return filepath.Join(s.cfg.StateDir, "admin.token") }

// adminTokenPath is the file that holds the admin token: the one it was
// read from, or the generated one.
func (s *Service) adminTokenPath() string {
	if s.cfg.AdminTokenFile != "" {
		return s.cfg.AdminTokenFile
	}
	return s.AdminTokenFile()
}

// writeSecret replaces file with tok, mode 0600, atomically (a new file
// renamed over the old one: no reader sees half a token, and a symbolic
// link at the path is replaced, not followed).
func writeSecret(file, tok string) error {
	tmp, err := os.CreateTemp(filepath.Dir(file), ".token-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.WriteString(tok + "\n"); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), file)
}

func (s *Service) loadUsers() error {
	us, err := s.st.Users()
	if err != nil {
		return err
	}
	var admin *store.User
	for i := range us {
		u := us[i]
		s.users[u.TokenHash] = &u
		s.names[u.Name] = &u
		if u.Name == "admin" {
			admin = &u
		}
	}
	if admin == nil {
		if err := s.checkNoAdmin(); err != nil {
			return err
		}
	}
	switch {
	case s.cfg.AdminToken != "":
		if admin == nil || admin.TokenHash != HashToken(s.cfg.AdminToken) {
			u := store.User{Name: "admin", TokenHash: HashToken(s.cfg.AdminToken), Admin: true, Created: s.clock.Now()}
			if admin != nil {
				u.ID, u.PP, u.Quota, u.Created = admin.ID, admin.PP, admin.Quota, admin.Created
				delete(s.users, admin.TokenHash)
			} else if u.ID, err = s.st.NextUserID(); err != nil {
				return err
			}
			if err := s.st.PutUser(u); err != nil {
				return err
			}
			s.users[u.TokenHash], s.names[u.Name] = &u, &u
		}
	case admin == nil:
		return s.createAdmin()
	default:
		// a crash of the first start between the admin row and the token
		// file: finish the rename
		tmp := s.AdminTokenFile() + ".tmp"
		if b, err := os.ReadFile(tmp); err == nil && !fileExists(s.AdminTokenFile()) && HashToken(strings.TrimSpace(string(b))) == admin.TokenHash {
			if err := os.Rename(tmp, s.AdminTokenFile()); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkNoAdmin refuses a database without its admin user in a directory
// that has held state (the admin row is created at the first start and
// never deleted: a missing one means the database lost it), unless the
// loss is accepted.
func (s *Service) checkNoAdmin() error {
	dir := s.cfg.StateDir
	var evidence []string
	if !s.st.Fresh {
		evidence = append(evidence, "state.db has held state (records, users or the high-water mark "+store.MarkFile+")")
	}
	if b, err := os.ReadFile(s.AdminTokenFile()); err == nil {
		if s.cfg.AdminToken == "" || strings.TrimSpace(string(b)) != s.cfg.AdminToken {
			evidence = append(evidence, s.AdminTokenFile()+" exists")
		}
	}
	if fileExists(filepath.Join(dir, "jobs")) {
		evidence = append(evidence, filepath.Join(dir, "jobs")+" exists (job directories)")
	}
	if len(evidence) == 0 {
		return nil
	}
	if s.cfg.AcceptLoss {
		s.log.Error("state loss accepted (--accept-loss): the admin user is missing; it is created again", "dir", dir, "evidence", strings.Join(evidence, "; "))
		return nil
	}
	return fmt.Errorf(`refusing to open the state in %s: the database has no admin user, but the directory has held a service:
  %s
  likely cause: state.db was deleted, truncated or replaced, or entries were deleted from its users; starting would create a new service and a new admin token
  ways out:
    - restore the whole directory from a backup and start again;
    - inspect it: backfill serve --check %s
    - accept the loss: start with --accept-loss (the admin user is created again, with the token of --admin-token-file, else the one in %s, else a new one)`,
		dir, strings.Join(evidence, "\n  "), dir, s.AdminTokenFile())
}

// createAdmin creates the admin user with the token of STATE/admin.token
// if the file exists (a loss accepted: the operators keep their token),
// otherwise with a new token written to that file. The file is never
// overwritten: the new token goes to a temporary file, the admin row is
// committed, then the file is renamed into place.
func (s *Service) createAdmin() error {
	path := s.AdminTokenFile()
	if b, err := os.ReadFile(path); err == nil {
		tok := strings.TrimSpace(string(b))
		if tok == "" {
			return fmt.Errorf("%s is empty; remove it or give --admin-token-file", path)
		}
		u := store.User{Name: "admin", TokenHash: HashToken(tok), Admin: true, Created: s.clock.Now()}
		var err error
		if u.ID, err = s.st.NextUserID(); err != nil {
			return err
		}
		if err := s.st.PutUser(u); err != nil {
			return err
		}
		s.users[u.TokenHash], s.names[u.Name] = &u, &u
		s.log.Warn("admin user created again with the token of the existing file", "file", path)
		return nil
	}
	tok := NewToken()
	tmp := path + ".tmp"
	os.Remove(tmp)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing the admin token: %w", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		f.Close()
		return fmt.Errorf("writing the admin token: %w", err)
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("writing the admin token: %w", err)
	}
	f.Close()
	u := store.User{Name: "admin", TokenHash: HashToken(tok), Admin: true, Created: s.clock.Now()}
	if u.ID, err = s.st.NextUserID(); err != nil {
		return err
	}
	if err := s.st.PutUser(u); err != nil {
		return err
	}
	if fileExists(path) {
		return fmt.Errorf("%s appeared while the service was starting; not overwriting it", path)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("writing the admin token: %w", err)
	}
	s.users[u.TokenHash], s.names[u.Name] = &u, &u
	s.log.Info("admin token created", "file", path)
	return nil
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

func (s *Service) execJob(j *Job) executor.Job {
	return executor.Job{ID: j.ID(), Tag: "bf-" + s.inst + "-" + strconv.FormatInt(j.ID(), 10),
		Procs: j.Req.Procs, Estimate: j.Req.Estimate, Command: j.Command, User: j.User, Name: j.Name, Workdir: j.Workdir, Ref: j.Ref}
}

// toReconcile lists the jobs the log says are running and waiting.
func (s *Service) toReconcile() (running, waiting []executor.Job) {
	for _, j := range s.eng.jobs.Slice() {
		if j == nil {
			continue // finished
		}
		switch j.State {
		case Running:
			running = append(running, s.execJob(j))
		case Waiting:
			waiting = append(waiting, s.execJob(j))
		}
	}
	return running, waiting
}

// reconcile asks the executor about the jobs the log said were running or
// waiting at the start, retrying (with a growing delay, up to a minute)
// until it answers or the service closes; running jobs that ended
// meanwhile end now. It runs on the effector, before any other action.
func (s *Service) reconcile(running, waiting []executor.Job) bool {
	if len(running)+len(waiting) == 0 {
		return true
	}
	var stat map[int64]executor.Status
	delay := 100 * time.Millisecond
	for {
		var err error
		t0 := time.Now()
		stat, err = s.exec.Reconcile(running, waiting)
		if err == nil {
			s.log.Info("executor reconciled", "executor", s.exec.Name(), "running", len(running), "waiting", len(waiting), "took", time.Since(t0).String())
			break
		}
		s.log.Error("reconciling with the executor; retrying", "executor", s.exec.Name(), "err", err, "retry_in", delay.String())
		if s.effects.sleep(delay) {
			return false // closing
		}
		delay = min(2*delay, time.Minute)
	}
	for _, rj := range running {
		stt, ok := stat[rj.ID]
		if !ok || stt.Running {
			continue
		}
		endReporter{s}.Ended(rj.ID, stt.Exit, stt.Note)
		s.log.Info("job ended while the service was down", "id", rj.ID, "note", stt.Note)
	}
	return true
}

// endReporter receives the executor's events.
type endReporter struct{ s *Service }

func (r endReporter) Ended(id int64, exit *int, note string) {
	s := r.s
	err := s.do(func(e *Engine) error {
		j := e.Job(id)
		if j == nil {
			return fmt.Errorf("unknown job %d", id)
		}
		_, err := e.End(max(s.clock.Now(), e.cur), j, exit, note)
		return err
	})
	if err != nil {
		s.log.Warn("executor reported an end", "id", id, "err", err)
	}
}

// failed ends a job its executor could not start: failed.
func (r endReporter) failed(id int64, note string) {
	s := r.s
	err := s.do(func(e *Engine) error {
		j := e.Job(id)
		if j == nil {
			return fmt.Errorf("unknown job %d", id)
		}
		_, err := e.Fail(max(s.clock.Now(), e.cur), j, note)
		return err
	})
	if err != nil {
		s.log.Warn("executor failed to start a job", "id", id, "err", err)
	}
}

// do runs f on the engine under the lock, commits what it logged, and
// waits for the commit.
func (s *Service) do(f func(e *Engine) error) error { return s.doTimed(f, nil) }

// doTimed is do that, when tm is set, records where the request's time
// went (reqTiming: lock wait, engine, snapshot capture, read view,
// commit).
func (s *Service) doTimed(f func(e *Engine) error, tm *reqTiming) error {
	tw := time.Now()
	s.writers.Add(1)
	s.mu.Lock()
	s.writers.Add(-1)
	t0 := time.Now()
	err := f(s.eng)
	// the compression the request's releases call for, now rather than
	// in the next submission (the request's own engine time) — unless
	// another write already waits for the lock: then that one makes it
	// (a submission must wait for it anyway, and a cancellation at the
	// same instant would undo it and make it again, with its own release)
	if s.writers.Load() == 0 {
		s.eng.SettleAhead()
	}
	t1 := time.Now()
	s.snapCost += t1.Sub(t0)
	b := s.enqueueTimedLocked(tm)
	t2 := time.Now()
	s.publishLocked(false)
	t3 := time.Now()
	s.mu.Unlock()
	if tm != nil {
		tm.lock, tm.engine, tm.enqueue, tm.publish = t0.Sub(tw), t1.Sub(t0), t2.Sub(t1), t3.Sub(t2)
	}
	if pe := (*engine.PolicyError)(nil); errors.As(err, &pe) {
		s.log.Error("the policy broke the scheduling protocol; every request fails until the service is restarted with a fixed policy", "err", err)
	}
	if b != nil {
		cerr := <-b.done
		if tm != nil {
			tm.commitWait = time.Since(t3)
		}
		if cerr != nil {
			return cerr
		}
	}
	return err
}

// enqueueLocked takes the engine's records and effects into the commit
// queue (nil if none). Called with s.mu held, so the queue is in log order.
func (s *Service) enqueueLocked() *batch { return s.enqueueTimedLocked(nil) }

// enqueueTimedLocked is enqueueLocked; tm, when set, receives the
// batch's commit times.
func (s *Service) enqueueTimedLocked(tm *reqTiming) *batch {
	recs, effs := s.eng.Take()
	if len(recs) == 0 && len(effs) == 0 {
		return nil
	}
	arch, fin := s.takeFinishedLocked()
	b := &batch{recs: recs, effects: effs, arch: arch, fin: fin, done: make(chan error, 1), tm: tm}
	if len(recs) > 0 {
		var t0 time.Time
		if tm != nil {
			t0 = time.Now()
		}
		b.snap = s.takeSnapshotLocked()
		if tm != nil && b.snap != nil {
			tm.capture = time.Since(t0)
		}
	}
	if tm != nil {
		b.enq = time.Now()
	}
	s.qmu.Lock()
	if s.fatal != nil || s.closing {
		s.qmu.Unlock()
		b.done <- ErrUnavailable
		return b
	}
	s.queue = append(s.queue, b)
	s.qcond.Signal()
	s.qmu.Unlock()
	return b
}

// committer writes queued batches, many per transaction, and saves the
// snapshots: a snapshot is saved once the records it includes are
// committed and its encoding (off the engine lock) is done, in parts of
// one transaction each (store.SnapshotSave), between commits: the
// committer goes on committing while a snapshot encodes and between its
// parts, so that a snapshot delays a commit by one part's transaction at
// most. A later snapshot makes an older one not yet begun pointless
// (skipped).
func (s *Service) committer() {
	defer s.wg.Done()
	defer s.effects.close()
	var snap *pendingSnap  // the latest snapshot whose records are committed, not yet begun
	var saving *snapSaving // the snapshot being saved
	for {
		s.qmu.Lock()
		for len(s.queue) == 0 && !s.closing && saving == nil && (snap == nil || !snap.ready()) {
			s.qcond.Wait()
		}
		if len(s.queue) == 0 && s.closing {
			ok := s.fatal == nil
			s.qmu.Unlock()
			if ok {
				for saving != nil && !s.stepSnapshot(saving) {
				}
				if snap != nil {
					s.saveSnapshot(snap)
				}
			}
			return
		}
		q := s.queue
		s.queue = nil
		s.qmu.Unlock()
		for _, b := range q {
			if b.snap != nil {
				if snap != nil {
					snap.supersede()
				}
				snap = b.snap
			}
		}
		if !s.commitAndAck(q) {
			snap, saving = nil, nil
			continue
		}
		if saving == nil && snap != nil && snap.ready() {
			saving, snap = s.beginSnapshot(snap), nil
		}
		if saving != nil {
			t0 := time.Now()
			if s.stepSnapshot(saving) {
				saving = nil
			}
			s.lastSave = [2]time.Time{t0, time.Now()}
		}
	}
}

// commitAndAck commits the batches q and answers their writers, or, when
// the commit fails, stops the service: every queued writer is answered
// ErrUnavailable. It reports whether the commit succeeded.
func (s *Service) commitAndAck(q []*batch) bool {
	if len(q) == 0 {
		return true
	}
	t0 := time.Now()
	err := s.commitBatches(q)
	t1 := time.Now()
	for _, b := range q {
		if tm := b.tm; tm != nil {
			tm.queue, tm.commit = t0.Sub(b.enq), t1.Sub(t0)
			if sv := s.lastSave; sv[1].After(b.enq) {
				tm.snapSave = sv[1].Sub(maxTime(sv[0], b.enq))
			}
		}
	}
	if err != nil {
		s.log.Error("commit failed; the service stops accepting requests", "err", err)
		s.qmu.Lock()
		if s.fatal == nil {
			close(s.failed)
		}
		s.fatal = err
		rest := s.queue
		s.queue = nil
		s.qmu.Unlock()
		for _, b := range append(q, rest...) {
			b.done <- ErrUnavailable
		}
		return false
	}
	var effs []Effect
	for _, b := range q {
		effs = append(effs, b.effects...)
	}
	s.effects.push(effs) // never blocks: the executor has its own queue
	for _, b := range q {
		if n := len(b.recs); n > 0 {
			s.committed.Store(b.recs[n-1].Seq)
		}
	}
	for _, b := range q {
		s.archivedDone(b.fin)
		b.done <- nil
	}
	s.notifyDecisions()
	return true
}

func (s *Service) notifyDecisions() {
	s.decMu.Lock()
	close(s.newDec)
	s.newDec = make(chan struct{})
	s.decMu.Unlock()
}

// effector reconciles the executor, then runs its actions in decision
// order, outside the engine lock; kills and cancellations that fail are
// retried (they are idempotent), a start that fails ends the job.
func (s *Service) effector(running, waiting []executor.Job) {
	defer s.wg.Done()
	if !s.reconcile(running, waiting) {
		return // closed before the executor answered: no action on it
	}
	for {
		f, ok := s.effects.pop()
		if !ok {
			return
		}
		s.mu.Lock()
		ej := s.execJob(f.Job)
		s.mu.Unlock()
		var ref string
		var err error
		for try := 0; ; try++ {
			switch f.Kind {
			case "submit":
				ref, err = s.exec.Submit(ej)
			case "start":
				ref, err = s.exec.Start(ej)
			case "kill":
				err = s.exec.Kill(ej)
			case "cancel":
				err = s.exec.Cancel(ej)
			}
			if err == nil || (f.Kind != "kill" && f.Kind != "cancel") || try == effectRetries {
				break
			}
			s.log.Warn("executor; retrying", "action", f.Kind, "id", ej.ID, "err", err, "try", try+1)
			if s.effects.sleep(time.Duration(100<<(2*try)) * time.Millisecond) {
				break
			}
		}
		if err != nil {
			s.log.Error("executor", "action", f.Kind, "id", ej.ID, "err", err)
			if f.Kind == "start" {
				// the job cannot run: it ends now, with no status
				go endReporter{s}.failed(ej.ID, "executor failed to start it: "+err.Error())
			}
		}
		if ref != "" && ref != ej.Ref {
			s.mu.Lock()
			s.eng.SetRef(f.Job, ref)
			s.enqueueLocked() // no need to wait
			s.publishLocked(false)
			s.mu.Unlock()
		}
	}
}

// Tick advances the engine to the clock's current instant, running the
// passes of the instants that are over. The wall-clock loop (Run) calls it
// every second; with a manual clock, SetClock does.
func (s *Service) Tick() error {
	now := s.clock.Now()
	return s.do(func(e *Engine) error {
		if now <= e.cur {
			return nil
		}
		return e.Advance(now)
	})
}

// ClockResult is the answer to SetClock.
type ClockResult struct {
	Now int64 `json:"now"`
	// Next is the next instant at which the service will run a pass by
	// itself (a wake-up or a job limit); absent when none.
	Next *int64 `json:"next_event,omitempty"`
	// Started lists the jobs started during this call, with their start.
	Started []StartedJob `json:"started"`
}

// StartedJob is a job started at a pass.
type StartedJob struct {
	ID    int64 `json:"id"`
	Start int64 `json:"start"`
}

// SetClock moves a manual clock to t (which must not be before the
// current instant) and, if pass, runs the pass of instant t at once (a
// later event at t leads to another pass at t, as in the simulator when a
// job ends at the instant it started).
func (s *Service) SetClock(t int64, pass bool) (ClockResult, error) {
	mc, ok := s.clock.(*ManualClock)
	if !ok {
		return ClockResult{}, errors.New("the clock is the wall clock; start the service with --clock manual to set it")
	}
	var res ClockResult
	err := s.do(func(e *Engine) error {
		if t < e.cur {
			return &apiError{409, fmt.Sprintf("time %d is before the current instant %d", t, e.cur)}
		}
		mc.Set(t)
		if err := e.Advance(t); err != nil {
			return err
		}
		if pass {
			if err := e.Flush(); err != nil {
				return err
			}
		}
		for _, j := range e.TakeStarted() {
			res.Started = append(res.Started, StartedJob{ID: j.ID(), Start: j.Start})
		}
		res.Now = e.cur
		if n := e.Next(); n != policy.NoWake {
			res.Next = &n
		}
		return nil
	})
	if res.Started == nil {
		res.Started = []StartedJob{}
	}
	return res, err
}

// Run drives the wall clock: once a second (just after each whole second)
// it runs the passes that are due. It returns when stop is closed.
func (s *Service) Run(stop <-chan struct{}) {
	select {
	case <-stop:
		return
	case <-s.ready:
		if s.readyErr != nil {
			<-stop
			return
		}
	}
	if _, manual := s.clock.(*ManualClock); manual {
		<-stop
		return
	}
	for {
		now := time.Now()
		next := now.Truncate(time.Second).Add(time.Second + time.Millisecond)
		select {
		case <-stop:
			return
		case <-time.After(next.Sub(now)):
		}
		t0 := time.Now()
		if err := s.Tick(); err != nil {
			s.log.Error("pass", "err", err)
			if errors.Is(err, ErrUnavailable) {
				return
			}
		}
		s.met.pass.Observe(time.Since(t0).Seconds())
	}
}

// Close stops the committer and the executor; running jobs are left
// running (a restart finds them again).
func (s *Service) Close() error {
	if s.isReady() {
		s.finalSnapshot()
	}
	s.qmu.Lock()
	if s.closing {
		s.qmu.Unlock()
		return nil
	}
	s.closing = true
	s.qcond.Broadcast()
	s.qmu.Unlock()
	s.wg.Wait()
	if s.exec != nil && s.started {
		s.exec.Close()
	}
	return s.st.Close()
}

// finalSnapshot saves a snapshot at the log's end, so that the next start
// (after a clean shutdown: SIGTERM, SIGINT) replays nothing. It is skipped
// when the latest snapshot is already there, when snapshots are off, or
// when the policy cannot save its state.
func (s *Service) finalSnapshot() {
	s.mu.Lock()
	if s.snapOff || s.cfg.SnapshotEvery < 0 || s.eng.seq == s.snapSeq || s.eng.Failed() != nil {
		s.mu.Unlock()
		return
	}
	data, err := s.eng.snapshot()
	if err != nil {
		s.snapOff = true
		s.mu.Unlock()
		s.log.Info("no snapshot at shutdown: the next start replays the log", "policy", s.eng.Policy(), "reason", err)
		return
	}
	snap := encodedSnap(s.eng.seq, s.eng.cur, data)
	snap.saved = make(chan error, 1)
	b := &batch{snap: snap, done: make(chan error, 1)}
	s.snapSeq, s.snapTime, s.snapCost = s.eng.seq, time.Now(), 0
	s.qmu.Lock()
	if s.fatal != nil || s.closing {
		s.qmu.Unlock()
		s.mu.Unlock()
		return
	}
	s.queue = append(s.queue, b)
	s.qcond.Signal()
	s.qmu.Unlock()
	s.mu.Unlock()
	if err := <-b.done; err != nil {
		return
	}
	if err := <-snap.saved; err == nil {
		s.log.Info("snapshot saved at shutdown", "seq", snap.Seq)
	}
}

// Failed is closed when the service can no longer commit (Fatal says why).
func (s *Service) Failed() <-chan struct{} { return s.failed }

// Fatal is the error that made the service unavailable, if any.
func (s *Service) Fatal() error {
	s.qmu.Lock()
	defer s.qmu.Unlock()
	return s.fatal
}

// Policy is the policy's name.
func (s *Service) Policy() string {
	if v := s.readView(); v.policy != "" {
		return v.policy
	}
	return s.policyName
}

// Procs is the machine size.
func (s *Service) Procs() int { return s.readView().procs }

// ExecutorName is the executor's name.
func (s *Service) ExecutorName() string {
	if !s.isReady() {
		return s.cfg.Executor
	}
	return s.exec.Name()
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
