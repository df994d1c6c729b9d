package kresource_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// diff is the first job whose start or end differs between two schedules,
// or "".
func diff(a, b []job.Outcome) string {
	for i := range a {
		if a[i].Start != b[i].Start || a[i].End != b[i].End || a[i].Bound != b[i].Bound {
			return fmt.Sprintf("job %d: start/end/bound %d/%d/%d vs %d/%d/%d", a[i].ID,
				a[i].Start, a[i].End, a[i].Bound, b[i].Start, b[i].End, b[i].Bound)
		}
	}
	return ""
}

func run(t *testing.T, spec string, jobs []job.Job, procs int, res []int, noKill bool) *sim.Result {
	t.Helper()
	caps := append([]int{procs}, res...)
	s, err := policy.NewK(spec, caps)
	if err != nil {
		t.Fatal(err)
	}
	r, err := sim.Run(jobs, s, sim.Options{Procs: procs, Res: res, NoKill: noKill})
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return r
}

// pairs are the K-resource policies and the scalar policies they must
// equal at K = 1.
var pairs = [][2]string{{"ff-easy", "easy"}, {"ff-cons", "conservative"}}

// TestK1EqualsScalar: at K = 1, ff-easy gives exactly the schedule of
// easy and ff-cons exactly that of conservative (with its guarantees), job
// by job, on random workloads with and without kills.
func TestK1EqualsScalar(t *testing.T) {
	n := 400
	if longtest.Short() {
		n = 80
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 71))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		for _, noKill := range []bool{false, true} {
			for _, p := range pairs {
				a := run(t, p[0], jobs, spec.Procs, nil, noKill)
				b := run(t, p[1], jobs, spec.Procs, nil, noKill)
				if d := diff(a.Outcomes, b.Outcomes); d != "" {
					t.Fatalf("seed %d noKill=%v: %s vs %s: %s", seed, noKill, p[0], p[1], d)
				}
			}
		}
	}
}

// TestK1EqualsScalarKTH: the same on the embedded KTH SP2 trace (28,476
// jobs, user estimates, kills).
func TestK1EqualsScalarKTH(t *testing.T) {
	if longtest.Short() {
		t.Skip("whole trace")
	}
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pairs {
		a := run(t, p[0], tr.Jobs, tr.Procs, nil, false)
		b := run(t, p[1], tr.Jobs, tr.Procs, nil, false)
		if d := diff(a.Outcomes, b.Outcomes); d != "" {
			t.Fatalf("KTH: %s vs %s: %s", p[0], p[1], d)
		}
	}
}

var kPolicies = []string{"fcfs", "ff-easy", "bl-easy", "bl-easy:w=all", "bl-easy:fullness=off", "bb-easy", "bb-easy:fullness=off", "ff-cons", "ff-easy:order=sjf", "bl-easy:order=sjf", "bb-easy:order=multifactor", "ff-cons:order=sjf"}

// TestPropertiesK: every K-resource policy on random K-resource workloads
// (K = 1..5), with and without kills, audited with the vector capacity
// check; ff-cons keeps its guarantees; fcfs keeps FCFS order.
func TestPropertiesK(t *testing.T) {
	n := 300
	if longtest.Short() {
		n = 60
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 72))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		k := 1 + r.IntN(5)
		res := testgen.AddResources(r, jobs, k)
		for _, noKill := range []bool{false, true} {
			for _, ps := range kPolicies {
				out := run(t, ps, jobs, spec.Procs, res, noKill)
				rep := audit.Audit(out.Outcomes, audit.Options{
					Procs: spec.Procs, Res: res, Kill: !noKill, KnownRuntime: true,
					FCFS: ps == "fcfs", Expect: len(jobs),
				})
				if !rep.OK() {
					t.Fatalf("seed %d K=%d %s noKill=%v: %s", seed, k, ps, noKill, rep.String())
				}
				if ps == "ff-cons" && !noKill {
					for _, o := range out.Outcomes {
						if o.Bound < o.Submit {
							t.Fatalf("seed %d: ff-cons gave job %d no guarantee", seed, o.ID)
						}
					}
				}
			}
		}
	}
}

// TestScalarPoliciesRefuseK: a processor-only policy cannot be built for
// K > 1, and the error names the policies that can.
func TestScalarPoliciesRefuseK(t *testing.T) {
	_, err := policy.NewK("easy", []int{16, 32})
	if err == nil {
		t.Fatal("easy built for 2 resources")
	}
	for _, want := range []string{"ff-easy", "bb-easy", "ff-cons", "fcfs"} {
		if !contains(err.Error(), want) {
			t.Errorf("error %q does not name %s", err, want)
		}
	}
	if _, err := policy.NewK("easy", []int{16}); err != nil {
		t.Errorf("easy at K = 1: %v", err)
	}
	if _, err := policy.NewK("bl-easy:w=-1", []int{16, 32}); err == nil {
		t.Error("negative window accepted")
	}
	if _, err := policy.NewK("bb-easy:fullness=maybe", []int{16, 32}); err == nil {
		t.Error("bad fullness accepted")
	}
}

func contains(s, sub string) bool {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return true
		}
	}
	return false
}

// TestNames: names round-trip through the registry.
func TestNames(t *testing.T) {
	for _, spec := range []string{"ff-easy", "bl-easy", "bl-easy:w=2", "bl-easy:fullness=off", "bb-easy", "bb-easy:fullness=off", "ff-cons", "ff-easy:order=sjf", "bl-easy:w=2:fullness=off:order=sjf", "bb-easy:order=multifactor", "ff-cons:order=sjf"} {
		s, err := policy.NewK(spec, []int{8, 8, 8})
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != spec {
			t.Errorf("%s named %s", spec, s.Name())
		}
	}
}

// TestScoredPathEqualsFF: BL with window 0 and no fullness modifier gives
// every candidate the same score, so its scored backfill loop must start
// exactly the jobs FF starts, job by job, on random K-resource workloads.
func TestScoredPathEqualsFF(t *testing.T) {
	n := 200
	if longtest.Short() {
		n = 40
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 73))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		res := testgen.AddResources(r, jobs, 1+r.IntN(4))
		a := run(t, "ff-easy", jobs, spec.Procs, res, false)
		b := run(t, "bl-easy:w=0:fullness=off", jobs, spec.Procs, res, false)
		if d := diff(a.Outcomes, b.Outcomes); d != "" {
			t.Fatalf("seed %d: %s", seed, d)
		}
	}
}

// TestK1OrderEqualsScalar: with a queue order, ff-easy at K = 1 is EASY
// with that order (package easy: jobs start in queue order while they
// fit, the first that does not gets the reservation, the others backfill
// in queue order), and ff-cons is conservative with that order (its
// compressions re-place the waiting jobs in that order), job by job, on
// random workloads.
func TestK1OrderEqualsScalar(t *testing.T) {
	n := 200
	if longtest.Short() {
		n = 40
	}
	changed := 0 // workloads where sjf changes the schedule: the test can tell
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 73))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		for _, order := range []string{"sjf", "multifactor"} {
			a := run(t, "ff-easy:order="+order, jobs, spec.Procs, nil, false)
			b := run(t, "easy:order="+order, jobs, spec.Procs, nil, false)
			if d := diff(a.Outcomes, b.Outcomes); d != "" {
				t.Fatalf("seed %d order %s: ff-easy vs easy: %s", seed, order, d)
			}
			c := run(t, "ff-cons:order="+order, jobs, spec.Procs, nil, false)
			d := run(t, "conservative:order="+order, jobs, spec.Procs, nil, false)
			if d := diff(c.Outcomes, d.Outcomes); d != "" {
				t.Fatalf("seed %d order %s: ff-cons vs conservative: %s", seed, order, d)
			}
			if order == "sjf" && diff(a.Outcomes, run(t, "ff-easy", jobs, spec.Procs, nil, false).Outcomes) != "" {
				changed++
			}
		}
	}
	if changed == 0 {
		t.Errorf("order sjf changed no schedule of %d workloads", n)
	}
}

// TestOrderHandWorked: 4 processors and 4 units of memory; job 0 (4
// processors, 100 s) holds the machine until 100; job 1 (3 processors,
// 50 s, submitted at 1) and job 2 (2 processors, 10 s, at 2) wait, each
// with 1 unit of memory. At 100, in arrival order job 1 starts and job 2
// (2 > 1 free) is reserved at job 1's end, 150; in sjf order job 2
// (shorter) starts and job 1 (3 > 2 free) is reserved at 110. Every EASY
// variant does the same (one candidate at a time: no choice to score).
func TestOrderHandWorked(t *testing.T) {
	mk := func(id int, submit int64, procs int, d int64) job.Job {
		return job.Job{Request: job.Request{ID: id, SWFID: int64(id) + 1, Submit: submit, Procs: procs, Estimate: d, Res: []int{1}}, Runtime: d}
	}
	jobs := []job.Job{mk(0, 0, 4, 100), mk(1, 1, 3, 50), mk(2, 2, 2, 10)}
	for _, h := range []string{"ff-easy", "bl-easy", "bb-easy"} {
		for _, c := range []struct {
			order  string
			s1, s2 int64
		}{{"", 100, 150}, {":order=fcfs", 100, 150}, {":order=sjf", 110, 100}} {
			o := run(t, h+c.order, jobs, 4, []int{4}, false).Outcomes
			if o[1].Start != c.s1 || o[2].Start != c.s2 {
				t.Errorf("%s%s: jobs 1, 2 start at %d, %d; want %d, %d", h, c.order, o[1].Start, o[2].Start, c.s1, c.s2)
			}
		}
	}
}
