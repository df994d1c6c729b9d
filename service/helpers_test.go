package service

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/policy/conservative"
)

// testAdmitter is a tiny deadline policy for tests: conservative
// backfilling that admits a job iff its guaranteed start + estimate meets
// its deadline, and forgets a rejected job.
type testAdmitter struct {
	*conservative.Policy
	rejected map[int]string
}

func (a *testAdmitter) Name() string { return "test-deadline" }

// Snapshot overrides the embedded policy's: the rejections are not saved,
// so this policy takes no snapshots (the service replays its whole log).
func (a *testAdmitter) Snapshot() ([]byte, error) {
	return nil, fmt.Errorf("test-deadline: no snapshots")
}

func (a *testAdmitter) Insert(now int64, j *job.Request) {
	a.Policy.Insert(now, j)
	if j.Deadline == 0 {
		return
	}
	if g := a.Policy.Guarantee(j); g+j.Estimate > j.Deadline {
		a.Policy.Remove(now, j)
		a.rejected[j.ID] = fmt.Sprintf("deadline %d cannot be met: earliest guaranteed end %d", j.Deadline, g+j.Estimate)
	}
}

func (a *testAdmitter) Admitted(j *job.Request) (bool, string) {
	if r, ok := a.rejected[j.ID]; ok {
		return false, r
	}
	return true, ""
}

var _ policy.Admitter = (*testAdmitter)(nil)

func init() {
	policy.Register(policy.Info{
		Name: "test-deadline",
		Doc:  "tests only: conservative backfilling admitting jobs whose guarantee meets their deadline",
		New: func(procs int, _ policy.Params) (policy.Scheduler, error) {
			return &testAdmitter{Policy: conservative.New(procs, conservative.Config{}), rejected: map[int]string{}}, nil
		},
	})
}

type testEnv struct {
	t     *testing.T
	dir   string
	svc   *Service
	srv   *httptest.Server
	clock *ManualClock
	admin *Client
	cfg   Config
}

// newEnv starts a service with a manual clock at 0 on a loopback server.
func newEnv(t *testing.T, spec string, procs int) *testEnv {
	t.Helper()
	dir := t.TempDir()
	env := &testEnv{t: t, dir: dir}
	env.cfg = Config{Policy: spec, Procs: procs, StateDir: dir, Sync: "normal", AdminToken: "admin-secret"}
	env.start(0)
	return env
}

func (env *testEnv) start(now int64) {
	t := env.t
	t.Helper()
	env.clock = NewManualClock(now)
	env.cfg.Clock = env.clock
	svc, err := Open(env.cfg)
	if err != nil {
		t.Fatal(err)
	}
	env.svc = svc
	env.srv = httptest.NewServer(svc.Handler())
	env.admin = NewClient(env.srv.URL, "admin-secret")
	t.Cleanup(env.stop)
}

func (env *testEnv) stop() {
	if env.srv != nil {
		env.srv.Close()
		env.srv = nil
	}
	if env.svc != nil {
		env.svc.Close()
		env.svc = nil
	}
}

// restart closes the service and opens it again on the same state.
func (env *testEnv) restart() {
	now := env.clock.Now()
	env.stop()
	env.start(now)
}

func (env *testEnv) user(name string) *Client {
	env.t.Helper()
	u, err := env.admin.CreateUser(context.Background(), UserRequest{Name: name})
	if err != nil {
		env.t.Fatal(err)
	}
	return NewClient(env.srv.URL, u.Token)
}

func (env *testEnv) clockTo(now int64) ClockResult {
	env.t.Helper()
	r, err := env.admin.SetClock(context.Background(), now, true)
	if err != nil {
		env.t.Fatal(err)
	}
	return r
}

func ip(n int) *int          { return &n }
func i64(n int64) *int64     { return &n }
func f64(x float64) *float64 { return &x }

func must[T any](t *testing.T) func(v T, err error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
}

var _ = os.Getenv
var _ = strings.Contains

func strconvI(n int64) string { return fmt.Sprint(n) }

func fmtSscan(s string, v *int) (int, error) { return fmt.Sscan(s, v) }

// flushCommits waits until the committer has committed every batch
// queued so far: a test may then read their records from the store. A
// snapshot is not necessarily saved by then: it is encoded off the lock
// and saved in parts once ready, so a test of snapshots waits for the
// store to show it (TestSnapshotByCost).
func (s *Service) flushCommits() {
	b := &batch{done: make(chan error, 1)}
	s.qmu.Lock()
	if s.fatal != nil || s.closing {
		s.qmu.Unlock()
		return
	}
	s.queue = append(s.queue, b)
	s.qcond.Signal()
	s.qmu.Unlock()
	<-b.done
}
