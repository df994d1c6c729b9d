package service

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestReconfigureAttacks: hostile requests to POST /v1/reconfigure are
// refused with the right status and change nothing — no token, a user's
// token, a wrong method, a body over the limit, unknown or duplicate
// fields, a machine size of zero, negative or absurd (a policy's
// per-processor tables would take the memory), a policy spec or note over
// the length limit, and a policy parameter that names a file the service
// was not started with (the parse error would echo the file's content to
// the caller: a file-read oracle for whoever holds the admin token).
func TestReconfigureAttacks(t *testing.T) {
	env := newEnv(t, "conservative", 8)
	alice := env.user("alice")
	secret := filepath.Join(t.TempDir(), "secret")
	if err := os.WriteFile(secret, []byte("TOPSECRET-do-not-echo\nsecond line\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	big := `{"procs": 4, "note": "` + strings.Repeat("x", 70<<10) + `"}`
	cases := []struct {
		name, method, token, body string
		code                      int
	}{
		{"no token", "POST", "", `{"procs": 4}`, 401},
		{"bad token", "POST", "not-a-token", `{"procs": 4}`, 401},
		{"user token", "POST", alice.Token, `{"procs": 4}`, 403},
		{"user token, huge body", "POST", alice.Token, big, 403},
		{"GET", "GET", "admin-secret", "", 405},
		{"body over the limit", "POST", "admin-secret", big, 413},
		{"unknown field", "POST", "admin-secret", `{"procs": 4, "force": true}`, 400},
		{"duplicate field", "POST", "admin-secret", `{"procs": 4, "procs": 2}`, 400},
		{"trailing data", "POST", "admin-secret", `{"procs": 4} {"procs": 2}`, 400},
		{"nothing to change", "POST", "admin-secret", `{}`, 400},
		{"zero processors", "POST", "admin-secret", `{"procs": 0}`, 400},
		{"negative processors", "POST", "admin-secret", `{"procs": -8}`, 400},
		{"absurd machine", "POST", "admin-secret", `{"policy": "lookahead", "procs": 1073741824}`, 400},
		{"overflowing machine", "POST", "admin-secret", `{"procs": 99999999999999999999}`, 400},
		{"long policy", "POST", "admin-secret", `{"policy": "` + strings.Repeat("a", 5000) + `"}`, 400},
		{"long note", "POST", "admin-secret", `{"procs": 4, "note": "` + strings.Repeat("n", 5000) + `"}`, 400},
		{"unknown policy", "POST", "admin-secret", `{"policy": "rm -rf /"}`, 400},
		{"file parameter", "POST", "admin-secret", fmt.Sprintf(`{"policy": "slurm:slurmconf=%s"}`, secret), 400},
		{"file parameter of an order", "POST", "admin-secret", fmt.Sprintf(`{"policy": "easy:order=multifactor:shares=%s"}`, secret), 400},
		{"sidecar file", "POST", "admin-secret", fmt.Sprintf(`{"policy": "slurm:sidecar=%s"}`, secret), 400},
	}
	for _, c := range cases {
		code, e := rawRequest(t, env, c.method, "/v1/reconfigure", c.token, c.body)
		if code != c.code {
			t.Errorf("%s: status %d (%s), want %d", c.name, code, e.Error, c.code)
		}
		if strings.Contains(e.Error, "TOPSECRET") {
			t.Errorf("%s: the answer echoes the file's content: %s", c.name, e.Error)
		}
	}
	h := must[Health](t)(env.admin.Health(context.Background()))
	if h.Policy != "conservative" || h.Procs != 8 {
		t.Fatalf("after the attacks the service runs %s on %d", h.Policy, h.Procs)
	}
	if n := countRecords(t, env, KindReconfig); n != 0 {
		t.Fatalf("%d reconfiguration records after refused requests", n)
	}
}

// TestReconfigureFilesOfTheStart: a reconfiguration may name the files the
// service was started with (here its slurm.conf), in any policy that
// takes them; only other files are refused.
func TestReconfigureFilesOfTheStart(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte("PriorityWeightAge=1000\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, "slurm:slurmconf="+conf, 8)
	for _, spec := range []string{"easy:order=multifactor:slurmconf=" + conf, "slurm:slurmconf=" + conf + ":bf_interval=10", "conservative"} {
		var rep ReconfigReport
		if err := env.admin.Do(context.Background(), "POST", "/v1/reconfigure", ReconfigRequest{Policy: &spec}, &rep); err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
	}
	other := filepath.Join(filepath.Dir(conf), "other.conf")
	if err := os.WriteFile(other, []byte("PriorityWeightAge=1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, e := rawRequest(t, env, "POST", "/v1/reconfigure", "admin-secret", fmt.Sprintf(`{"policy": "slurm:slurmconf=%s"}`, other)); code != 400 || !strings.Contains(e.Error, "slurmconf") {
		t.Fatalf("another file: %d %+v", code, e)
	}
}

// TestReconfigureSlowBody: an admin request to /v1/reconfigure whose body
// trickles in (slowloris) holds no lock while it is read: other users'
// submissions and the clock go on meanwhile; once the body is whole the
// reconfiguration applies. (The server's read timeouts, which end such
// a connection, are serve's: TestAttackSlowBodies in cmd/backfill.)
func TestReconfigureSlowBody(t *testing.T) {
	env := newEnv(t, "conservative", 8)
	alice := env.user("alice")
	conn, err := net.Dial("tcp", strings.TrimPrefix(env.srv.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	body := `{"procs": 16, "note": "slow"}`
	fmt.Fprintf(conn, "POST /v1/reconfigure HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer admin-secret\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", len(body), body[:5])
	time.Sleep(50 * time.Millisecond) // the handler is reading the body
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for i := 0; i < 5; i++ {
		if _, err := alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(100)}); err != nil {
			t.Fatalf("a submission while a reconfiguration's body trickles in: %v", err)
		}
		if _, err := env.admin.SetClock(ctx, int64(i+1), true); err != nil {
			t.Fatalf("the clock while a reconfiguration's body trickles in: %v", err)
		}
	}
	if h := must[Health](t)(env.admin.Health(ctx)); h.Procs != 8 {
		t.Fatalf("the reconfiguration applied before its body was whole: %d processors", h.Procs)
	}
	for _, c := range body[5:] {
		if _, err := conn.Write([]byte{byte(c)}); err != nil {
			t.Fatal(err)
		}
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 {
		t.Fatalf("the slow reconfiguration: %d", resp.StatusCode)
	}
	if h := must[Health](t)(env.admin.Health(ctx)); h.Procs != 16 {
		t.Fatalf("after the slow reconfiguration: %d processors", h.Procs)
	}
}

// TestLostIDsAttack: after an accepted loss (ids lost: never given again,
// SkipIDs, as Open does with --accept-loss), requests naming ids at the
// edges of the window — the first and last lost, the next to be given,
// the largest int64, one past it, zero, negative — get 404 or 400, never a
// 5xx or another job; a cancellation or an end of a lost id changes
// nothing; the next submission gets the id after the lost ones, and a
// restart keeps all of it.
func TestLostIDsAttack(t *testing.T) {
	env := newEnv(t, "conservative", 8)
	alice := env.user("alice")
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(8), Estimate: i64(100)}))
	}
	env.clockTo(0)
	// ids 4 to 20 were acknowledged, then lost (loss accepted)
	if err := env.svc.do(func(e *Engine) error { return e.SkipIDs(21, "test: ids 4 to 20 lost") }); err != nil {
		t.Fatal(err)
	}
	probe := func(when string) {
		for _, id := range []string{"4", "5", "20", "21", "22", "9223372036854775807", "9223372036854775808", "0", "-1", "18446744073709551616"} {
			for _, r := range []struct {
				method, path, token, body string
			}{
				{"GET", "/v1/jobs/" + id, alice.Token, ""},
				{"GET", "/v1/jobs/" + id, "admin-secret", ""},
				{"DELETE", "/v1/jobs/" + id, alice.Token, ""},
				{"POST", "/v1/jobs/" + id + "/end", "admin-secret", `{"exit_code": 0}`},
			} {
				code, e := rawRequest(t, env, r.method, r.path, r.token, r.body)
				if code != 404 && code != 400 && code != 405 {
					t.Errorf("%s: %s %s: %d %+v", when, r.method, r.path, code, e)
				}
			}
		}
		l := must[JobList](t)(env.admin.Jobs(ctx, "", ""))
		if len(l.Jobs) != 3 {
			t.Fatalf("%s: %d jobs listed, want the 3 kept", when, len(l.Jobs))
		}
	}
	probe("after the loss")
	v := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(10)}))
	if v.ID != 21 {
		t.Fatalf("the first job after the loss got id %d, want 21", v.ID)
	}
	env.restart()
	alice = NewClient(env.srv.URL, alice.Token)
	if v2 := must[JobView](t)(alice.Job(ctx, 21)); v2.ID != 21 || v2.Submit != v.Submit {
		t.Fatalf("after a restart, job 21 is %+v", v2)
	}
	if v3 := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(10)})); v3.ID != 22 {
		t.Fatalf("after a restart the next id is %d, want 22", v3.ID)
	}
}
