package service

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/engine"
	"github.com/backfill-hpc/backfill/engine/enginetest"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

func init() {
	policy.Register(policy.Info{Name: "test-greedy", Doc: "tests only: starts every waiting job, ignoring capacity",
		New: func(int, policy.Params) (policy.Scheduler, error) { return &enginetest.Greedy{}, nil }})
}

// TestRefusesStartBeyondCapacity: the policy that sim.Run refuses
// (sim.TestRefusesStartBeyondCapacity: two jobs of 3 processors started at
// once on a machine of 4) is refused by the service's engine too, with the
// same error; nothing of the failed pass is logged or executed, and the
// engine refuses every later request.
func TestRefusesStartBeyondCapacity(t *testing.T) {
	e, err := NewEngine(&enginetest.Greedy{}, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, err := e.Submit(0, SubmitInput{User: "u", Procs: 3, Estimate: 100}); err != nil {
			t.Fatal(err)
		}
	}
	e.Take()
	err = e.Advance(1)
	var pe *engine.PolicyError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), "started job 2 (3 processors) at 0 with only 1 free") {
		t.Fatalf("err = %v", err)
	}
	if recs, effs := e.Take(); len(recs) != 0 || len(effs) != 0 {
		t.Fatalf("the failed pass left records %v and effects %v", recs, effs)
	}
	if _, err := e.Submit(2, SubmitInput{User: "u", Procs: 1, Estimate: 1}); !errors.As(err, &pe) {
		t.Fatalf("a submission after the failure: %v", err)
	}
	if e.Failed() == nil {
		t.Fatal("Failed() is nil")
	}
}

// TestServiceRefusesStartBeyondCapacity: the same through the HTTP API: the
// pass fails and the request that ran it gets an error.
func TestServiceRefusesStartBeyondCapacity(t *testing.T) {
	env := newEnv(t, "test-greedy", 4)
	ctx := context.Background()
	for range 2 {
		must[JobView](t)(env.admin.Submit(ctx, SubmitRequest{Procs: ip(3), Estimate: i64(100)}))
	}
	_, err := env.admin.SetClock(ctx, 0, true)
	if err == nil || !strings.Contains(err.Error(), "with only 1 free") {
		t.Fatalf("pass: err = %v", err)
	}
	if _, err := env.admin.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(10)}); err == nil {
		t.Fatal("a submission after the policy failed was accepted")
	}
}

// recorder is a policy that records the calls it gets.
type recorder struct {
	policy.Scheduler
	calls []string
}

func (r *recorder) Insert(now int64, j *job.Request) {
	r.calls = append(r.calls, fmt.Sprintf("insert %d at %d", j.SWFID, now))
	r.Scheduler.Insert(now, j)
}

func (r *recorder) Remove(now int64, j *job.Request) {
	r.calls = append(r.calls, fmt.Sprintf("remove %d at %d", j.SWFID, now))
	r.Scheduler.Remove(now, j)
}

// TestKillBeforeSubmission: ends come before submissions at an instant, as
// in the simulator, also when the end is the kill at a job's limit. On 4
// processors under conservative backfilling, job 1 (estimate 10) starts at
// 0 and is killed at its limit 10; job 2, submitted at 10, is inserted
// after job 1 is removed. (The conformance suite, policy/policytest,
// found the service inserting first: the guarantees then differed from
// the simulator's.)
func TestKillBeforeSubmission(t *testing.T) {
	sched, err := policy.New("conservative", 4)
	if err != nil {
		t.Fatal(err)
	}
	rec := &recorder{Scheduler: sched}
	e, err := NewEngine(rec, 4, 0)
	if err != nil {
		t.Fatal(err)
	}
	a, err := e.Submit(0, SubmitInput{User: "u", Procs: 4, Estimate: 10})
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Flush(); err != nil || a.State != Running {
		t.Fatalf("job 1: %v, %s", err, a.State)
	}
	if _, err := e.Submit(10, SubmitInput{User: "u", Procs: 4, Estimate: 5}); err != nil {
		t.Fatal(err)
	}
	want := "insert 1 at 0, remove 1 at 10, insert 2 at 10"
	if got := strings.Join(rec.calls, ", "); got != want || a.State != Timeout || a.End != 10 {
		t.Fatalf("calls %q, want %q; job 1 %s at %d", got, want, a.State, a.End)
	}
}
