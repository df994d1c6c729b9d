package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestReadsDoNotWaitForWrites holds the engine lock with a write that
// blocks on a channel (a slow re-plan, a slow policy) and checks that every
// read — a job, the list, the schedule, health, metrics, the decisions
// feed — answers meanwhile, from the published view, with the state of
// the last complete write; a second write waits.
func TestReadsDoNotWaitForWrites(t *testing.T) {
	env := newEnv(t, "conservative", 10)
	ctx := context.Background()
	alice := env.user("alice")
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(10), Estimate: i64(100)}))
	env.clockTo(0) // job 1 starts
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(4), Estimate: i64(50)}))

	entered, release := make(chan struct{}), make(chan struct{})
	held := make(chan error, 1)
	go func() {
		held <- env.svc.do(func(e *Engine) error {
			close(entered)
			<-release // the slow write holds the engine
			return nil
		})
	}()
	<-entered
	wrote := make(chan error, 1)
	go func() {
		_, err := alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(10)})
		wrote <- err
	}()

	// every read answers while the write holds the engine
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	j := must[JobView](t)(alice.Job(rctx, 2))
	if j.State != Waiting || j.ReservedStart == nil || *j.ReservedStart != 100 || *j.GuaranteedStart != 100 {
		t.Fatalf("job 2 during the held write: %+v", j)
	}
	if j := must[JobView](t)(alice.Job(rctx, 1)); j.State != Running || *j.Start != 0 {
		t.Fatalf("job 1 during the held write: %+v", j)
	}
	l := must[JobList](t)(alice.Jobs(rctx, "", ""))
	if len(l.Jobs) != 2 {
		t.Fatalf("list during the held write: %+v", l)
	}
	var sched Schedule
	if err := alice.Do(rctx, "GET", "/v1/schedule", nil, &sched); err != nil || len(sched.Bars) != 2 || sched.Bars[1].Start != 100 {
		t.Fatalf("schedule during the held write: %+v %v", sched, err)
	}
	var dl DecisionList
	if err := env.admin.Do(rctx, "GET", "/v1/decisions?after=0", nil, &dl); err != nil || len(dl.Decisions) != 1 || dl.Decisions[0].ID != 1 {
		t.Fatalf("decisions during the held write: %+v %v", dl, err)
	}
	for _, p := range []string{"/v1/health", "/metrics"} {
		req, _ := http.NewRequestWithContext(rctx, "GET", env.srv.URL+p, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Fatalf("GET %s during the held write: %d", p, resp.StatusCode)
		}
	}
	select {
	case err := <-wrote:
		t.Fatalf("a write completed while another held the engine: %v", err)
	default:
	}
	close(release)
	if err := <-held; err != nil {
		t.Fatal(err)
	}
	if err := <-wrote; err != nil {
		t.Fatal(err)
	}
	// the next read shows the write
	if l := must[JobList](t)(alice.Jobs(ctx, "", "")); len(l.Jobs) != 3 {
		t.Fatalf("list after the write: %d jobs", len(l.Jobs))
	}
}

// TestPortOpenDuringRecovery: a restarted service answers at once while it
// rebuilds its state: health says "recovering" (503, Retry-After), every
// API request gets 503 with Retry-After; once rebuilt, everything is there.
func TestPortOpenDuringRecovery(t *testing.T) {
	env := newEnv(t, "conservative", 10)
	ctx := context.Background()
	alice := env.user("alice")
	for i := 0; i < 5; i++ {
		must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(3), Estimate: i64(100)}))
	}
	env.clockTo(0)
	env.stop()

	hold, entered := make(chan struct{}), make(chan struct{})
	testHookRecover = func() { close(entered); <-hold }
	defer func() { testHookRecover = nil }()
	cfg := env.cfg
	cfg.Clock = NewManualClock(0)
	svc, err := Start(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	<-entered
	get := func(method, path, token string) (int, string, string) {
		req, _ := http.NewRequest(method, srv.URL+path, nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, resp.Header.Get("Retry-After"), string(b)
	}
	code, ra, body := get("GET", "/v1/health", "")
	if code != 503 || ra == "" || !strings.Contains(body, `"recovering"`) {
		t.Fatalf("health while recovering: %d Retry-After %q %s", code, ra, body)
	}
	for _, p := range [][2]string{{"GET", "/v1/jobs/1"}, {"GET", "/v1/jobs"}, {"POST", "/v1/jobs"}, {"DELETE", "/v1/jobs/1"}, {"GET", "/v1/schedule"}} {
		code, ra, body := get(p[0], p[1], alice.Token)
		if code != 503 || ra == "" || !strings.Contains(body, "recovering") {
			t.Errorf("%s %s while recovering: %d Retry-After %q %s", p[0], p[1], code, ra, body)
		}
	}
	if code, _, _ := get("GET", "/v1/openapi.json", ""); code != 200 {
		t.Errorf("the API document while recovering: %d", code)
	}
	close(hold)
	if err := svc.WaitReady(); err != nil {
		t.Fatal(err)
	}
	if code, _, body := get("GET", "/v1/health", ""); code != 200 || !strings.Contains(body, `"ok"`) {
		t.Fatalf("health after recovery: %d %s", code, body)
	}
	c := NewClient(srv.URL, alice.Token)
	if l := must[JobList](t)(c.Jobs(ctx, "", "")); len(l.Jobs) != 5 {
		t.Fatalf("after recovery: %d jobs", len(l.Jobs))
	}
}

// TestCleanShutdownSnapshot: a service closed cleanly (SIGTERM) saves a
// snapshot at the log's end, so the next start replays no record, and
// the restored state is the one left.
func TestCleanShutdownSnapshot(t *testing.T) {
	env := newEnv(t, "conservative", 10)
	ctx := context.Background()
	alice := env.user("alice")
	for i := 0; i < 20; i++ {
		must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1 + i%10), Estimate: i64(int64(10 + i))}))
	}
	env.clockTo(3)
	must[JobView](t)(alice.Cancel(ctx, 7))
	before := must[JobList](t)(env.admin.Jobs(ctx, "", ""))
	env.restart()
	if env.svc.replayed != 0 {
		t.Fatalf("after a clean shutdown the restart replayed %d records", env.svc.replayed)
	}
	after := must[JobList](t)(env.admin.Jobs(ctx, "", ""))
	show := func(l JobList) string {
		// reserved starts after a cancellation are those of the instant's
		// pass (view.go); compared below
		var b strings.Builder
		for _, v := range l.Jobs {
			v.ReservedStart = nil
			js, _ := json.Marshal(v)
			b.Write(js)
		}
		return b.String()
	}
	if show(before) != show(after) {
		t.Fatalf("the state changed across the clean restart:\n%v\n%v", show(before), show(after))
	}
	// the pass re-plans: every waiting job has its reservation again
	env.clockTo(3)
	for _, v := range must[JobList](t)(env.admin.Jobs(ctx, "waiting", "")).Jobs {
		if v.ReservedStart == nil || *v.ReservedStart < 3 || *v.ReservedStart > *v.GuaranteedStart {
			t.Fatalf("job %d after the pass: reserved %v, guaranteed %d", v.ID, v.ReservedStart, *v.GuaranteedStart)
		}
	}
}

// TestSnapshotByCost: with SnapshotCost, a snapshot is saved once the
// policy has spent that long deciding, whatever the number of records (so
// that a restart replays about that much of a slow policy's work).
func TestSnapshotByCost(t *testing.T) {
	env := newEnv(t, "conservative", 10)
	env.cfg.SnapshotEvery, env.cfg.SnapshotInterval, env.cfg.SnapshotCost = 1<<30, 1<<40, time.Nanosecond
	env.restart()
	ctx := context.Background()
	taken := func() int64 { // the record of the latest snapshot captured (saved later, off the lock)
		env.svc.mu.Lock()
		defer env.svc.mu.Unlock()
		return env.svc.snapSeq
	}
	before := taken()
	must[JobView](t)(env.admin.Submit(ctx, SubmitRequest{Procs: ip(2), Estimate: i64(10)}))
	now := taken()
	if now <= before {
		t.Fatalf("no snapshot taken after a submission that cost more than SnapshotCost (record %d before and after)", before)
	}
	// The committer saves it once it is encoded and its records are
	// committed: wait for that, with a deadline of our own.
	env.svc.flushCommits()
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
		snap, ok, err := env.svc.st.LatestSnapshot()
		if err != nil {
			t.Fatal(err)
		}
		if ok && snap.Seq >= now {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the snapshot taken at record %d was not saved within 10 s (latest saved: %v %d)", now, ok, snap.Seq)
		}
	}
	// and none by cost when it is off
	env.cfg.SnapshotCost = -1
	env.restart()
	before = taken()
	must[JobView](t)(env.admin.Submit(ctx, SubmitRequest{Procs: ip(2), Estimate: i64(10)}))
	if now := taken(); now != before {
		t.Fatalf("a snapshot by cost with SnapshotCost < 0 (taken at record %d, the last one before at %d)", now, before)
	}
}
