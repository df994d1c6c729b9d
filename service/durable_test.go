package service

import (
	"context"
	"io"
	"math/rand/v2"
	"net/http"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/policy"
)

func TestRestartKeepsStateAndGuarantees(t *testing.T) {
	env := newEnv(t, "conservative", 10)
	ctx := context.Background()
	alice := env.user("alice")
	var before []JobView
	for i := 0; i < 20; i++ {
		env.clockTo(int64(i * 10))
		v := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1 + i%7), Estimate: i64(int64(50 + 13*i)), IdempotencyKey: "k" + string(rune('a'+i))}))
		before = append(before, v)
		if i == 8 {
			must[JobView](t)(env.admin.End(ctx, 1, ip(3)))
		}
	}
	env.clockTo(200)
	l1 := must[JobList](t)(env.admin.Jobs(ctx, "", ""))
	env.restart()
	token := alice.Token
	alice = NewClient(env.srv.URL, token) // users survive too
	l2 := must[JobList](t)(alice.Jobs(ctx, "", ""))
	if len(l1.Jobs) != len(l2.Jobs) {
		t.Fatalf("%d jobs before the restart, %d after", len(l1.Jobs), len(l2.Jobs))
	}
	for i := range l1.Jobs {
		a, b := l1.Jobs[i], l2.Jobs[i]
		if a.ID != b.ID || a.State != b.State || !eq(a.GuaranteedStart, b.GuaranteedStart) || !eq(a.Start, b.Start) || !eq(a.ReservedStart, b.ReservedStart) {
			t.Fatalf("job %d differs after the restart:\n%+v\n%+v", a.ID, a, b)
		}
	}
	// a retried submission with a known key returns the first job
	v := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(50), IdempotencyKey: "ka"}))
	if v.ID != 1 {
		t.Fatalf("retried submission made job %d", v.ID)
	}
	if _, err := alice.Submit(ctx, SubmitRequest{Procs: ip(2), Estimate: i64(50), IdempotencyKey: "ka"}); statusOf(err) != 409 {
		t.Fatalf("key reused with other parameters: %v", err)
	}
	// run everything to the end: every start within its guarantee
	runToEnd(t, env)
	l3 := must[JobList](t)(alice.Jobs(ctx, "", ""))
	for _, j := range l3.Jobs {
		if !j.State.Final() {
			t.Fatalf("job %d still %s", j.ID, j.State)
		}
		if j.Start != nil && j.GuaranteedStart != nil && *j.Start > *j.GuaranteedStart {
			t.Fatalf("job %d started at %d after its guarantee %d", j.ID, *j.Start, *j.GuaranteedStart)
		}
	}
	// another policy: the log is replayed with its own, then the service
	// is reconfigured (reconfig_test.go)
	env.stop()
	env.cfg.Policy = "easy"
	env.start(env.clock.Now())
	if p := env.svc.Policy(); p != "easy" {
		t.Fatalf("restarted with --policy easy: policy %s", p)
	}
}

func eq(a, b *int64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// runToEnd moves the manual clock from event to event until nothing is
// left to do.
func runToEnd(t *testing.T, env *testEnv) {
	t.Helper()
	ctx := context.Background()
	now := env.clock.Now()
	for i := 0; i < 100000; i++ {
		r := must[ClockResult](t)(env.admin.SetClock(ctx, now, true))
		if r.Next == nil {
			return
		}
		now = *r.Next
	}
	t.Fatal("runToEnd: no end")
}

func TestDeadlineAdmission(t *testing.T) {
	env := newEnv(t, "test-deadline", 4)
	ctx := context.Background()
	alice := env.user("alice")
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(4), Estimate: i64(100)}))
	env.clockTo(0)
	ok := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(2), Estimate: i64(50), Deadline: i64(150)}))
	if !ok.Admitted || ok.State != Waiting || *ok.GuaranteedStart != 100 || *ok.Deadline != 150 {
		t.Fatalf("feasible deadline: %+v", ok)
	}
	no := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(4), Estimate: i64(50), Deadline: i64(120)}))
	if no.Admitted || no.State != Rejected || !strings.Contains(no.Reason, "cannot be met") || no.GuaranteedStart != nil {
		t.Fatalf("infeasible deadline: %+v", no)
	}
	if body := get(t, env, "/metrics"); !strings.Contains(body, "backfill_submissions_total{result=\"rejected\"} 1") {
		t.Errorf("metrics lack the rejection")
	}
	env.restart()
	no2 := must[JobView](t)(env.admin.Job(ctx, no.ID))
	if no2.State != Rejected || no2.Reason != no.Reason {
		t.Fatalf("rejection after restart: %+v", no2)
	}
	runToEnd(t, env)
	j := must[JobView](t)(env.admin.Job(ctx, ok.ID))
	if *j.End > 150 {
		t.Fatalf("admitted job ended at %d after its deadline", *j.End)
	}
	body := get(t, env, "/metrics")
	for _, m := range []string{"backfill_queue_length 0", "backfill_decision_latency_seconds_bucket", "backfill_utilization"} {
		if !strings.Contains(body, m) {
			t.Errorf("metrics lack %q", m)
		}
	}
}

func get(t *testing.T, env *testEnv, path string) string {
	t.Helper()
	resp, err := http.Get(env.srv.URL + path)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", path, resp.StatusCode, b)
	}
	return string(b)
}

func TestDecisionsAdvisor(t *testing.T) {
	env := newEnv(t, "easy", 4)
	ctx := context.Background()
	alice := env.user("alice")
	for i := 0; i < 3; i++ {
		must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(2), Estimate: i64(10)}))
	}
	env.clockTo(0)
	var d DecisionList
	if err := env.admin.Do(ctx, "GET", "/v1/decisions?after=0", nil, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Decisions) != 2 || d.Decisions[0].Action != "start" || d.Decisions[0].ID != 1 || d.Decisions[1].ID != 2 {
		t.Fatalf("decisions at 0: %+v", d)
	}
	// a long poll answers when the next decision comes
	done := make(chan DecisionList)
	go func() {
		var d2 DecisionList
		if err := env.admin.Do(ctx, "GET", "/v1/decisions?wait=10&after="+itoa(d.Next), nil, &d2); err != nil {
			t.Error(err)
		}
		done <- d2
	}()
	must[ClockResult](t)(env.admin.SetClock(ctx, 3, false))
	must[JobView](t)(env.admin.End(ctx, 1, nil))
	env.clockTo(3)
	d2 := <-done
	if len(d2.Decisions) < 1 || d2.Decisions[0].Action != "stop" || d2.Decisions[0].ID != 1 {
		t.Fatalf("long poll: %+v", d2)
	}
	var d3 DecisionList
	if err := env.admin.Do(ctx, "GET", "/v1/decisions?after="+itoa(d.Next), nil, &d3); err != nil {
		t.Fatal(err)
	}
	if len(d3.Decisions) != 2 || d3.Decisions[1].Action != "start" || d3.Decisions[1].ID != 3 || d3.Decisions[1].T != 3 {
		t.Fatalf("decisions after the end: %+v", d3)
	}
	// the schedule shows the running jobs
	s := must[Schedule](t)(env.admin.Schedule(ctx))
	if len(s.Bars) != 2 || s.Bars[0].State != "running" {
		t.Fatalf("schedule: %+v", s)
	}
}

func itoa(n int64) string { return strconvI(n) }

// TestDeadlinePolicies runs every registered deadline policy (a
// policy.Admitter: qops, msb, mrt when present, and the test policy)
// through the service on a random stream with deadlines: each admitted job
// ends by its deadline, rejections carry a reason, and a restart replays
// to the same decisions.
func TestDeadlinePolicies(t *testing.T) {
	for _, spec := range []string{"qops", "msb", "mrt", "test-deadline"} {
		if _, err := policy.New(spec, 8); err != nil {
			t.Logf("%s: not in this tree (%v)", spec, err)
			continue
		}
		t.Run(spec, func(t *testing.T) { deadlineStream(t, spec) })
	}
}

func deadlineStream(t *testing.T, spec string) {
	env := newEnv(t, spec, 8)
	ctx := context.Background()
	alice := env.user("alice")
	r := rand.New(rand.NewPCG(11, uint64(len(spec))))
	var now int64
	var views []JobView
	for i := 0; i < 60; i++ {
		now += int64(r.IntN(20))
		env.clockTo(now)
		est := int64(10 + r.IntN(90))
		req := SubmitRequest{Procs: ip(1 + r.IntN(8)), Estimate: i64(est)}
		if r.IntN(4) > 0 {
			req.Deadline = i64(now + est + int64(r.IntN(300)))
		}
		views = append(views, must[JobView](t)(alice.Submit(ctx, req)))
	}
	env.restart()
	admitted, rejected := 0, 0
	for _, v := range views {
		w := must[JobView](t)(env.admin.Job(ctx, v.ID))
		if w.Admitted != v.Admitted || w.Reason != v.Reason || !eq(w.GuaranteedStart, v.GuaranteedStart) {
			t.Fatalf("job %d after the restart:\n%+v\n%+v", v.ID, v, w)
		}
		if !v.Admitted && v.Reason == "" {
			t.Fatalf("job %d rejected without a reason", v.ID)
		}
	}
	runToEnd(t, env)
	for _, v := range views {
		w := must[JobView](t)(env.admin.Job(ctx, v.ID))
		if !w.Admitted {
			rejected++
			if w.Start != nil {
				t.Fatalf("rejected job %d started", w.ID)
			}
			continue
		}
		admitted++
		if w.Deadline != nil && *w.End > *w.Deadline {
			t.Fatalf("%s: admitted job %d ended at %d after its deadline %d", spec, w.ID, *w.End, *w.Deadline)
		}
	}
	if admitted == 0 || rejected == 0 {
		t.Fatalf("%s: %d admitted, %d rejected: the stream does not test admission", spec, admitted, rejected)
	}
	t.Logf("%s: %d admitted, %d rejected", spec, admitted, rejected)
}
