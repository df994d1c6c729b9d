package slurm

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/slurm"
)

func jobsOf(spec [][4]int64) []job.Job {
	var js []job.Job
	for i, s := range spec {
		js = append(js, job.Job{Request: job.Request{ID: i, SWFID: int64(i + 1), Submit: s[0], Procs: int(s[1]), Estimate: s[2],
			User: 1, Group: 1, Queue: -1, Partition: -1}, Runtime: s[3]})
	}
	return js
}

func starts(t *testing.T, s policy.Scheduler, procs int, js []job.Job) string {
	t.Helper()
	res, err := sim.Run(js, s, sim.Options{Procs: procs})
	if err != nil {
		t.Fatal(err)
	}
	out := ""
	for i, o := range res.Outcomes {
		if i > 0 {
			out += " "
		}
		out += fmt.Sprint(o.Start)
	}
	return out
}

// TestByHand, worked from Slurm's rules (package comment): a 10-CPU
// machine, every priority equal (arrival order), bf_interval 30,
// bf_resolution 60, batch_sched_delay 3, timers from 0. J0 (t=0, 6 CPUs,
// limit 600), J1 (t=1, 6 CPUs, 600), J2 (t=2, 4 CPUs, 120), J3 (t=5, 4
// CPUs, 600); runtimes = limits.
//
// The main scheduler first runs at 3 (batch_sched_delay after its start):
// J0 starts, J1 does not fit and blocks the partition, so J2 is not tried.
// The backfill cycle at 30 reserves J1 at 603 (J0's end), [600, 1200)
// rounded down to the minute, and starts J2 (it ends at 150, before the
// reservation). J3 fits the CPUs from 150 but would run into J1's
// reservation:
//
//   - on a single node of 10 CPUs the reservation holds the whole node, so
//     J3 is reserved at 1200 and only starts when the main scheduler runs
//     at J0's end, 603, where it fits beside J1;
//   - on ten 1-CPU nodes the reservation holds 6 CPUs, J3's 4 fit beside
//     it, and the backfill cycle at 150 starts J3.
func TestByHand(t *testing.T) {
	js := jobsOf([][4]int64{{0, 6, 600, 600}, {1, 6, 600, 600}, {2, 4, 120, 120}, {5, 4, 600, 600}})
	c := slurm.DefaultConf()
	c.BfInterval = 30
	one := c
	one.CPUs, one.Nodes = 10, 1
	if got := starts(t, New(10, Options{Conf: one}), 10, js); got != "3 603 30 603" {
		t.Errorf("single node: starts %s, want 3 603 30 603", got)
	}
	if got := starts(t, New(10, Options{Conf: c}), 10, js); got != "3 603 30 150" {
		t.Errorf("one-CPU nodes: starts %s, want 3 603 30 150", got)
	}
}

// TestLimitsByHand: user 1 may run one job at a time (MaxJobs=1), so its
// second job waits for the first although the machine is free; a job over
// the partition's MaxTime and one over MaxSubmit=2 are rejected.
func TestLimitsByHand(t *testing.T) {
	c := slurm.DefaultConf()
	c.Partitions["p"] = slurm.Partition{Name: "p", MaxTime: 3600, MaxNodes: slurm.Infinite, PriorityJobFactor: 1, Default: true}
	c.PartitionOrder = []string{"p"}
	tr := slurm.NewTree()
	if _, err := tr.AddUser("1", "1", 1); err != nil {
		t.Fatal(err)
	}
	u := tr.User("1", "1")
	u.MaxJobs, u.MaxSubmit = 1, 2
	js := jobsOf([][4]int64{{0, 1, 100, 100}, {0, 1, 100, 100}, {0, 1, 7200, 10}, {1, 1, 100, 100}})
	s := New(10, Options{Conf: c, Tree: tr})
	if _, ok := s.Scheduler().(policy.Admitter); !ok {
		t.Fatal("limits that refuse jobs need admission control")
	}
	if _, ok := New(10, Options{Conf: slurm.DefaultConf()}).Scheduler().(policy.Admitter); ok {
		t.Error("no admission control without such limits")
	}
	res, err := sim.Run(js, s.Scheduler(), sim.Options{Procs: 10})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Outcomes
	if o[0].Start != 3 || o[1].Start != 103 {
		t.Errorf("starts %d %d, want 3 and 103 (MaxJobs=1)", o[0].Start, o[1].Start)
	}
	if !o[2].Rejected || !o[3].Rejected {
		t.Errorf("rejections: MaxTime %v (%s), MaxSubmit %v (%s)", o[2].Rejected, o[2].Reason, o[3].Rejected, o[3].Reason)
	}
}

// TestRegistered: the registry builds the policy with Slurm's defaults
// and the parameter overrides, and names it back.
func TestRegistered(t *testing.T) {
	s, err := policy.New("slurm:bf_interval=20:bf_window=60", 64)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "slurm:bf_interval=20:bf_window=60" {
		t.Errorf("name %q", s.Name())
	}
	for _, bad := range []string{"slurm:bf_interval=0", "slurm:bf_max_job_test=0", "slurm:order=nosuch", "slurm:slurmconf=/nonexistent", "slurm:bf_resolution=x"} {
		if _, err := policy.New(bad, 64); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	if s, err := policy.New("slurm:order=sjf", 64); err != nil || s.Name() != "slurm:order=sjf" {
		t.Errorf("slurm:order=sjf: %v %v", s, err)
	}
}

// TestDeferredHoldsExact: deferring the holds no start-now decision can
// meet, ending a cycle at its last candidate, bounding a search by the
// earliest fit of a job it dominates, and not running a cycle that
// repeats the last one (speed-ups), change no
// schedule, on random workloads of one-CPU
// nodes with Slurm's defaults and with a fair-share configuration.
func TestDeferredHoldsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 11))
	n := 150
	if testing.Short() {
		n = 40
	}
	bounded, skipped, repeats := 0, 0, 0
	for k := 0; k < n; k++ {
		spec := testgen.Random(r)
		js := testgen.Jobs(r, spec)
		c := slurm.DefaultConf()
		c.BfInterval = int64(1 + r.IntN(60))
		c.BfResolution = int64(1 + r.IntN(120))
		if k%2 == 1 {
			c.WeightAge, c.WeightFairshare, c.MaxAge, c.CalcPeriod, c.FairTree = 100, 1000, 3600, 60, false
		}
		if k%3 == 2 {
			// a short window (jobs beyond it) and few jobs tested
			c.BfWindow = int64(60 * (1 + r.IntN(10)))
			c.BfMaxJobTest = 1 + r.IntN(40)
		}
		a := New(spec.Procs, Options{Conf: c})
		b := New(spec.Procs, Options{Conf: c})
		b.noDefer = true
		b.loud = true
		if i, sa, sb := firstDifferentStart(t, js, a, b, sim.Options{Procs: spec.Procs}); i >= 0 {
			t.Fatalf("workload %d (%+v): job %d starts at %d with deferred holds, %d without", k, spec, i, sa, sb)
		}
		bounded += a.bounded
		skipped += a.skipped
		repeats += a.repeats
	}
	if bounded == 0 || skipped == 0 || repeats == 0 {
		t.Errorf("the bounds were not tested: %d searches bounded, %d jobs found beyond the window without a search, %d cycles not run as repeats", bounded, skipped, repeats)
	}
}

// TestRepeatsExact: a cycle not run because it would repeat the last
// one (Policy.repeat) changes no schedule. The workloads have long jobs
// and a short bf_interval (many cycles with no start or end between
// them), a coarse bf_resolution (holds shorter than their jobs' windows,
// which a later start may reach), short windows (fits beyond them that
// come within them later) and few jobs tested; the twin runs without any
// speed-up.
func TestRepeatsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 12))
	n := 3000
	if testing.Short() {
		n = 300
	}
	repeats := 0
	for k := 0; k < n; k++ {
		spec := testgen.Random(r)
		spec.Jobs = 40 + r.IntN(100)
		spec.MaxRuntime = 300 + r.IntN(1500)
		spec.MeanGap = r.IntN(150)
		js := testgen.Jobs(r, spec)
		c := slurm.DefaultConf()
		c.BfInterval = int64(1 + r.IntN(20))
		c.BfResolution = []int64{1, 60, 300, 900, 1800}[r.IntN(5)]
		if k%2 == 1 {
			c.BfWindow = int64(60 * (1 + r.IntN(30)))
		}
		if k%3 == 2 {
			c.BfMaxJobTest = 1 + r.IntN(10)
		}
		a := New(spec.Procs, Options{Conf: c})
		b := New(spec.Procs, Options{Conf: c})
		b.noDefer = true
		b.loud = true
		if i, sa, sb := firstDifferentStart(t, js, a, b, sim.Options{Procs: spec.Procs}); i >= 0 {
			t.Fatalf("workload %d (%+v, %+v): job %d starts at %d with repeats skipped, %d without", k, spec, c, i, sa, sb)
		}
		repeats += a.repeats
	}
	if repeats == 0 {
		t.Error("no cycle was skipped as a repeat")
	}
}

// TestTriggersByHand, worked from slurmctld 22.05's triggers (package
// comment): ten 1-CPU nodes, arrival order, defaults but bf_interval 30.
//
// J0 (t=0, 10 CPUs, runtime 10), J1 (t=1, 10 CPUs, 10), J2 (t=12, 10
// CPUs, 5), limits 100. The background loop's first pass at 3 starts J0.
// J2's submission gets a pass at 12 (3 s after the last), where nothing
// fits. J0's end at 13 is seen by the loop at 13 + EndLag, but its next
// pass may only come batch_sched_delay after the one at 12: J1 starts at
// 15; J1's end at 25 is served at 25 + EndLag (the last pass was at 15)
// — 3 15 25 with EndLag 0, 3 15 26 with EndLag 1.
//
// The backfill agent: J0 (t=0, 8 CPUs, runtime and limit 1000), J1 (t=1,
// 10 CPUs), J2 (t=75, 2 CPUs, 100). The cycle at 30 reserves J1 at 1003;
// at 60 nothing changed, so the agent retries every second and runs at
// J2's submission, 75, starting J2 (the main pass at 75 stops at J1).
// A timer that kept its phase would start J2 at 90.
func TestTriggersByHand(t *testing.T) {
	js := jobsOf([][4]int64{{0, 10, 100, 10}, {1, 10, 100, 10}, {12, 10, 100, 5}})
	c := slurm.DefaultConf()
	c.BfInterval = 30
	for lag, want := range []string{"3 15 25", "3 15 26"} {
		if got := starts(t, New(10, Options{Conf: c, EndLag: int64(lag)}), 10, js); got != want {
			t.Errorf("EndLag %d: starts %s, want %s", lag, got, want)
		}
	}
	js = jobsOf([][4]int64{{0, 8, 1000, 1000}, {1, 10, 1000, 1000}, {75, 2, 100, 100}})
	if got := starts(t, New(10, Options{Conf: c}), 10, js); got != "3 1003 75" {
		t.Errorf("backfill retry: starts %s, want 3 1003 75", got)
	}
}

// TestPhase: a drifting phase between marks (0.9 at 10 s, 0.1 at 20 s:
// it drifts +0.02 a second across the second's boundary), held before
// the first mark and after the last; the second the drift skips.
func TestPhase(t *testing.T) {
	var p Phase
	p.Mark(10, 0.9)
	p.Mark(20, 0.1)
	for _, c := range []struct {
		t    int64
		want float64
	}{{5, 0.9}, {10, 0.9}, {12, 0.94}, {15, 0}, {18, 0.06}, {20, 0.1}, {25, 0.1}} {
		if got := p.At(c.t); math.Abs(got-c.want) > 1e-9 {
			t.Errorf("At(%d) = %.4f, want %.4f", c.t, got, c.want)
		}
	}
	if got := p.Shift(10, 20); got != 1 {
		t.Errorf("Shift(10, 20) = %d, want 1 (the phase goes round once)", got)
	}
	if got := p.Shift(10, 14); got != 0 {
		t.Errorf("Shift(10, 14) = %d, want 0", got)
	}
	// the wake-up after 14.98 comes at 16.00: second 15 is skipped
	for sec := int64(11); sec <= 25; sec++ {
		if got := p.Skips(sec); got != (sec == 15) {
			t.Errorf("Skips(%d) = %v", sec, got)
		}
	}
}

// TestWakeAtByHand: the loop woke at 12.971 and at 16.003 (the third
// recording's log); 3.032 s apart, that is n = 3 wake-ups of 1.0107 s:
// 13.982, 14.992, 16.003 — second 15 has none, where the drift goes
// round the second.
func TestWakeAtByHand(t *testing.T) {
	var p Phase
	p.Mark(12, 0.971)
	p.Mark(16, 0.003)
	for _, c := range []struct {
		t    int64
		want float64
	}{{11, 0.971}, {12, 0.971}, {13, 0.98167}, {14, 0.99233}, {15, 1}, {16, 0.003}, {17, 0.003}} {
		if got := p.WakeAt(c.t); math.Abs(got-c.want) > 1e-5 {
			t.Errorf("WakeAt(%d) = %.5f, want %.5f", c.t, got, c.want)
		}
	}
}

// TestPhasesByHand: with the loop waking at 0.5 s past every second, a
// job started by the loop (fraction 0.5) with an overhead of 0.3 s ends at
// 0.8 past its last second, after the loop's wake: the loop sees the end
// a second later. J0 (t=0, 10 CPUs, runtime 10) starts at 3 (the first
// pass); J1 (t=1, 10 CPUs) waits; J0 ends at 13, seen at 14: J1 starts
// at 14. With an overhead of 0.2 the end (0.7) still comes after the
// wake (0.5): 14; with 0.9 it wraps to 0.4, before it: 13.
func TestPhasesByHand(t *testing.T) {
	js := jobsOf([][4]int64{{0, 10, 100, 10}, {1, 10, 100, 10}})
	c := slurm.DefaultConf()
	for _, x := range []struct {
		over float64
		want string
	}{{0.3, "3 14"}, {0.2, "3 14"}, {0.9, "3 13"}} {
		ph := &Phases{Overhead: x.over, Submit: 0.1}
		ph.Loop.Mark(0, 0.5)
		ph.Backfill.Mark(0, 0.9)
		if got := starts(t, New(10, Options{Conf: c, Phases: ph}), 10, js); got != x.want {
			t.Errorf("overhead %.1f: starts %s, want %s", x.over, got, x.want)
		}
	}
}

// TestEndsWithinTheirSecondByHand: the loop wakes at 0.81 past every
// second (batch_sched_delay 3 s); J0 (t=0, 10 CPUs, runtime 10) starts
// at the first pass, 3.81, and ends at 13.81 (no overhead); J1 (10 CPUs)
// is submitted at 13.1, so the loop's pass at 13.81 serves it.
//   - One-CPU nodes: J0's end comes at the pass's instant, before it
//     (ends at or before a pass's fraction are seen by it): J1 starts
//     at 13.
//   - One node of 10 CPUs: the node is completing until 13.835
//     (CompleteLag 0.025), so the pass at 13.81 starts nothing; J0's
//     end is counted at 13.835, after the pass, so the loop serves it at
//     its first pass 3 s after the last: 16.81, J1 starts at 16.
//   - The same with J0's end reaching slurmctld as an epilog-complete
//     message 0.05 s after the end: a pass at 13.86, J1 starts at 13.
//
// And with the loop at 0.5 and 0.3 s of overhead: J0 ends at 13.8,
// after the loop's 13.5 pass, which J1's submission asked for and which
// cannot start J1 (J0 still runs); the end's request survives that pass
// and is served 3 s later, at 16.5 (a pass that cleared it would leave
// J1 to the backfill cycle at 30.9).
func TestEndsWithinTheirSecondByHand(t *testing.T) {
	node := slurm.DefaultConf()
	node.Nodes, node.CPUs = 1, 10
	for _, x := range []struct {
		name   string
		c      slurm.Conf
		epilog bool
		want   string
	}{
		{"one-CPU nodes", slurm.DefaultConf(), false, "3 13"},
		{"one node", node, false, "3 16"},
		{"one node, epilog complete", node, true, "3 13"},
	} {
		js := jobsOf([][4]int64{{0, 10, 100, 10}, {13, 10, 100, 10}})
		ph := &Phases{Submit: 0.1, CompleteLag: 0.025}
		ph.Loop.Mark(0, 0.81)
		ph.Backfill.Mark(0, 0.9)
		if x.epilog {
			ph.Epilog = map[int]float64{0: 0.05}
		}
		if got := starts(t, New(10, Options{Conf: x.c, Phases: ph}), 10, js); got != x.want {
			t.Errorf("%s: starts %s, want %s", x.name, got, x.want)
		}
	}
	js := jobsOf([][4]int64{{0, 10, 100, 10}, {13, 10, 100, 10}})
	ph := &Phases{Submit: 0.1, Overhead: 0.3}
	ph.Loop.Mark(0, 0.5)
	ph.Backfill.Mark(0, 0.9)
	if got := starts(t, New(10, Options{Conf: slurm.DefaultConf(), Phases: ph}), 10, js); got != "3 16" {
		t.Errorf("request after the pass: starts %s, want 3 16", got)
	}
}

// TestOtherOrderKeepsSlurmConf: with another queue order than multifactor,
// the slurm.conf excerpt still sets the scheduler (here its bf_interval of
// 20 s); before, the order refused slurmconf as multifactor's parameter.
func TestOtherOrderKeepsSlurmConf(t *testing.T) {
	s, err := policy.New("slurm:order=sjf:slurmconf=testdata/record3/slurm-fs.conf", 64)
	if err != nil {
		t.Fatal(err)
	}
	if name := s.Name(); !strings.Contains(name, "bf_interval=20") || !strings.Contains(name, "order=sjf") {
		t.Fatalf("name %q: the excerpt's bf_interval=20 or the order is lost", name)
	}
}

// TestDrop: dropping positions from the waiting list (either side moved)
// keeps the other jobs in their order, against a plain filter.
func TestDrop(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 3))
	s := New(4, Options{})
	for k := 0; k < 2000; k++ {
		n := 1 + r.IntN(40)
		s.wait = s.wait[:0]
		for i := range n {
			s.wait = append(s.wait, &job.Request{ID: i})
		}
		var idx []int
		gone := map[int]bool{}
		for i := range n {
			if r.IntN(4) == 0 || (k%5 == 0 && i < 3) {
				idx = append(idx, i)
				gone[i] = true
			}
		}
		var want []int
		for i := range n {
			if !gone[i] {
				want = append(want, i)
			}
		}
		s.drop(idx)
		var got []int
		for _, j := range s.wait {
			got = append(got, j.ID)
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("drop %v of %d jobs: %v, want %v", idx, n, got, want)
		}
	}
}

// TestRunsExact: jobs of one shape in a row held without a search
// (Policy.follows) and cycles that go on from the last one
// (Policy.resumable) change no schedule. The workloads are random with
// runs of identical jobs (job arrays: same size and estimate, submitted
// together), long and short jobs, coarse bf_resolution and short windows;
// the twin runs without any speed-up.
func TestRunsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(20, 13))
	n := 5000
	if testing.Short() {
		n = 1000
	}
	followers, resumes := 0, 0
	for k := 0; k < n; k++ {
		var js []job.Job
		spec := testgen.Random(r)
		if k%2 == 0 {
			spec.Jobs = 30 + r.IntN(120)
			spec.MaxRuntime = 60 + r.IntN(1500)
			js = testgen.Jobs(r, spec)
		} else {
			// many events in one second, estimates of 1 s, whole-machine jobs
			js, spec.Procs = testgen.Adversarial(r, false)
		}
		for i := 1; i < len(js); i++ {
			if r.IntN(3) > 0 {
				// the same shape as the job before, submitted with it
				js[i].Submit, js[i].Procs, js[i].Estimate = js[i-1].Submit, js[i-1].Procs, js[i-1].Estimate
				js[i].Runtime = min(js[i].Runtime, js[i].Estimate)
			}
		}
		c := slurm.DefaultConf()
		c.BfInterval = int64(1 + r.IntN(30))
		c.BfResolution = []int64{1, 7, 60, 300}[r.IntN(4)]
		if k%4 >= 2 {
			c.BfWindow = int64(60 * (1 + r.IntN(30)))
		}
		if k%3 == 2 {
			c.BfMaxJobTest = 1 + r.IntN(20)
		}
		a := New(spec.Procs, Options{Conf: c})
		b := New(spec.Procs, Options{Conf: c})
		b.noDefer = true
		if i, sa, sb := firstDifferentStart(t, js, a, b, sim.Options{Procs: spec.Procs}); i >= 0 {
			t.Fatalf("workload %d (%+v, %+v): job %d starts at %d with the speed-ups, %d without", k, spec, c, i, sa, sb)
		}
		followers += a.followers
		resumes += a.resumes
	}
	if followers == 0 || resumes == 0 {
		t.Errorf("%d jobs held as followers of a run, %d cycles resumed", followers, resumes)
	}
}

// TestRunByHand: a run of identical jobs that a start interrupts. 20
// one-CPU nodes, arrival order, bf_interval 30, bf_resolution 1. R (t=0,
// 15 CPUs, limit 100) starts at 3 and is planned to end at 103; L, F1, F2
// (6 CPUs, 50 s), C (4 CPUs, 200 s) and D (1 CPU, 180 s) come at 1 in the
// order L, F1, C, F2, D. The main scheduler stops at L. The backfill cycle
// at 30 (5 CPUs free): L is held over [103, 153), F1 of the same shape
// beside it (8 CPUs left there), C fits now (5 free until 103, 8 then)
// and starts; F2 no longer fits at 103 (4 CPUs left there beside C) and
// is held over [153, 203); D fits now (1 CPU until 103, 4 then, 10 over
// F2's hold) and starts at 30. A run that ignored C's start would put F2
// at 103 (−2 CPUs free there) and keep D waiting. At R's end (103) L and
// F1 start, and F2 at their end (153).
func TestRunByHand(t *testing.T) {
	js := jobsOf([][4]int64{{0, 15, 100, 100}, {1, 6, 50, 50}, {1, 6, 50, 50}, {1, 4, 200, 200}, {1, 6, 50, 50}, {1, 1, 180, 180}})
	c := slurm.DefaultConf()
	c.BfInterval, c.BfResolution = 30, 1
	want := "3 103 103 30 153 30"
	if got := starts(t, New(20, Options{Conf: c}), 20, js); got != want {
		t.Errorf("starts %s, want %s", got, want)
	}
	b := New(20, Options{Conf: c})
	b.noDefer = true
	if got := starts(t, b, 20, js); got != want {
		t.Errorf("without speed-ups: starts %s, want %s", got, want)
	}
}
