package service

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestBackpressure: with MaxInFlight requests held (here behind the
// engine lock), the next one is answered at once with 503 and
// Retry-After; uncounted routes still answer; once the held requests
// finish, requests are served again.
func TestBackpressure(t *testing.T) {
	env := &testEnv{t: t, dir: t.TempDir()}
	env.cfg = Config{Policy: "easy", Procs: 4, StateDir: env.dir, Sync: "normal", AdminToken: "admin-secret", MaxInFlight: 2}
	env.start(0)
	ctx := context.Background()
	alice := env.user("alice")
	env.svc.mu.Lock()
	held := make(chan error, 2)
	for i := 0; i < 2; i++ {
		// writes wait for the engine lock (reads would not: view.go)
		go func() { _, err := alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(10)}); held <- err }()
	}
	for env.svc.over.inflight.Load() < 2 {
		time.Sleep(time.Millisecond)
	}
	t0 := time.Now()
	req, _ := http.NewRequest("GET", env.srv.URL+"/v1/jobs", nil)
	req.Header.Set("Authorization", "Bearer "+alice.Token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 503 || resp.Header.Get("Retry-After") != "1" {
		t.Fatalf("beyond the limit: %d, Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	if d := time.Since(t0); d > 2*time.Second {
		t.Fatalf("the refusal took %v", d)
	}
	if _, err := alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(10)}); statusOf(err) != 503 || !strings.Contains(err.Error(), "overloaded") {
		t.Fatalf("submission beyond the limit: %v", err)
	}
	if r, err := http.Get(env.srv.URL + "/v1/openapi.json"); err != nil || r.StatusCode != 200 {
		t.Fatalf("the document is not served under load: %v", err)
	} else {
		r.Body.Close()
	}
	env.svc.mu.Unlock()
	for i := 0; i < 2; i++ {
		if err := <-held; err != nil {
			t.Fatal(err)
		}
	}
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(10)}))
	if body := get(t, env, "/metrics"); !strings.Contains(body, "backfill_overload_rejections_total 2") {
		t.Errorf("metrics lack the rejections")
	}
}
