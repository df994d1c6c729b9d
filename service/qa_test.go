package service

import (
	"context"
	"testing"
)

// TestJobIDsCanonical: a job id in a path is a canonical decimal (1, 2,
// …); "01", "+1", "1e0", " 1", "0x1", "-0" name no job, even though job 1
// exists (strconv.ParseInt accepts "+1" and "01").
func TestJobIDsCanonical(t *testing.T) {
	env := newEnv(t, "conservative", 8)
	ctx := context.Background()
	alice := env.user("alice")
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(60)}))
	tok := alice.Token
	if code, _ := rawRequest(t, env, "GET", "/v1/jobs/1", tok, ""); code != 200 {
		t.Fatalf("GET /v1/jobs/1: %d", code)
	}
	for _, id := range []string{"01", "+1", "%2B1", "1e0", "%201", "0x1", "-0", "0", "00001", "1.0", "99999999999999999999"} {
		for _, m := range []string{"GET", "DELETE"} {
			code, e := rawRequest(t, env, m, "/v1/jobs/"+id, tok, "")
			if code != 400 && code != 404 {
				t.Errorf("%s /v1/jobs/%s: %d (%s), want 400 or 404", m, id, code, e.Error)
			}
		}
		code, e := rawRequest(t, env, "POST", "/v1/jobs/"+id+"/end", "admin-secret", "{}")
		if code != 400 && code != 404 {
			t.Errorf("POST /v1/jobs/%s/end: %d (%s), want 400 or 404", id, code, e.Error)
		}
	}
	// the job is still waiting: no malformed id cancelled it
	if j := must[JobView](t)(alice.Job(ctx, 1)); j.State != Waiting {
		t.Fatalf("job 1 is %s", j.State)
	}
}

// TestUnknownQueryParameters: a query parameter an endpoint does not take
// is a 400 naming it, never silently ignored (a client that sends
// ?since= believes it filters).
func TestUnknownQueryParameters(t *testing.T) {
	env := newEnv(t, "conservative", 8)
	ctx := context.Background()
	alice := env.user("alice")
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(60)}))
	cases := []struct {
		method, path, token, field string
	}{
		{"GET", "/v1/jobs?since=", alice.Token, "since"},
		{"GET", "/v1/jobs?since=5", alice.Token, "since"},
		{"GET", "/v1/jobs?state=waiting&State=running", alice.Token, "State"},
		{"GET", "/v1/jobs?state=waiting&state=running", alice.Token, "state"}, // given twice
		{"GET", "/v1/jobs/1?verbose=1", alice.Token, "verbose"},
		{"DELETE", "/v1/jobs/1?force=1", alice.Token, "force"},
		{"GET", "/v1/schedule?from=0", alice.Token, "from"},
		{"GET", "/v1/decisions?after=0&timeout=5", "admin-secret", "timeout"},
		{"GET", "/v1/users?all=1", "admin-secret", "all"},
		{"DELETE", "/v1/users/alice?job=cancel", "admin-secret", "job"},
	}
	for _, c := range cases {
		code, e := rawRequest(t, env, c.method, c.path, c.token, "")
		if code != 400 || e.Field != c.field {
			t.Errorf("%s %s: %d %+v, want 400 naming %q", c.method, c.path, code, e, c.field)
		}
	}
	// the known ones still work
	for _, p := range []string{"/v1/jobs?state=waiting&limit=5&user=alice", "/v1/jobs/1", "/v1/schedule"} {
		if code, e := rawRequest(t, env, "GET", p, alice.Token, ""); code != 200 {
			t.Errorf("GET %s: %d %+v", p, code, e)
		}
	}
	if j := must[JobView](t)(alice.Job(ctx, 1)); j.State != Waiting {
		t.Fatalf("job 1 is %s: a refused request changed it", j.State)
	}
}
