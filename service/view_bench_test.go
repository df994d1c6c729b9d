package service

import (
	"context"
	"fmt"
	"net/http/httptest"
	"testing"
)

// BenchmarkReadUnderHeldWrite measures GET /v1/jobs/{id} (a waiting job,
// with its reserved start) and GET /v1/health on conservative with
// 10,000 jobs waiting, with the engine free ("free") and while a write
// holds it for the whole run ("held"): reads are served from the
// published view, so the two must be alike (before the view, a read
// waited for the write).
func BenchmarkReadUnderHeldWrite(b *testing.B) {
	const queue = 10000
	dir := b.TempDir()
	svc, err := Open(Config{Policy: "conservative", Procs: 128, StateDir: dir, Sync: "normal", AdminToken: "admin-secret", Clock: NewManualClock(0)})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	err = svc.do(func(e *Engine) error {
		if _, err := e.Submit(0, SubmitInput{User: "admin", UID: 1, Procs: 128, Estimate: 1 << 40}); err != nil {
			return err
		}
		if err := e.Flush(); err != nil {
			return err
		}
		for i := 0; i < queue; i++ {
			if _, err := e.Submit(1, SubmitInput{User: "admin", UID: 1, Procs: 1 + i%64, Estimate: int64(100 + i%1000)}); err != nil {
				return err
			}
		}
		return e.Flush()
	})
	if err != nil {
		b.Fatal(err)
	}
	srv := httptest.NewServer(svc.Handler())
	defer srv.Close()
	c := NewClient(srv.URL, "admin-secret")
	ctx := context.Background()
	for _, held := range []bool{false, true} {
		release := make(chan struct{})
		done := make(chan struct{})
		if held {
			entered := make(chan struct{})
			go func() {
				svc.do(func(*Engine) error { close(entered); <-release; return nil })
				close(done)
			}()
			<-entered
		}
		name := map[bool]string{false: "free", true: "held"}[held]
		b.Run(fmt.Sprintf("job/%s", name), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				v, err := c.Job(ctx, int64(2+i%queue))
				if err != nil || v.ReservedStart == nil {
					b.Fatal(v, err)
				}
			}
		})
		b.Run(fmt.Sprintf("health/%s", name), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				if err := c.Do(ctx, "GET", "/v1/health", nil, nil); err != nil {
					b.Fatal(err)
				}
			}
		})
		if held {
			close(release)
			<-done
		}
	}
}

// BenchmarkPublish measures the read view's cost on the write path:
// publishing after one submission at Q = 10,000 waiting (conservative,
// EASY; slack at 500): the copied chunk and job, and the pass over the
// policy's reservations.
func BenchmarkPublish(b *testing.B) {
	for _, spec := range []string{"conservative", "easy", "slack:order=sjf"} {
		b.Run(spec, func(b *testing.B) { benchPublish(b, spec) })
	}
}

func benchPublish(b *testing.B, spec string) {
	queue := 10000
	if spec != "conservative" && spec != "easy" {
		queue = 500 // slack's own insertion is slow at large queues
	}
	svc, err := Open(Config{Policy: spec, Procs: 128, StateDir: b.TempDir(), Sync: "normal", AdminToken: "admin-secret", Clock: NewManualClock(0)})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	err = svc.do(func(e *Engine) error {
		if _, err := e.Submit(0, SubmitInput{User: "admin", UID: 1, Procs: 128, Estimate: 1 << 40}); err != nil {
			return err
		}
		if err := e.Flush(); err != nil {
			return err
		}
		for i := 0; i < queue; i++ {
			if _, err := e.Submit(1, SubmitInput{User: "admin", UID: 1, Procs: 1 + i%64, Estimate: int64(100 + i%1000)}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	svc.mu.Lock()
	defer svc.mu.Unlock()
	e := svc.eng
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		e.touch(e.jobs.Get(1 + i%queue)) // as a submission touches its job
		e.planFresh = true
		svc.views.lastCur = -1 // changed
		svc.publishLocked(false)
	}
}
