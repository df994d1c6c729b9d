package service

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

func TestSubmitGuaranteeAndStart(t *testing.T) {
	env := newEnv(t, "conservative", 10)
	ctx := context.Background()
	alice := env.user("alice")
	bob := env.user("bob")
	a := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(10), Estimate: i64(100)}))
	if a.ID != 1 || a.State != Waiting || a.GuaranteedStart == nil || *a.GuaranteedStart != 0 || *a.ReservedStart != 0 {
		t.Fatalf("first job: %+v", a)
	}
	r := env.clockTo(0)
	if len(r.Started) != 1 || r.Started[0].ID != 1 || r.Next == nil || *r.Next != 100 {
		t.Fatalf("pass at 0: %+v", r)
	}
	env.clockTo(5)
	b := must[JobView](t)(bob.Submit(ctx, SubmitRequest{Procs: ip(5), Estimate: i64(50)}))
	if b.GuaranteedStart == nil || *b.GuaranteedStart != 100 || *b.ReservedStart != 100 || b.Submit != 5 {
		t.Fatalf("second job: %+v", b)
	}
	// alice's job ends early at 40: bob's job moves to 40
	env.clockTo(40)
	must[JobView](t)(env.admin.End(ctx, 1, ip(0)))
	r = env.clockTo(40)
	if len(r.Started) != 1 || r.Started[0].ID != 2 || r.Started[0].Start != 40 {
		t.Fatalf("pass at 40: %+v", r)
	}
	// bob's job reaches its limit at 90 and is killed
	r = env.clockTo(91)
	j := must[JobView](t)(bob.Job(ctx, 2))
	if j.State != Timeout || *j.End != 90 || *j.Start != 40 {
		t.Fatalf("job 2 after its limit: %+v", j)
	}
	j = must[JobView](t)(alice.Job(ctx, 1))
	if j.State != Completed || *j.End != 40 || *j.ExitCode != 0 {
		t.Fatalf("job 1: %+v", j)
	}
}

func rawRequest(t *testing.T, env *testEnv, method, path, token, body string) (int, ErrorBody) {
	t.Helper()
	req, err := http.NewRequest(method, env.srv.URL+path, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var e ErrorBody
	data, _ := io.ReadAll(resp.Body)
	_ = json.Unmarshal(data, &e)
	return resp.StatusCode, e
}

func TestValidation(t *testing.T) {
	env := newEnv(t, "conservative", 16)
	env.clockTo(1000)
	alice := env.user("alice")
	cases := []struct {
		body   string
		status int
		field  string
	}{
		{`{"procs": 4, "estimate": 60}`, 201, ""},
		{`{"procs": 17, "estimate": 60}`, 400, "procs"},
		{`{"procs": 0, "estimate": 60}`, 400, "procs"},
		{`{"procs": -3, "estimate": 60}`, 400, "procs"},
		{`{"estimate": 60}`, 400, "procs"},
		{`{"procs": 4}`, 400, "estimate"},
		{`{"procs": 4, "estimate": -5}`, 400, "estimate"},
		{`{"procs": 4, "estimate": 0}`, 400, "estimate"},
		{`{"procs": 4, "estimate": 99999999999}`, 400, "estimate"},
		{`{"procs": 4, "estimate": 60, "deadline": 900}`, 400, "deadline"},
		{`{"procs": 4, "estimate": 60, "deadline": 1030}`, 400, "deadline"},
		{`{"procs": 4, "estimate": 60, "deadline": 5000}`, 400, "deadline"}, // conservative has no admission control
		{`{"procs": 4, "estimate": 60, "user_priority": 1.5}`, 400, "user_priority"},
		{`{"procs": 4, "estimate": 60, "political_priority": 0.5}`, 400, "political_priority"},
		{`{"procs": "four", "estimate": 60}`, 400, "procs"},
		{`{"procs": 4.5, "estimate": 60}`, 400, "procs"},
		{`{"procs": 4, "estimate": 60, "color": "red"}`, 400, "color"},
		{`{"procs": 4, "estimate": 60`, 400, ""},
		{`{"procs": 4, "estimate": 60} {}`, 400, ""},
		{`[1,2]`, 400, ""},
		{``, 400, ""},
		{`{"procs": 4, "estimate": 60, "user": "bob"}`, 403, ""},
		{`{"procs": 4, "estimate": 60, "name": "` + strings.Repeat("x", 300) + `"}`, 400, "name"},
		{`{"procs": 4, "estimate": 60, "command": "` + strings.Repeat("x", 70<<10) + `"}`, 413, ""},
	}
	for _, c := range cases {
		st, e := rawRequest(t, env, "POST", "/v1/jobs", alice.Token, c.body)
		if st != c.status || e.Field != c.field {
			b := c.body
			if len(b) > 80 {
				b = b[:80] + "…"
			}
			t.Errorf("%s: got %d %+v, want %d field %q", b, st, e, c.status, c.field)
		}
		if st >= 400 && e.Error == "" {
			t.Errorf("%.60s: %d without an error message", c.body, st)
		}
	}
	// clock, users and ends are for admins
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/v1/clock", `{"now": 2000}`},
		{"POST", "/v1/users", `{"name": "eve"}`},
		{"GET", "/v1/users", ``},
		{"POST", "/v1/jobs/1/end", `{}`},
		{"GET", "/v1/decisions", ``},
	} {
		if st, _ := rawRequest(t, env, c.method, c.path, alice.Token, c.body); st != 403 {
			t.Errorf("%s %s as a user: %d, want 403", c.method, c.path, st)
		}
	}
	if st, _ := rawRequest(t, env, "POST", "/v1/clock", "admin-secret", `{"now": 10}`); st != 409 {
		t.Errorf("clock moved back: %d, want 409", st)
	}
	if st, _ := rawRequest(t, env, "GET", "/v1/jobs/abc", alice.Token, ``); st != 400 {
		t.Errorf("bad id: %d, want 400", st)
	}
	if st, _ := rawRequest(t, env, "GET", "/v1/nothing", alice.Token, ``); st != 404 {
		t.Errorf("unknown path: %d, want 404", st)
	}
}

func TestAuth(t *testing.T) {
	env := newEnv(t, "conservative", 8)
	ctx := context.Background()
	alice, bob := env.user("alice"), env.user("bob")
	a := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(8), Estimate: i64(100), Name: "secret"}))
	must[JobView](t)(bob.Submit(ctx, SubmitRequest{Procs: ip(8), Estimate: i64(100)}))
	if _, err := bob.Job(ctx, a.ID); statusOf(err) != 404 {
		t.Fatalf("bob reads alice's job: %v", err)
	}
	if _, err := bob.Cancel(ctx, a.ID); statusOf(err) != 404 {
		t.Fatalf("bob cancels alice's job: %v", err)
	}
	if _, err := bob.Jobs(ctx, "", "alice"); statusOf(err) != 403 {
		t.Fatalf("bob lists alice's jobs: %v", err)
	}
	l := must[JobList](t)(bob.Jobs(ctx, "", ""))
	if len(l.Jobs) != 1 || l.Jobs[0].User != "bob" {
		t.Fatalf("bob's list: %+v", l.Jobs)
	}
	l = must[JobList](t)(env.admin.Jobs(ctx, "", ""))
	if len(l.Jobs) != 2 {
		t.Fatalf("admin's list: %+v", l.Jobs)
	}
	s := must[Schedule](t)(bob.Schedule(ctx))
	for _, b := range s.Bars {
		if !b.Mine && (b.ID != 0 || b.User != "" || b.Name != "") {
			t.Fatalf("bob's schedule shows another user's job: %+v", b)
		}
	}
	if len(s.Bars) != 2 {
		t.Fatalf("schedule: %+v", s)
	}
	// no token, a wrong token
	if _, err := NewClient(env.srv.URL, "").Jobs(ctx, "", ""); statusOf(err) != 401 {
		t.Fatalf("no token: %v", err)
	}
	if _, err := NewClient(env.srv.URL, "bf_wrong").Jobs(ctx, "", ""); statusOf(err) != 401 {
		t.Fatalf("wrong token: %v", err)
	}
	// alice cancels her own job; a reset token stops working
	if v := must[JobView](t)(alice.Cancel(ctx, a.ID)); v.State != Cancelled {
		t.Fatalf("cancel: %+v", v)
	}
	var u UserView
	if err := env.admin.Do(ctx, "PATCH", "/v1/users/alice", UserRequest{ResetToken: true}, &u); err != nil || u.Token == "" {
		t.Fatalf("reset token: %v %+v", err, u)
	}
	if _, err := alice.Jobs(ctx, "", ""); statusOf(err) != 401 {
		t.Fatalf("old token after reset: %v", err)
	}
	if _, err := NewClient(env.srv.URL, u.Token).Jobs(ctx, "", ""); err != nil {
		t.Fatalf("new token: %v", err)
	}
}

func TestQuotaAndPoliticalPriority(t *testing.T) {
	env := newEnv(t, "slack", 4)
	ctx := context.Background()
	alice := env.user("alice")
	var u UserView
	if err := env.admin.Do(ctx, "PATCH", "/v1/users/alice", UserRequest{PP: f64(0.75), Quota: i64(1000)}, &u); err != nil || u.PP != 0.75 || u.Quota != 1000 {
		t.Fatalf("patch: %v %+v", err, u)
	}
	a := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(4), Estimate: i64(100)}))
	if a.OverQuota || a.PoliticalPriority == nil || *a.PoliticalPriority != 0.75 {
		t.Fatalf("within quota: %+v", a)
	}
	b := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(4), Estimate: i64(200), UserPriority: f64(1)}))
	if !b.OverQuota || b.PoliticalPriority != nil || b.GuaranteedStart != nil || b.UserPriority != 1 {
		t.Fatalf("over quota (400 + 800 > 1000 processor-seconds): %+v", b)
	}
	env.restart()
	b2 := must[JobView](t)(env.admin.Job(ctx, b.ID))
	if !b2.OverQuota || b2.PoliticalPriority != nil {
		t.Fatalf("over quota after the restart: %+v", b2)
	}
	if err := env.admin.Do(ctx, "PATCH", "/v1/users/alice", UserRequest{PP: f64(2)}, nil); statusOf(err) != 400 {
		t.Fatalf("PP 2 accepted: %v", err)
	}
	if err := env.admin.Do(ctx, "DELETE", "/v1/users/admin", nil, nil); statusOf(err) != 409 {
		t.Fatalf("admin deleted: %v", err)
	}
}
