package audit

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// deadlineSchedule: 4 processors, no kill; job 0 overruns its estimate
// (runs [0, 30) with estimate 20), job 1 waits through that overrun and
// misses its deadline (excused), job 2 arrives after the overrun and misses
// (a violation), job 3 overruns and misses itself (excused), job 4 is
// rejected, job 5 meets its deadline exactly.
func deadlineSchedule() []job.Outcome {
	o := []job.Outcome{
		mk(0, 0, 0, 4, 30),
		mk(1, 5, 30, 4, 10),
		mk(2, 35, 40, 4, 10),
		mk(3, 50, 50, 4, 20),
		mk(4, 51, -1, 1, 5),
		mk(5, 60, 70, 4, 10),
	}
	o[0].Estimate = 20
	o[1].Deadline = 35 // planned [20,30), delayed by job 0's overrun
	o[2].Deadline = 45
	o[3].Estimate, o[3].Deadline = 10, 65
	o[4].Rejected, o[4].End, o[4].Reason = true, -1, "no feasible schedule"
	o[4].Deadline = 60
	o[5].Deadline = 80
	return o
}

func TestDeadlines(t *testing.T) {
	opt := Options{Procs: 4, KnownRuntime: true, Expect: 6, Deadlines: true}
	r := Audit(deadlineSchedule(), opt)
	if r.Counts[KindDeadline] != 1 || r.Total() != 1 {
		t.Fatalf("want exactly one deadline violation, got %s", r.String())
	}
	v := r.Violations[0]
	if v.JobID != 2 || v.Time != 40 || !strings.Contains(v.Msg, "late by 5 s") {
		t.Errorf("violation = %v", v)
	}
	if r.OverrunMisses != 2 || r.Rejected != 1 {
		t.Errorf("OverrunMisses = %d (want 2), Rejected = %d (want 1)", r.OverrunMisses, r.Rejected)
	}
	if !strings.Contains(r.String(), "2 deadline misses caused by runtimes past estimates") {
		t.Errorf("String() = %q", r.String())
	}
	// without the option, deadlines are not checked
	opt.Deadlines = false
	if r := Audit(deadlineSchedule(), opt); !r.OK() || r.OverrunMisses != 0 {
		t.Errorf("deadline check without Options.Deadlines: %s", r.String())
	}
}

func TestRejectedMustNotRun(t *testing.T) {
	o := deadlineSchedule()[4:5]
	o[0].ID = 0
	opt := Options{Procs: 4, Kill: true, KnownRuntime: true, FCFS: true, Expect: 1, Deadlines: true}
	if r := Audit(o, opt); !r.OK() {
		t.Fatalf("a rejected job alone: %s", r.String())
	}
	o[0].Start, o[0].End = 51, 56
	r := Audit(o, opt)
	if r.Counts[KindRejected] != 1 || r.Total() != 1 {
		t.Fatalf("a rejected job that ran: %s", r.String())
	}
}
