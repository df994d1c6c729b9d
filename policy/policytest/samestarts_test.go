package policytest_test

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// TestSameStarts: worked by hand on 4 processors. Job 0 (2 procs, 100 s)
// and job 1 (4 procs, 10 s) arrive at 0, job 2 (2 procs, 50 s) at 1. FCFS
// starts job 0 at 0, job 1 at 100 (it needs the whole machine), job 2 at
// 110; EASY backfills job 2 at 1 (it ends at 51, before job 1's shadow
// time 100). So the two differ first at job 2, and a policy agrees with
// itself.
func TestSameStarts(t *testing.T) {
	jobs := []job.Job{
		{Request: job.Request{ID: 0, Submit: 0, Procs: 2, Estimate: 100}, Runtime: 100},
		{Request: job.Request{ID: 1, Submit: 0, Procs: 4, Estimate: 10}, Runtime: 10},
		{Request: job.Request{ID: 2, Submit: 1, Procs: 2, Estimate: 50}, Runtime: 50},
	}
	opt := sim.Options{Procs: 4}
	build := func(spec string) policy.Scheduler {
		s, err := policy.New(spec, 4)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	if err := policytest.SameStarts(jobs, opt, build("easy"), &policytest.LiteralEASY{Caps: []int{4}}); err != nil {
		t.Errorf("easy against the literal EASY: %v", err)
	}
	err := policytest.SameStarts(jobs, opt, build("fcfs"), build("easy"))
	if err == nil || !strings.Contains(err.Error(), "job 2 ") || !strings.Contains(err.Error(), "starts at 110 (fcfs) vs 1 (easy)") {
		t.Errorf("fcfs against easy: %v, want job 2 starting at 110 against 1", err)
	}
}
