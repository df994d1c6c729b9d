package service

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStrictDecoding: what encoding/json lets through and the API
// refuses, each naming the field where there is one (issue 17, item 10).
func TestStrictDecoding(t *testing.T) {
	env := newEnv(t, "conservative", 16)
	alice := env.user("alice")
	cases := []struct {
		body   string
		status int
		field  string
	}{
		{`{"procs": 4, "estimate": 60}`, 201, ""},
		{`{"procs": 4, "procs": 8, "estimate": 60}`, 400, "procs"},             // duplicate key (json: last wins)
		{`{"PROCS": 4, "estimate": 60}`, 400, "PROCS"},                         // case-insensitive match in encoding/json
		{`{"procs": 4, "Estimate": 60}`, 400, "Estimate"},                      // idem
		{`{"procs": 4, "estimate": 60, "colour": 1}`, 400, "colour"},           // unknown
		{"{\"procs\": 4, \"estimate\": 60, \"name\": \"a\xffb\"}", 400, ""},    // invalid UTF-8 (json: replaced)
		{`{"procs": 4, "estimate": 60, "name": "a\ud800b"}`, 400, ""},          // lone surrogate (json: replaced)
		{`{"procs": 4, "estimate": 60, "name": "\ud83d\ude00"}`, 201, ""},      // a pair is fine
		{`{"procs": 4, "estimate": 60, "name": "x\\ud800"}`, 201, ""},          // an escaped backslash, no escape
		{`{"procs": 4, "estimate": 60, "workdir": "rel/dir"}`, 400, "workdir"}, // must be absolute
		{`{"procs": 4, "estimate": 60, "workdir": "/a/../b"}`, 400, "workdir"}, // and clean
		{`{"procs": 4, "estimate": 60, "x": {"a": 1, "a": 2}}`, 400, "x"},      // unknown first
		{`{"procs": 4, "estimate": 60, "idempotency_key": "k", "name": "n"}`, 201, ""},
		{`{"procs": 4, "estimate": 60, "idempotency_key": "k", "name": "n"}`, 200, ""},     // the same retried
		{`{"procs": 4, "estimate": 60, "idempotency_key": "k", "name": "other"}`, 409, ""}, // same key, other body
		{`{"procs": 4, "estimate": 60, "idempotency_key": "k", "command": "rm"}`, 409, ""}, // idem
	}
	for _, c := range cases {
		st, e := rawRequest(t, env, "POST", "/v1/jobs", alice.Token, c.body)
		if st != c.status || e.Field != c.field {
			t.Errorf("%q: got %d %+v, want %d field %q", c.body, st, e, c.status, c.field)
		}
	}
	// exit_code is a process status
	env.clockTo(1)
	for code, want := range map[string]int{`{"exit_code": 256}`: 400, `{"exit_code": -1}`: 400, `{"exit_code": 0, "exit_code": 1}`: 400} {
		if st, _ := rawRequest(t, env, "POST", "/v1/jobs/1/end", "admin-secret", code); st != want {
			t.Errorf("end %s: %d, want %d", code, st, want)
		}
	}
	if st, _ := rawRequest(t, env, "POST", "/v1/jobs/1/end", "admin-secret", `{"exit_code": 2}`); st != 200 {
		t.Errorf("end with exit 2: %d", st)
	}
	if v, _ := env.admin.Job(context.Background(), 1); v.State != Failed {
		t.Errorf("a job ended with exit 2 is %s, want failed", v.State)
	}
}

// TestMethodsAndScheme: a wrong method is 405 with Allow; the Bearer
// scheme is case-insensitive (RFC 7235).
func TestMethodsAndScheme(t *testing.T) {
	env := newEnv(t, "conservative", 16)
	alice := env.user("alice")
	for _, c := range []struct{ method, path, allow string }{
		{"PUT", "/v1/jobs", "GET, POST, HEAD"},
		{"POST", "/v1/health", "GET, HEAD"},
		{"PATCH", "/v1/jobs/3", "GET, DELETE, HEAD"},
		{"GET", "/v1/jobs/3/end", "POST"},
	} {
		req, _ := http.NewRequest(c.method, env.srv.URL+c.path, nil)
		req.Header.Set("Authorization", "Bearer "+alice.Token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 405 || resp.Header.Get("Allow") != c.allow {
			t.Errorf("%s %s: %d Allow %q, want 405 Allow %q", c.method, c.path, resp.StatusCode, resp.Header.Get("Allow"), c.allow)
		}
	}
	if st, _ := rawRequest(t, env, "GET", "/v1/nothing", alice.Token, ""); st != 404 {
		t.Errorf("unknown path: %d", st)
	}
	for _, h := range []string{"bearer " + alice.Token, "BEARER  " + alice.Token, "Bearer " + alice.Token} {
		req, _ := http.NewRequest("GET", env.srv.URL+"/v1/jobs", nil)
		req.Header.Set("Authorization", h)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 {
			t.Errorf("Authorization %q: %d", h[:8], resp.StatusCode)
		}
	}
	for _, h := range []string{"Basic " + alice.Token, alice.Token, "Bearer"} {
		req, _ := http.NewRequest("GET", env.srv.URL+"/v1/jobs", nil)
		req.Header.Set("Authorization", h)
		resp, _ := http.DefaultClient.Do(req)
		resp.Body.Close()
		if resp.StatusCode != 401 {
			t.Errorf("Authorization %.8q: %d, want 401", h, resp.StatusCode)
		}
	}
}

// TestAdminTokenReset: resetting the admin token through the API
// rewrites the file the CLI reads it from (atomically, mode 0600).
func TestAdminTokenReset(t *testing.T) {
	dir := t.TempDir()
	svc, err := Open(Config{Policy: "conservative", Procs: 4, StateDir: dir, Sync: "normal", Clock: NewManualClock(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	tokFile := filepath.Join(dir, "admin.token")
	old, _ := os.ReadFile(tokFile)
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	admin := NewClient(srv.URL, strings.TrimSpace(string(old)))
	var u UserView
	if err := admin.Do(context.Background(), "PATCH", "/v1/users/admin", UserRequest{ResetToken: true}, &u); err != nil {
		t.Fatal(err)
	}
	now, _ := os.ReadFile(tokFile)
	if strings.TrimSpace(string(now)) != u.Token || u.Token == strings.TrimSpace(string(old)) {
		t.Fatalf("admin.token after the reset: %q, the new token %q", now, u.Token)
	}
	if fi, _ := os.Stat(tokFile); fi.Mode().Perm() != 0o600 {
		t.Fatalf("admin.token mode %v", fi.Mode())
	}
	if _, err := NewClient(srv.URL, u.Token).Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := NewClient(srv.URL, u.Token).Do(context.Background(), "GET", "/v1/users", nil, nil); err != nil {
		t.Fatalf("the new admin token: %v", err)
	}
}

// TestStateModes: an existing state directory open to others becomes
// 0700 and the database 0600; one owned by another user is refused.
func TestStateModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state")
	os.Mkdir(dir, 0o755)
	os.Chmod(dir, 0o755)
	svc, err := Open(Config{Policy: "conservative", Procs: 4, StateDir: dir, Sync: "normal", Clock: NewManualClock(0)})
	if err != nil {
		t.Fatal(err)
	}
	svc.Close()
	for _, f := range []string{"", "state.db", "state.mark", "admin.token"} {
		fi, err := os.Stat(filepath.Join(dir, f))
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		want := os.FileMode(0o600)
		if f == "" {
			want = 0o700
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s: mode %v, want %v", filepath.Join("state", f), fi.Mode().Perm(), want)
		}
	}
	if os.Geteuid() != 0 {
		return
	}
	other := filepath.Join(t.TempDir(), "other")
	os.Mkdir(other, 0o700)
	if err := os.Chown(other, 65534, 65534); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(Config{Policy: "conservative", Procs: 4, StateDir: other, Sync: "normal"}); err == nil || !strings.Contains(err.Error(), "belongs to user id 65534") {
		t.Fatalf("a state directory of another user: %v", err)
	}
}

// TestUsersByID: jobs belong to a user id. A user created with a deleted
// user's name sees none of the old jobs; deleting a user cancels their
// jobs, or with jobs=reassign gives them to the admin, and both survive a
// restart (recorded in the log).
func TestUsersByID(t *testing.T) {
	env := newEnv(t, "conservative", 4)
	ctx := context.Background()
	procs, est := 4, int64(100)
	sub := func(c *Client) JobView {
		return must[JobView](t)(c.Submit(ctx, SubmitRequest{Procs: &procs, Estimate: &est, Name: "secret-name", Command: "secret-cmd"}))
	}
	alice, bob := env.user("alice"), env.user("bob")
	a1, a2 := sub(alice), sub(alice)
	b1, b2 := sub(bob), sub(bob)
	env.clockTo(0) // a1 runs
	if err := env.admin.Do(ctx, "DELETE", "/v1/users/alice", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := env.admin.Do(ctx, "DELETE", "/v1/users/bob?jobs=reassign", nil, nil); err != nil {
		t.Fatal(err)
	}
	if err := env.admin.Do(ctx, "DELETE", "/v1/users/carol?jobs=keep", nil, nil); err == nil {
		t.Fatal("an unknown jobs= value was accepted")
	}
	check := func() {
		t.Helper()
		for _, id := range []int64{a1.ID, a2.ID} {
			if v, _ := env.admin.Job(ctx, id); v.State != Cancelled || !strings.Contains(v.Reason, "owner alice") {
				t.Errorf("alice's job %d after her deletion: %s %q", id, v.State, v.Reason)
			}
		}
		for _, id := range []int64{b1.ID, b2.ID} {
			if v, _ := env.admin.Job(ctx, id); v.State.Final() || v.User != "admin" {
				t.Errorf("bob's job %d after his deletion with reassign: %s owned by %s", id, v.State, v.User)
			}
		}
		alice2 := env.user("alice")
		if l, err := alice2.Jobs(ctx, "", ""); err != nil || len(l.Jobs) != 0 {
			t.Errorf("a new alice lists %d jobs (%v)", len(l.Jobs), err)
		}
		if _, err := alice2.Job(ctx, a1.ID); err == nil {
			t.Errorf("a new alice sees the old alice's job")
		}
		if _, err := alice2.Cancel(ctx, b1.ID); err == nil {
			t.Errorf("a new alice cancels a reassigned job")
		}
		env.admin.Do(ctx, "DELETE", "/v1/users/alice", nil, nil)
	}
	check()
	env.restart()
	check()
}

var benchBody = []byte(`{"procs": 16, "estimate": 7200, "user_priority": 0.5, "name": "nightly", "command": "./simulate --steps 1000", "workdir": "/home/alice/run", "idempotency_key": "k-123"}`)

// BenchmarkDecodeSubmit is the submission decoder (strict checks and
// encoding/json).
func BenchmarkDecodeSubmit(b *testing.B) {
	lim := Limits{Procs: 64, MaxEstimate: 86400, Now: 1000}
	for b.Loop() {
		if _, err := DecodeSubmit(benchBody, lim); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCheckJSON is the strict checks alone (duplicates, case,
// UTF-8), the part added to encoding/json's decoding.
func BenchmarkCheckJSON(b *testing.B) {
	var r SubmitRequest
	for b.Loop() {
		if err := checkJSON(benchBody, &r); err != nil {
			b.Fatal(err)
		}
	}
}
