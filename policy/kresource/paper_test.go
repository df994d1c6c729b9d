package kresource_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/testgen"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// figure1 are the six jobs of the paper's Figure 1 on 16 CPUs and 32 GB,
// as (CPUs, GB). The figure's picture is not in our copy of the paper;
// the requirements follow from its table of epoch sums (P/M):
//
//	FCFS/FF epoch 1 = {2} = 07/16          → job 2 = (7, 16)
//	FCFS    epoch 3 = {5} = 01/10          → job 5 = (1, 10)
//	FCFS/FF epoch 2 = {3} = 11/20          → job 3 = (11, 20)
//	FCFS    epoch 2 = {3, 4} = 12/32       → job 4 = (1, 12)
//	UNC     epoch 0 = {0, 2, 4} = 16/32    → job 0 = (8, 4)
//	FCFS    epoch 0 = {0, 1} = 12/06       → job 1 = (4, 2)
//
// and the text's "8 + 4 + 7 > 16" (jobs 0, 1, 2) agrees.
var figure1 = [][2]int{{8, 4}, {4, 2}, {7, 16}, {11, 20}, {1, 12}, {1, 10}}

const epoch = 100 // every job runs t = 100 s, estimated exactly

func figure1Jobs() []job.Job {
	jobs := make([]job.Job, len(figure1))
	for i, r := range figure1 {
		jobs[i] = job.Job{Request: job.Request{ID: i, SWFID: int64(i), Procs: r[0], Estimate: epoch, Res: []int{r[1]}}, Runtime: epoch}
	}
	return jobs
}

// epochs runs spec on Figure 1 and returns the jobs started in each epoch.
func epochs(t *testing.T, spec string) [][]int {
	t.Helper()
	s, err := policy.NewK(spec, []int{16, 32})
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(figure1Jobs(), s, sim.Options{Procs: 16, Res: []int{32}})
	if err != nil {
		t.Fatal(err)
	}
	var out [][]int
	for _, o := range res.Outcomes {
		if o.Start%epoch != 0 {
			t.Fatalf("%s: job %d starts at %d, not at an epoch", spec, o.ID, o.Start)
		}
		e := int(o.Start / epoch)
		for len(out) <= e {
			out = append(out, nil)
		}
		out[e] = append(out[e], o.ID)
	}
	return out
}

// TestFigure1: FCFS needs 4 epochs and FCFS/FF 3, with the table's job
// sets; BB and BL do no worse than FF; the table's UNC packing (2 epochs)
// fills the machine exactly, which checks the reconstruction.
func TestFigure1(t *testing.T) {
	sum := func(ids ...int) [2]int {
		var s [2]int
		for _, i := range ids {
			s[0] += figure1[i][0]
			s[1] += figure1[i][1]
		}
		return s
	}
	for _, c := range []struct {
		ids  []int
		want [2]int
	}{
		{[]int{0, 1}, [2]int{12, 6}}, {[]int{2}, [2]int{7, 16}}, {[]int{3, 4}, [2]int{12, 32}}, {[]int{5}, [2]int{1, 10}},
		{[]int{0, 1, 4, 5}, [2]int{14, 28}}, {[]int{3}, [2]int{11, 20}},
		{[]int{0, 2, 4}, [2]int{16, 32}}, {[]int{1, 3, 5}, [2]int{16, 32}},
	} {
		if got := sum(c.ids...); got != c.want {
			t.Errorf("jobs %v sum to %v, the table says %v", c.ids, got, c.want)
		}
	}
	want := map[string][][]int{
		"fcfs":    {{0, 1}, {2}, {3, 4}, {5}},
		"ff-easy": {{0, 1, 4, 5}, {2}, {3}},
		"ff-cons": {{0, 1, 4, 5}, {2}, {3}},
	}
	for spec, w := range want {
		if got := epochs(t, spec); !equal(got, w) {
			t.Errorf("%s: epochs %v, want %v", spec, got, w)
		}
	}
	ff := len(epochs(t, "ff-easy"))
	for _, spec := range []string{"bb-easy", "bb-easy:fullness=off", "bl-easy", "bl-easy:fullness=off"} {
		if got := epochs(t, spec); len(got) > ff {
			t.Errorf("%s needs %d epochs (%v), FF %d", spec, len(got), got, ff)
		}
	}
}

func equal(a, b [][]int) bool {
	return slices.EqualFunc(a, b, func(x, y []int) bool { return slices.Equal(x, y) })
}

// startOrder runs jobs (all submitted at 0) and returns the IDs started at
// time 0 in the order the policy started them.
func startOrder(t *testing.T, spec string, caps []int, jobs []job.Job) []int {
	t.Helper()
	s, err := policy.NewK(spec, caps)
	if err != nil {
		t.Fatal(err)
	}
	for i := range jobs {
		s.Insert(0, &jobs[i].Request)
	}
	var got []int
	s.Tick(0, func(j *job.Request) { got = append(got, j.ID) })
	return got
}

func mkJobs(est int64, needs ...[]int) []job.Job {
	jobs := make([]job.Job, len(needs))
	for i, n := range needs {
		jobs[i] = job.Job{Request: job.Request{ID: i, Procs: n[0], Estimate: est, Res: n[1:]}, Runtime: est}
	}
	return jobs
}

// TestHeuristicChoices: hand-computed selections on a 10/10 machine. Job
// 0 (8 CPUs, 2 mem) starts; job 1 (whole machine) is the head with its
// reservation at 100, and jobs 2–4 (estimate 50) may backfill.
//
// Utilization after job 0: U = (0.8, 0.2); memory is the least used.
//
//	job 2 (1, 1): U+R = (0.9, 0.3) balance 0.9/0.6 = 1.5, fullness 0.4
//	job 3 (1, 6): U+R = (0.9, 0.8) balance 0.9/0.85 = 1.059, fullness 0.15
//	job 4 (2, 2): U+R = (1.0, 0.4) balance 1.0/0.7 = 1.429, fullness 0.3
//
// FF starts 2, then 3 (4 no longer fits: 8+1+1+2 > 10 CPUs).
// BB without the modifier: balances 1.5, 1.059, 1.429: starts 3; then
// U = (0.9, 0.8): job 2 (1.0, 0.9) fits, job 4 does not; starts 2.
// With the fullness modifier the BB scores are 1 + 0.5·0.4 = 1.2,
// 1 + 0.059·0.15 = 1.009 and 1 + 0.429·0.3 = 1.129: job 3 first as well.
// BL: the largest requirement of job 2 is a tie (0.1, 0.1) → CPUs, no
// match; job 3's is memory → match; job 4's is a tie (0.2, 0.2) → CPUs,
// no match. Balances 2, 1, 2: job 3 first, with or without the fullness
// modifier (scores 1.4, 1, 1.3 with it); then only job 2 fits.
func TestHeuristicChoices(t *testing.T) {
	jobs := func() []job.Job {
		j := mkJobs(50, []int{8, 2}, []int{10, 10}, []int{1, 1}, []int{1, 6}, []int{2, 2})
		j[0].Estimate, j[1].Estimate = 100, 100
		return j
	}
	caps := []int{10, 10}
	for spec, want := range map[string][]int{
		"ff-easy":              {0, 2, 3},
		"bb-easy":              {0, 3, 2},
		"bb-easy:fullness=off": {0, 3, 2},
		"bl-easy:fullness=off": {0, 3, 2},
		"bl-easy":              {0, 3, 2},
	} {
		if got := startOrder(t, spec, caps, jobs()); !slices.Equal(got, want) {
			t.Errorf("%s started %v, want %v", spec, got, want)
		}
	}
}

// TestFullnessModifier: the fullness modifier lets a larger job with a
// worse balance win over a smaller, better-balanced one when it nearly
// fills the machine. On a 10/10 machine job 0 (5, 5) starts and job 1
// (the whole machine) is the head; only one of jobs 2 and 3 fits beside
// job 0 (6 CPUs > 5 free). With U = (0.5, 0.5):
//
//	job 2 (1, 0): balance 0.6/0.55 = 1.0909, availability 0.45 → 1 + 0.0909·0.45 = 1.0409
//	job 3 (5, 3): balance 1.0/0.9  = 1.1111, availability 0.1  → 1 + 0.1111·0.1  = 1.0111
//
// Without the modifier BB starts job 2 (1.0909 < 1.1111), as FF does;
// with it, job 3.
func TestFullnessModifier(t *testing.T) {
	caps := []int{10, 10}
	for spec, want := range map[string][]int{
		"bb-easy":              {0, 3},
		"bb-easy:fullness=off": {0, 2},
		"ff-easy":              {0, 2},
	} {
		jobs := mkJobs(50, []int{5, 5}, []int{10, 10}, []int{1, 0}, []int{5, 3})
		jobs[0].Estimate, jobs[1].Estimate = 100, 100
		if got := startOrder(t, spec, caps, jobs); !slices.Equal(got, want) {
			t.Errorf("%s started %v, want %v", spec, got, want)
		}
	}
}

// TestK1HeuristicsAreFF: at K = 1 every job is perfectly balanced
// (balance 1), so with the fullness modifier BL and BB score every
// candidate 1 and start them in arrival order: the schedules of ff-easy
// (and so of easy), job by job.
func TestK1HeuristicsAreFF(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 74))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		a := run(t, "easy", jobs, spec.Procs, nil, false)
		for _, ps := range []string{"bl-easy", "bb-easy", "bb-easy:fullness=off"} {
			b := run(t, ps, jobs, spec.Procs, nil, false)
			if d := diff(a.Outcomes, b.Outcomes); d != "" {
				t.Fatalf("seed %d %s: %s", seed, ps, d)
			}
		}
	}
}

// TestWindow: BL's window w on three resources. Job 0 (6, 1, 3) starts:
// U = (0.6, 0.1, 0.3), resources by increasing use: 1, 2, 0. Job 1 (the
// whole machine) is the head. Jobs 2–4 need 4 CPUs each, so only one of
// them fits beside job 0; their requirements, largest first:
//
//	job 2 (4, 1, 5): resources 2, 0, 1 — matches 0 positions
//	job 3 (4, 5, 1): resources 1, 0, 2 — matches 1 (resource 1)
//	job 4 (4, 6, 5): resources 1, 2, 0 — matches 2 (resources 1, 2)
//
// With balance 1 + w − matched and ties by arrival: w = 0 (and FF) takes
// job 2, w = 1 job 3, w = 2 job 4.
func TestWindow(t *testing.T) {
	caps := []int{10, 10, 10}
	for spec, want := range map[string][]int{
		"ff-easy":                  {0, 2},
		"bl-easy:w=0:fullness=off": {0, 2},
		"bl-easy:w=1:fullness=off": {0, 3},
		"bl-easy:w=2:fullness=off": {0, 4},
		"bl-easy:w=5:fullness=off": {0, 4}, // capped at K−1 = 2
	} {
		jobs := mkJobs(50, []int{6, 1, 3}, []int{10, 10, 10}, []int{4, 1, 5}, []int{4, 5, 1}, []int{4, 6, 5})
		jobs[0].Estimate, jobs[1].Estimate = 100, 100
		if got := startOrder(t, spec, caps, jobs); !slices.Equal(got, want) {
			t.Errorf("%s started %v, want %v", spec, got, want)
		}
	}
}
