package audit

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// mk builds an outcome that is valid under every option set used below
// (runtime ≤ estimate, End−Start == Runtime, no bound).
func mk(id int, submit, start int64, procs int, runtime int64) job.Outcome {
	return job.Outcome{
		Job: job.Job{
			Request: job.Request{ID: id, SWFID: int64(id + 100), Submit: submit, Procs: procs, Estimate: runtime + 10},
			Runtime: runtime,
		},
		Start: start,
		End:   start + runtime,
		Bound: -1,
	}
}

// valid is a 4-processor FCFS schedule that touches the edge cases:
// back-to-back jobs at full capacity (end before start at t=10), a
// zero-length job at a full instant, a killed job, and a kept bound.
func valid() []job.Outcome {
	o := []job.Outcome{
		mk(0, 0, 0, 4, 10),  // [0,10) 4 procs
		mk(1, 1, 10, 2, 5),  // [10,15)
		mk(2, 2, 10, 2, 20), // [10,30)
		mk(3, 3, 15, 4, 0),  // zero length at a full instant: occupies nothing
		mk(4, 4, 15, 2, 50), // [15,65), killed at its estimate 40
		mk(5, 5, 30, 2, 1),  // [30,31)
	}
	o[4].Estimate = 40
	o[4].End = o[4].Start + 40
	o[4].Killed = true
	o[5].Bound = 30
	return o
}

var killOpt = Options{Procs: 4, Kill: true, KnownRuntime: true, FCFS: true, Expect: 6}

func TestValidSchedule(t *testing.T) {
	r := Audit(valid(), killOpt)
	if !r.OK() || len(r.Violations) != 0 {
		var b bytes.Buffer
		r.Write(&b)
		t.Fatalf("valid schedule reported violations:\n%s", b.String())
	}
	if got := r.String(); got != "no violations" {
		t.Errorf("String() = %q", got)
	}
}

// TestEachRule breaks each rule exactly once and expects exactly one
// violation, of the right kind, job and time.
func TestEachRule(t *testing.T) {
	noKill := Options{Procs: 4, KnownRuntime: true, FCFS: true, Expect: 6}
	foreign := Options{Procs: 4, Kill: true, Expect: 6}
	tests := []struct {
		name   string
		opt    Options
		mutate func(o []job.Outcome) []job.Outcome
		kind   string
		jobID  int
		time   int64
		msg    string // substring of Msg
	}{
		{"capacity", killOpt, func(o []job.Outcome) []job.Outcome {
			// Job 5 moves to t=29 while jobs 2 and 4 hold 4 procs: 6 busy.
			// (It still starts after job 4 in FCFS order.)
			o[5].Start, o[5].End, o[5].Bound = 29, 30, -1
			return o
		}, KindCapacity, 5, 29, "6 processors busy > 4; starting: 5"},
		{"procs too many", killOpt, func(o []job.Outcome) []job.Outcome {
			// Zero length, so it occupies nothing and the capacity check
			// stays quiet (see TestProcsTooManyAlsoOverloads).
			o[3].Procs = 5
			return o
		}, KindProcs, 3, 15, "requests 5 processors"},
		{"procs zero", killOpt, func(o []job.Outcome) []job.Outcome {
			o[3].Procs = 0
			return o
		}, KindProcs, 3, 15, "requests 0 processors"},
		{"early start", Options{Procs: 4, Expect: 6}, func(o []job.Outcome) []job.Outcome {
			o[5].Submit = 31 // starts at 30
			return o
		}, KindEarlyStart, 5, 30, "before its submission at 31"},
		{"negative run", Options{Procs: 4, Expect: 6}, func(o []job.Outcome) []job.Outcome {
			o[5].End = 29
			return o
		}, KindNegativeRun, 5, 30, "ends at 29"},
		{"run length kill", killOpt, func(o []job.Outcome) []job.Outcome {
			o[5].End++ // 2 s instead of 1
			return o
		}, KindRunLength, 5, 30, "ran 2 s, want min(runtime 1, estimate 11) = 1"},
		{"run length killed too late", killOpt, func(o []job.Outcome) []job.Outcome {
			o[4].End = o[4].Start + 50 // ran its full runtime past the estimate
			return o
		}, KindRunLength, 4, 15, "ran 50 s, want min(runtime 50, estimate 40) = 40"},
		{"killed flag kill", killOpt, func(o []job.Outcome) []job.Outcome {
			o[4].Killed = false
			return o
		}, KindKilledFlag, 4, 15, "killed=false, want true"},
		{"run length no kill", noKill, func(o []job.Outcome) []job.Outcome {
			// Without kill, job 4 must run its full 50 s.
			o[4].Killed = false
			return o
		}, KindRunLength, 4, 15, "ran 40 s, want runtime 50"},
		{"killed flag no kill", noKill, func(o []job.Outcome) []job.Outcome {
			o[4].End = o[4].Start + 50 // but still flagged killed
			return o
		}, KindKilledFlag, 4, 15, "never killed"},
		{"foreign beyond estimate", foreign, func(o []job.Outcome) []job.Outcome {
			o[5].End = o[5].Start + 12 // estimate 11
			return o
		}, KindRunLength, 5, 30, "ran 12 s, beyond its estimate 11"},
		{"bound", killOpt, func(o []job.Outcome) []job.Outcome {
			o[5].Bound = 29
			return o
		}, KindBound, 5, 30, "late by 1 s"},
		{"fcfs", killOpt, func(o []job.Outcome) []job.Outcome {
			// Job 3 (zero length) jumps ahead of jobs 1 and 2 (start 10).
			o[3].Start, o[3].End = 9, 9
			return o
		}, KindFCFS, 3, 9, "before job 2"},
		{"duplicate id", Options{Procs: 4, Expect: -1}, func(o []job.Outcome) []job.Outcome {
			o[5].ID = 4
			return o
		}, KindDuplicateID, 4, 4, "ID 4 appears in 2 outcomes"},
		{"unknown id", killOpt, func(o []job.Outcome) []job.Outcome {
			return append(o, mk(6, 40, 40, 1, 1))
		}, KindUnknownID, 6, 40, "outside 0..5"},
		{"missing", killOpt, func(o []job.Outcome) []job.Outcome {
			return append(o[:2:2], o[3:]...)
		}, KindMissing, 2, 0, "no outcome for job 2 of 6"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			vs := Check(tc.mutate(valid()), tc.opt)
			if len(vs) != 1 {
				t.Fatalf("got %d violations, want 1: %v", len(vs), vs)
			}
			v := vs[0]
			if v.Kind != tc.kind || v.JobID != tc.jobID || v.Time != tc.time || !strings.Contains(v.Msg, tc.msg) {
				t.Errorf("got %v\nwant kind %s job %d t=%d msg containing %q", v, tc.kind, tc.jobID, tc.time, tc.msg)
			}
		})
	}
}

// TestBaseClean makes sure the base schedule is clean under every option
// set TestEachRule uses with it unchanged (the no-kill cases change it).
func TestBaseClean(t *testing.T) {
	for _, opt := range []Options{
		killOpt,
		{Procs: 4, Kill: true, Expect: 6},
		{Procs: 4, Expect: 6},
		{Procs: 4, Expect: -1},
		{Procs: 4, Kill: true, KnownRuntime: true, FCFS: true, Expect: -1, Limit: -1},
	} {
		if vs := Check(valid(), opt); len(vs) != 0 {
			t.Errorf("%+v: %v", opt, vs)
		}
	}
}

func TestProcsTooManyAlsoOverloads(t *testing.T) {
	o := valid()
	o[5].Procs = 5 // [30,31) alone on the machine, but 5 > 4
	r := Audit(o, killOpt)
	if r.Counts[KindProcs] != 1 || r.Counts[KindCapacity] != 1 || r.Total() != 2 {
		t.Errorf("counts = %v, want procs=1 capacity=1", r.Counts)
	}
}

func TestEqualTimesEndBeforeStart(t *testing.T) {
	// Two 4-proc jobs back to back on 4 procs; the first ends exactly when
	// the second starts. Also, a zero-length 4-proc job at the same instant.
	o := []job.Outcome{mk(0, 0, 0, 4, 10), mk(1, 0, 10, 4, 10), mk(2, 0, 10, 4, 0)}
	if vs := Check(o, Options{Procs: 4, Expect: 3}); len(vs) != 0 {
		t.Errorf("unexpected violations: %v", vs)
	}
}

func TestOrderAndCapping(t *testing.T) {
	// 30 one-proc jobs on a one-proc machine start at 1..30 while the
	// first runs for 100 s: every start from t=2 on overloads.
	var o []job.Outcome
	for i := range 30 {
		x := mk(i, 0, int64(i)+1, 1, 100)
		x.Bound = int64(i) // every job misses its bound by 1 s
		o = append(o, x)
	}
	// Reverse the input: the output order must not depend on it.
	for i, j := 0, len(o)-1; i < j; i, j = i+1, j-1 {
		o[i], o[j] = o[j], o[i]
	}
	r := Audit(o, Options{Procs: 1, Expect: 30, Limit: 5})
	if r.Counts[KindCapacity] != 29 || r.Counts[KindBound] != 30 {
		t.Fatalf("counts = %v, want capacity=29 bound=30", r.Counts)
	}
	if len(r.Violations) != 10 {
		t.Fatalf("kept %d violations, want 10 (5 per kind)", len(r.Violations))
	}
	var got []string
	for _, v := range r.Violations {
		got = append(got, fmt.Sprintf("%d %s %d", v.Time, v.Kind, v.JobID))
	}
	want := []string{
		"1 bound 0",
		"2 bound 1", "2 capacity 1",
		"3 bound 2", "3 capacity 2",
		"4 bound 3", "4 capacity 3",
		"5 bound 4", "5 capacity 4",
		"6 capacity 5",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("order:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if s := r.String(); s != "59 violations: bound=30 capacity=29" {
		t.Errorf("String() = %q", s)
	}
	var b bytes.Buffer
	if err := r.Write(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "... and 25 more bound violations not shown") ||
		!strings.Contains(b.String(), "... and 24 more capacity violations not shown") {
		t.Errorf("Write output:\n%s", b.String())
	}
	if s := r.Violations[2].String(); s != "t=2 capacity job 1 (SWF 101): 2 processors busy > 1; starting: 1" {
		t.Errorf("Violation.String() = %q", s)
	}
}

func TestMissingCapped(t *testing.T) {
	o := []job.Outcome{mk(3, 0, 0, 1, 1)}
	r := Audit(o, Options{Procs: 1, Expect: 5000, Limit: 2})
	if r.Counts[KindMissing] != 4999 {
		t.Errorf("missing count = %d, want 4999", r.Counts[KindMissing])
	}
	if len(r.Violations) != 2 || r.Violations[0].JobID != 0 || r.Violations[1].JobID != 1 {
		t.Errorf("kept = %v, want missing 0 and 1", r.Violations)
	}
	if s := r.Violations[0].String(); s != "t=0 missing job 0: no outcome for job 0 of 5000" {
		t.Errorf("String() = %q", s)
	}
}

func TestFCFSOneLateJob(t *testing.T) {
	// Job 1 starts late (t=100); jobs 2 and 3, which arrived after it,
	// start before it: both are reported against job 1.
	o := []job.Outcome{mk(0, 0, 0, 1, 1), mk(1, 1, 100, 1, 1), mk(2, 2, 5, 1, 1), mk(3, 3, 6, 1, 1)}
	vs := Check(o, Options{Procs: 4, FCFS: true, Expect: 4})
	if len(vs) != 2 || vs[0].JobID != 2 || vs[1].JobID != 3 || !strings.Contains(vs[1].Msg, "before job 1") {
		t.Errorf("got %v", vs)
	}
}

func BenchmarkAudit(b *testing.B) {
	var o []job.Outcome
	for i := range 100000 {
		o = append(o, mk(i, int64(i), int64(i), 1, 50))
	}
	opt := Options{Procs: 64, Kill: true, KnownRuntime: true, FCFS: true, Expect: len(o)}
	for b.Loop() {
		if vs := Check(o, opt); len(vs) != 0 {
			b.Fatal(vs[0])
		}
	}
}

// An extension granted by the policy (Talby & Feitelson §4.7) moves the
// kill limit: a job that ran past its estimate but within the extension is
// valid, and one that ran past both is not.
func TestExtensionMovesTheLimit(t *testing.T) {
	ok := job.Outcome{Job: job.Job{Request: job.Request{ID: 0, Procs: 1, Estimate: 100}, Runtime: 105}, Start: 0, End: 105, Extension: 10, Bound: -1}
	if v := Check([]job.Outcome{ok}, Options{Procs: 1, Kill: true, KnownRuntime: true, Expect: 1}); len(v) != 0 {
		t.Fatalf("extended run reported: %v", v)
	}
	bad := ok
	bad.Runtime, bad.End = 200, 200
	if v := Check([]job.Outcome{bad}, Options{Procs: 1, Kill: true, KnownRuntime: true, Expect: 1}); len(v) == 0 {
		t.Fatal("run past estimate + extension not reported")
	}
}
