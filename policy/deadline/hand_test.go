package deadline

import (
	"fmt"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

func newSpec(spec string) (policy.Scheduler, error) { return policy.New(spec, 8) }

// spec is a job of a hand-made case: size, estimate, absolute deadline.
type spec struct {
	n       int
	est, dl int64
}

// insertAll inserts the jobs one by one at time 0 (no pass in between)
// and returns the decisions.
func insertAll(s *Policy, js []spec) []bool {
	var out []bool
	for i, x := range js {
		r := &job.Request{ID: i, SWFID: int64(i + 1), Procs: x.n, Estimate: x.est, Deadline: x.dl}
		s.Insert(0, r)
		ok, _ := s.Admitted(r)
		out = append(out, ok)
	}
	return out
}

func mustNew(t testing.TB, kind string, procs int, prm Params) *Policy {
	t.Helper()
	prm.Kind = kind
	s, err := New(procs, prm)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// schedule renders the waiting jobs as "J<id>@<start>" in reservation
// order.
func schedule(s *Policy) string {
	var b []string
	for _, w := range s.book.Wait() {
		b = append(b, fmt.Sprintf("J%d@%d", w.J.ID, w.Start))
	}
	return strings.Join(b, " ")
}

// preload builds a state: running jobs (started at their given start) and
// waiting jobs held at their given reservations, as if admitted.
func preload(t testing.TB, s *Policy, running []*job.Request, starts []int64, waiting []*job.Request, at []int64) {
	t.Helper()
	for i, r := range running {
		if err := s.run.Start(starts[i], r); err != nil {
			t.Fatal(err)
		}
	}
	for i, r := range waiting {
		x := newJob(r, s.Deadline(r))
		x.Start = at[i]
		s.hold(x, x.Start)
		s.book.Insert(x)
		s.keyInsert(x)
	}
}

func decisions(t *testing.T, kind string, prm Params, P int, js []spec) string {
	return fmt.Sprint(insertAll(mustNew(t, kind, P, prm), js))
}

// One processor; R runs over [0, 10); A (deadline 100) is reserved at
// [10, 20) and B (deadline 35) at [20, 30), in that order. C arrives at 0
// with estimate 10 and deadline 30. The only feasible schedules put C and
// B before A: C [10,20), B [20,30), A [30,40). QoPS finds it at its first
// insertion point (all jobs re-sorted by deadline); MSB, which keeps A
// before B and only chooses C's position, cannot (C,A,B and A,C,B make B
// end at 40; A,B,C makes C end at 40); appending C at the end of the
// schedule (QoPS's last insertion point, what conservative backfilling
// would do) misses its deadline too.
func TestQoPSAdmitsByReordering(t *testing.T) {
	state := func(kind string) *Policy {
		s := mustNew(t, kind, 1, Defaults(kind))
		R := &job.Request{ID: 0, Procs: 1, Estimate: 10}
		A := &job.Request{ID: 1, Procs: 1, Estimate: 10, Deadline: 100}
		B := &job.Request{ID: 2, Procs: 1, Estimate: 10, Deadline: 35}
		preload(t, s, []*job.Request{R}, []int64{0}, []*job.Request{A, B}, []int64{10, 20})
		return s
	}
	C := &job.Request{ID: 3, Procs: 1, Estimate: 10, Deadline: 30}
	for _, c := range []struct {
		kind  string
		admit bool
		after string
	}{
		{"qops", true, "J3@10 J2@20 J1@30"},
		{"mrt", true, "J3@10 J2@20 J1@30"},
		{"msb", false, "J1@10 J2@20"},
	} {
		s := state(c.kind)
		s.Insert(0, C)
		ok, reason := s.Admitted(C)
		if ok != c.admit || schedule(s) != c.after {
			t.Errorf("%s: admitted %v (%q), schedule %s; want %v, %s", c.kind, ok, reason, schedule(s), c.admit, c.after)
		}
		if ok && s.Guarantee(C) != 20 {
			t.Errorf("%s: guarantee %d, want 20 (deadline 30 − estimate 10)", c.kind, s.Guarantee(C))
		}
		// the plan, as the live service shows it (policy.Planner)
		var plan []string
		s.Reservations(0, func(j *job.Request, start int64) { plan = append(plan, fmt.Sprintf("J%d@%d", j.ID, start)) })
		if p, planned := s.Planned(0, C); strings.Join(plan, " ") != c.after || planned != ok || (ok && p != 10) {
			t.Errorf("%s: reservations %v, Planned(C) = %d, %v", c.kind, plan, p, planned)
		}
		if !ok && (s.Guarantee(C) != -1 || !strings.Contains(reason, "no feasible schedule")) {
			t.Errorf("%s: rejected job: guarantee %d, reason %q", c.kind, s.Guarantee(C), reason)
		}
	}
	// the end of the schedule alone (what appending would give) is infeasible
	s := state("qops")
	if fit := s.run.Prof.EarliestFit(0, 10, 1); fit+10 <= 30 {
		t.Errorf("appending C would fit at %d", fit)
	}
}

// Two processors, all jobs at time 0: J0 (2 procs, 30 s, deadline 70),
// J1 (1, 40 s, 60), J2 (1, 20 s, 50) are admitted; then J3 (1, 20 s, 20).
// At QoPS's first insertion point J3 is placed first, then the others in
// EDF order J2 J1 J0: J3 and J2 at 0, J1 at [20,60) and J0 at [60,90): J0
// misses 70 at position 3.
// Repair 1 moves J0 up to position mid(0,3) = 1 (J2 and J1 go back into
// the list): J0 [20,50), J2 [0,20), then J1 at [50,90) misses 60. Repair
// 2 moves J1 up to position 1: J1 [0,40), J2 [20,40), J0 [40,70) — all
// deadlines met. The other insertion points (2 and 3) cannot place J3 by
// 20. So J3 is admitted with K ≥ 2 and rejected with K = 0 or 1.
func TestQoPSRepairsViolations(t *testing.T) {
	js := []spec{{2, 30, 70}, {1, 40, 60}, {1, 20, 50}, {1, 20, 20}}
	for _, c := range []struct {
		k     int
		want  string
		sched string
	}{
		{0, "[true true true false]", "J1@0 J2@0 J0@40"},
		{1, "[true true true false]", "J1@0 J2@0 J0@40"},
		{2, "[true true true true]", "J1@0 J3@0 J2@20 J0@40"},
		{5, "[true true true true]", "J1@0 J3@0 J2@20 J0@40"},
	} {
		prm := Defaults("qops")
		prm.K = c.k
		s := mustNew(t, "qops", 2, prm)
		got := fmt.Sprint(insertAll(s, js))
		if got != c.want || schedule(s) != c.sched {
			t.Errorf("K=%d: decisions %s, schedule %s; want %s, %s", c.k, got, schedule(s), c.want, c.sched)
		}
	}
}

// Three processors, all jobs at time 0: J0 (1 proc, 10 s, deadline 20),
// J1 (3, 10 s, 30), J2 (1, 30 s, 50) are admitted, scheduled J0 [0,10),
// J1 [10,20), J2 [20,50). Then J3 (2, 20 s, 30). MRT sorts J0 J1 J3 J2
// (EDF, ties by arrival) and extends the empty schedule:
//
//	J0 [0,10)                       strongly feasible
//	  J1 [10,20): J3 could only start at 20, missing 30 — backtrack 1
//	  J3 [0,20)                     strongly feasible
//	    J1 [20,30): J2 could not end by 50 — backtrack 2
//	    J2 [10,40): J1 could not end by 30 — backtrack 3
//	    nothing left: undo J3 — backtrack 4
//	  J2 [0,30): J1 could not end by 30 — backtrack 5
//	  nothing left: undo J0 — backtrack 6
//	J1 [0,10), J0 [10,20), J3 [10,30), J2 [20,50): feasible.
//
// So J3 is admitted with a backtrack limit of at least 6. QoPS and MSB
// admit it too (QoPS from a different schedule: it had put J1 first).
func TestMRTBacktracks(t *testing.T) {
	js := []spec{{1, 10, 20}, {3, 10, 30}, {1, 30, 50}, {2, 20, 30}}
	for _, c := range []struct {
		limit int
		want  string
		sched string
	}{
		{0, "[true true true false]", "J0@0 J1@10 J2@20"},
		{5, "[true true true false]", "J0@0 J1@10 J2@20"},
		{6, "[true true true true]", "J1@0 J0@10 J3@10 J2@20"},
		{100, "[true true true true]", "J1@0 J0@10 J3@10 J2@20"},
	} {
		prm := Defaults("mrt")
		prm.Backtrack = c.limit
		s := mustNew(t, "mrt", 3, prm)
		got := fmt.Sprint(insertAll(s, js))
		if got != c.want || schedule(s) != c.sched {
			t.Errorf("limit %d: decisions %s, schedule %s; want %s, %s", c.limit, got, schedule(s), c.want, c.sched)
		}
		if c.limit == 100 && s.Stats.Backtracks != 6 {
			t.Errorf("backtracks = %d, want 6", s.Stats.Backtracks)
		}
	}
	if got := decisions(t, "qops", Defaults("qops"), 3, js); got != "[true true true true]" {
		t.Errorf("qops: %s", got)
	}
	if got := decisions(t, "msb", Defaults("msb"), 3, js); got != "[true true true true]" {
		t.Errorf("msb: %s", got)
	}
}

// Two processors: X (2 procs, 10 s, deadline 20) is admitted at [0,10).
// Y (1 proc, 30 s, deadline 31) must start by 1, and X must then run on
// both processors after Y ends at 30 or before Y starts — no schedule
// meets both deadlines. All three reject Y, keep X where it was, and
// forget Y.
func TestRejectedByAll(t *testing.T) {
	for _, kind := range []string{"qops", "msb", "mrt"} {
		s := mustNew(t, kind, 2, Defaults(kind))
		got := insertAll(s, []spec{{2, 10, 20}, {1, 30, 31}})
		if fmt.Sprint(got) != "[true false]" || schedule(s) != "J0@0" || s.Waiting() != 1 {
			t.Errorf("%s: decisions %v, schedule %s", kind, got, schedule(s))
		}
		y := &job.Request{ID: 1}
		if ok, _ := s.Admitted(y); ok || s.Guarantee(y) != -1 {
			t.Errorf("%s: Y not forgotten", kind)
		}
		if s.Stats.Rejected != 1 || s.Stats.Decisions != 2 {
			t.Errorf("%s: stats %+v", kind, s.Stats)
		}
		// the profile holds X alone: a new 2-processor job fits at 10
		if f := s.run.Prof.EarliestFit(0, 5, 2); f != 10 {
			t.Errorf("%s: profile changed by the rejection (fit at %d)", kind, f)
		}
	}
}

// A deadline before submission + estimate is rejected at once, with a
// reason that says so; a job without a deadline gets the artificial
// deadline max(24 h, R·estimate) after submission.
func TestDeadlineRules(t *testing.T) {
	s := mustNew(t, "qops", 4, Defaults("qops"))
	j := &job.Request{ID: 0, Submit: 100, Procs: 1, Estimate: 50, Deadline: 149}
	s.Insert(100, j)
	if ok, reason := s.Admitted(j); ok || !strings.Contains(reason, "before submission + estimate") {
		t.Errorf("impossible deadline: %v %q", ok, reason)
	}
	for _, c := range []struct {
		r         float64
		est, want int64
	}{{5, 100, 100 + Day}, {5, 86400, 100 + 5*86400}, {2, 50000, 100 + 100000}, {10, 8640, 100 + Day}} {
		prm := Defaults("qops")
		prm.R = c.r
		s := mustNew(t, "qops", 4, prm)
		if d := s.Deadline(&job.Request{Submit: 100, Estimate: c.est}); d != c.want {
			t.Errorf("R=%v est=%d: artificial deadline %d, want %d", c.r, c.est, d, c.want)
		}
	}
}

// A job without a deadline whose artificial deadline cannot be met is
// admitted at the end of the schedule with nd=admit (its deadline
// extended to the end of that reservation), and rejected with nd=reject.
func TestNonDeadlineJobs(t *testing.T) {
	for _, nd := range []NonDeadline{Admit, Reject} {
		for _, kind := range []string{"qops", "msb", "mrt"} {
			prm := Defaults(kind)
			prm.ND = nd
			s := mustNew(t, kind, 1, prm)
			// a 2-day job that must end in 2 days, then a 1-hour job
			// without a deadline (artificial deadline: 1 day)
			a := &job.Request{ID: 0, Procs: 1, Estimate: 2 * Day, Deadline: 2 * Day}
			b := &job.Request{ID: 1, Procs: 1, Estimate: 3600}
			s.Insert(0, a)
			s.Admitted(a)
			s.Insert(0, b)
			ok, reason := s.Admitted(b)
			if ok != (nd == Admit) {
				t.Errorf("%s nd=%v: admitted %v (%q)", kind, nd, ok, reason)
			}
			if ok && (schedule(s) != "J0@0 J1@172800" || s.Guarantee(b) != 2*Day || s.Stats.Extended != 1) {
				t.Errorf("%s: schedule %s, guarantee %d, stats %+v", kind, schedule(s), s.Guarantee(b), s.Stats)
			}
		}
	}
}

func TestParams(t *testing.T) {
	for _, c := range []struct{ spec, name, err string }{
		{"qops", "qops", ""},
		{"qops:k=2:h=llf:r=10", "qops:h=llf:k=2:r=10", ""},
		{"msb:h=edf:af=0.5", "msb:h=edf:af=0.5", ""},
		{"mrt:backtrack=0:nd=reject", "mrt:backtrack=0:nd=reject", ""},
		{"qops:h=ast", "", "expected edf or llf"},
		{"msb:h=xyz", "", "expected ast, edf or llf"},
		{"qops:k=-1", "", "parameter k: expected an integer in [0, "},
		{"mrt:r=abc", "", "parameter r"},
		{"msb:au=2", "", "in [0, 1]"},
		{"qops:nd=maybe", "", "admit or reject"},
		{"qops:backtrack=3", "", "no parameter"},
	} {
		s, err := newSpec(c.spec)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%s: err %v, want %q", c.spec, err, c.err)
			}
			continue
		}
		if err != nil || s.Name() != c.name {
			t.Errorf("%s: %v, name %q want %q", c.spec, err, s.Name(), c.name)
		}
	}
}
