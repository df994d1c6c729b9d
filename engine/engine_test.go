package engine_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/engine"
	"github.com/backfill-hpc/backfill/engine/enginetest"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

func req(id, procs int, est int64) *job.Request {
	return &job.Request{ID: id, SWFID: int64(id) + 1, Procs: procs, Estimate: est, User: -1, Group: -1, Queue: -1, Partition: -1}
}

func mustNew(t *testing.T, s policy.Scheduler, cfg engine.Config) *engine.Engine {
	t.Helper()
	e, err := engine.New(s, cfg)
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func policyError(t *testing.T, err error, want string) {
	t.Helper()
	var pe *engine.PolicyError
	if !errors.As(err, &pe) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want a PolicyError containing %q", err, want)
	}
}

// TestStartBeyondCapacity: on 4 processors, two waiting jobs of 3; the
// greedy policy starts both; the first start is accepted (3 ≤ 4 free), the
// second refused (3 > 1 free), and the engine stays failed.
func TestStartBeyondCapacity(t *testing.T) {
	e := mustNew(t, &enginetest.Greedy{}, engine.Config{Procs: 4})
	a, b := req(0, 3, 10), req(1, 3, 10)
	for _, r := range []*job.Request{a, b} {
		if ad, err := e.Submit(0, r); err != nil || !ad.Admitted || ad.Bound != -1 {
			t.Fatalf("submit: %+v %v", ad, err)
		}
	}
	var started []int
	_, err := e.Pass(0, func(r *job.Request) { started = append(started, r.ID) })
	policyError(t, err, "started job 2 (3 processors) at 0 with only 1 free")
	if len(started) != 1 || started[0] != 0 {
		t.Fatalf("started %v, want [0]", started)
	}
	if _, err := e.Submit(1, req(2, 1, 10)); err != e.Err() {
		t.Fatalf("after a policy error, Submit = %v, want the sticky error", err)
	}
	if _, err := e.Pass(1, nil); err != e.Err() {
		t.Fatalf("after a policy error, Pass = %v", err)
	}
}

// TestStall: a policy that leaves jobs waiting on an idle machine without a
// wake-up fails; with nothing waiting, NoWake is fine.
func TestStall(t *testing.T) {
	e := mustNew(t, enginetest.Sleepy{}, engine.Config{Procs: 4})
	if _, err := e.Pass(0, nil); err != nil {
		t.Fatalf("empty machine: %v", err)
	}
	e.Submit(5, req(0, 1, 10))
	_, err := e.Pass(5, nil)
	policyError(t, err, "leaves 1 jobs waiting on an idle machine at 5")
}

// fixed starts the jobs listed for each instant and returns a fixed wake.
type fixed struct {
	enginetest.Sleepy
	starts map[int64][]*job.Request
	wake   int64
}

func (f *fixed) Tick(now int64, start func(*job.Request)) int64 {
	for _, r := range f.starts[now] {
		start(r)
	}
	return f.wake
}

func TestWakeInThePast(t *testing.T) {
	e := mustNew(t, &fixed{wake: 7}, engine.Config{Procs: 4})
	_, err := e.Pass(7, nil)
	policyError(t, err, "asked to be woken at 7, not after now (7)")
}

// TestStartRules: a start of a job the engine does not know (a copy of a
// submitted request), of a running job, and of a resource beyond its free
// units are refused; starts within capacity are reported in order.
func TestStartRules(t *testing.T) {
	a, b := req(0, 2, 10), req(1, 2, 10)
	copyOfA := *a
	cases := []struct {
		name   string
		starts []*job.Request
		want   string
	}{
		{"unknown", []*job.Request{&copyOfA}, "started an unknown job"},
		{"twice", []*job.Request{a, a}, "started job 1 at 0, which is not waiting"},
	}
	for _, c := range cases {
		e := mustNew(t, &fixed{starts: map[int64][]*job.Request{0: c.starts}, wake: policy.NoWake}, engine.Config{Procs: 4})
		e.Submit(0, a)
		e.Submit(0, b)
		_, err := e.Pass(0, nil)
		policyError(t, err, c.want)
	}

	// two resources: 4 processors, 10 units of memory
	x := req(0, 1, 10)
	x.Res = []int{6}
	y := req(1, 1, 10)
	y.Res = []int{5}
	e := mustNew(t, &fixed{starts: map[int64][]*job.Request{0: {x, y}}, wake: policy.NoWake}, engine.Config{Procs: 4, Res: []int{10}})
	e.Submit(0, x)
	e.Submit(0, y)
	_, err := e.Pass(0, nil)
	policyError(t, err, "started job 2 (5 units of resource 1) at 0 with only 4 free")

	// within capacity: reported in order, counts follow
	e = mustNew(t, &fixed{starts: map[int64][]*job.Request{0: {b, a}}, wake: 20}, engine.Config{Procs: 4})
	e.Submit(0, a)
	e.Submit(0, b)
	var got []int
	wake, err := e.Pass(0, func(r *job.Request) { got = append(got, r.ID) })
	if err != nil || wake != 20 || len(got) != 2 || got[0] != 1 || got[1] != 0 {
		t.Fatalf("wake %d err %v started %v", wake, err, got)
	}
	if e.Waiting() != 0 || e.Running() != 2 || e.Busy() != 4 {
		t.Fatalf("waiting %d running %d busy %d", e.Waiting(), e.Running(), e.Busy())
	}
	if _, err := e.End(10, a); err != nil || e.Busy() != 2 {
		t.Fatalf("end: %v, busy %d", err, e.Busy())
	}
	if _, err := e.End(10, a); err == nil {
		t.Fatal("ending a job twice succeeded")
	}
	if err := e.Cancel(10, b); err == nil {
		t.Fatal("cancelling a running job succeeded (a running job ends)")
	}
}

// TestDriverErrors: the driver's mistakes are errors, not policy errors,
// and leave the engine usable.
func TestDriverErrors(t *testing.T) {
	e := mustNew(t, &fixed{wake: policy.NoWake}, engine.Config{Procs: 4})
	if _, err := e.Submit(0, req(1, 1, 10)); err == nil {
		t.Fatal("ID 1 before ID 0 accepted")
	}
	if _, err := e.Submit(0, req(0, 5, 10)); err == nil {
		t.Fatal("5 processors on a machine of 4 accepted")
	}
	if _, err := e.Submit(0, req(0, 1, 0)); err == nil {
		t.Fatal("estimate 0 accepted")
	}
	r := req(0, 1, 10)
	r.Res = []int{1}
	if _, err := e.Submit(0, r); err == nil {
		t.Fatal("a resource on a machine of processors only accepted")
	}
	if _, err := e.Submit(10, req(0, 1, 10)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.Submit(9, req(1, 1, 10)); err == nil {
		t.Fatal("time going backwards accepted")
	}
	if e.Err() != nil {
		t.Fatalf("driver errors made the engine fail: %v", e.Err())
	}
}

// capabilities is a policy with every optional capability, recording the
// order of calls.
type capabilities struct {
	fixed
	calls []string
}

func (c *capabilities) Insert(now int64, j *job.Request) { c.calls = append(c.calls, "insert") }
func (c *capabilities) Remove(now int64, j *job.Request) { c.calls = append(c.calls, "remove") }
func (c *capabilities) Admitted(j *job.Request) (bool, string) {
	c.calls = append(c.calls, "admitted")
	return j.ID != 1, "odd"
}
func (c *capabilities) Guarantee(j *job.Request) int64 {
	c.calls = append(c.calls, "guarantee")
	return 100 + int64(j.ID)
}
func (c *capabilities) Prediction(j *job.Request) (int64, int, bool) {
	c.calls = append(c.calls, "prediction")
	return 7, 2, true
}
func (c *capabilities) Extend(now int64, j *job.Request) int64 {
	c.calls = append(c.calls, "extend")
	return 30
}

// TestCapabilities: Admitted right after Insert, Guarantee only for an
// admitted job and only with Config.Guarantees, Prediction before Remove,
// Extend only with Config.Extend.
func TestCapabilities(t *testing.T) {
	a, b := req(0, 1, 10), req(1, 1, 10)
	c := &capabilities{fixed: fixed{starts: map[int64][]*job.Request{0: {a}}, wake: policy.NoWake}}
	e := mustNew(t, c, engine.Config{Procs: 4, Guarantees: true, Extend: true})
	if ad, _ := e.Submit(0, a); !ad.Admitted || ad.Bound != 100 {
		t.Fatalf("a: %+v", ad)
	}
	if ad, _ := e.Submit(0, b); ad.Admitted || ad.Reason != "odd" || ad.Bound != -1 {
		t.Fatalf("b: %+v", ad)
	}
	if e.Waiting() != 1 {
		t.Fatalf("waiting %d, want 1 (b was rejected)", e.Waiting())
	}
	if _, err := e.Pass(0, nil); err != nil {
		t.Fatal(err)
	}
	if x, err := e.Extend(10, a); err != nil || x != 30 {
		t.Fatalf("extend %d %v", x, err)
	}
	p, err := e.End(40, a)
	if err != nil || p != (engine.Prediction{First: 7, Corrections: 2, OK: true}) {
		t.Fatalf("end: %+v %v", p, err)
	}
	want := "insert admitted guarantee insert admitted extend prediction remove"
	if got := strings.Join(c.calls, " "); got != want {
		t.Fatalf("calls %q, want %q", got, want)
	}

	// without Guarantees and Extend
	c = &capabilities{fixed: fixed{starts: map[int64][]*job.Request{0: {a}}, wake: policy.NoWake}}
	e = mustNew(t, c, engine.Config{Procs: 4})
	if ad, _ := e.Submit(0, a); ad.Bound != -1 {
		t.Fatalf("bound %d without Guarantees", ad.Bound)
	}
	e.Pass(0, nil)
	if x, _ := e.Extend(10, a); x != 0 || e.Extends() {
		t.Fatalf("extension %d without Extend", x)
	}
}
