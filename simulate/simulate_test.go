package simulate_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/simulate"
)

func mk(id int, submit int64, procs int, est, run int64) job.Job {
	return job.Job{Request: job.Request{ID: id, SWFID: int64(id) + 1, Submit: submit, Procs: procs, Estimate: est,
		User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: run}
}

// backfillable: on 2 processors, job 1 (2 processors) waits for job 0
// until 100; job 2 (1 processor, 10 s) backfills at 2, before job 1
// although submitted after it.
func backfillable() []job.Job {
	return []job.Job{mk(0, 0, 1, 100, 100), mk(1, 1, 2, 10, 10), mk(2, 2, 1, 10, 10)}
}

func TestRunEASY(t *testing.T) {
	r, err := simulate.Run(backfillable(), "easy", simulate.Options{Procs: 2})
	if err != nil {
		t.Fatal(err)
	}
	o := r.Sim.Outcomes
	if r.Policy != "easy" || o[0].Start != 0 || o[1].Start != 100 || o[2].Start != 2 {
		t.Fatalf("%s: starts %d %d %d, want 0 100 2", r.Policy, o[0].Start, o[1].Start, o[2].Start)
	}
	// waits 0, 99, 0
	if r.Summary.All.MeanWait != 33 || r.Summary.All.Jobs != 3 {
		t.Fatalf("mean wait %v over %d jobs, want 33 over 3", r.Summary.All.MeanWait, r.Summary.All.Jobs)
	}
}

// fakeFCFS is EASY claiming to start jobs in arrival order
// (policy.ArrivalOrdered): its schedule breaks the FCFS order that the
// audit then checks.
type fakeFCFS struct{ policy.Scheduler }

func (fakeFCFS) Name() string               { return "fcfs" }
func (fakeFCFS) StartsInArrivalOrder() bool { return true }

func TestAuditChecksFCFSOrderForFCFS(t *testing.T) {
	easy, _ := policy.New("easy", 2)
	_, err := simulate.RunScheduler(backfillable(), fakeFCFS{easy}, simulate.Options{Procs: 2})
	if err == nil || !strings.Contains(err.Error(), "fails the audit") {
		t.Fatalf("err = %v", err)
	}
	easy, _ = policy.New("easy", 2)
	if _, err := simulate.RunScheduler(backfillable(), fakeFCFS{easy}, simulate.Options{Procs: 2, NoAudit: true}); err != nil {
		t.Fatalf("without the audit: %v", err)
	}
	if _, err := simulate.Run(backfillable(), "fcfs", simulate.Options{Procs: 2}); err != nil {
		t.Fatalf("the real fcfs: %v", err)
	}
	// in another queue order FCFS promises no arrival order, and the
	// audit does not check it: on P = 2, job 0 (2 processors, 100 s),
	// then job 1 (2, 50 s) and job 2 (1, 10 s); sjf starts job 2 at 100,
	// before job 1 (at 110), which arrived earlier
	jobs := []job.Job{mk(0, 0, 2, 100, 100), mk(1, 1, 2, 50, 50), mk(2, 2, 1, 10, 10)}
	r, err := simulate.Run(jobs, "fcfs:order=sjf", simulate.Options{Procs: 2})
	if err != nil {
		t.Fatalf("fcfs:order=sjf: %v", err)
	}
	if o := r.Sim.Outcomes; o[1].Start != 110 || o[2].Start != 100 {
		t.Fatalf("fcfs:order=sjf: starts %d %d, want 110 100", o[1].Start, o[2].Start)
	}
}

// TestResolveAuto: conservative on 2 processors runs job 0 (2 processors)
// at 0 and job 1 at 10: mean wait (0 + 10)/2 = 5, so awt=auto becomes
// awt=5; specs without it are left alone, and without any, nothing runs.
func TestResolveAuto(t *testing.T) {
	jobs := []job.Job{mk(0, 0, 2, 10, 10), mk(1, 0, 1, 10, 10)}
	out, note, err := simulate.ResolveAuto(jobs, 2, []string{"easy", "slack:awt=auto:sf=2"}, false)
	if err != nil || out[0] != "easy" || out[1] != "slack:awt=5:sf=2" || !strings.Contains(note, "AWT = 5 s") {
		t.Fatalf("%q %q %v", out, note, err)
	}
	out, note, err = simulate.ResolveAuto(nil, 2, []string{"easy"}, false)
	if err != nil || note != "" || out[0] != "easy" {
		t.Fatalf("%q %q %v", out, note, err)
	}
}

// TestEASYResponses: responses 100, 109, 10 on the backfilling example.
func TestEASYResponses(t *testing.T) {
	r, err := simulate.EASYResponses(backfillable(), 2)
	if err != nil || len(r) != 3 || r[0] != 100 || r[1] != 109 || r[2] != 10 {
		t.Fatalf("%v %v", r, err)
	}
}

// The one audited run: build the policy, simulate, audit, summarize. Busy
// processor-seconds 100 + 2·10 + 10 = 130 over 2 processors × 110 s.
func ExampleRun() {
	jobs := backfillable()
	r, err := simulate.Run(jobs, "easy", simulate.Options{Procs: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: mean wait %.0f s, utilization %.3f\n", r.Policy, r.Summary.All.MeanWait, r.Summary.Utilization)
	// Output:
	// easy: mean wait 33 s, utilization 0.591
}
