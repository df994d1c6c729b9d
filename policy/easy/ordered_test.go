package easy

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/predict"
	"github.com/backfill-hpc/backfill/sim"
)

// TestOrderedCriteriaEqualProfileRoute: for orders sjbf and sjf, with the
// estimates and with history predictions (and their corrections), the
// depth-1 pass with the paper's two criteria gives exactly the schedule of
// the general profile route, job by job, with and without kills.
func TestOrderedCriteriaEqualProfileRoute(t *testing.T) {
	plans := []func() *predict.Plan{
		func() *predict.Plan { return nil },
		func() *predict.Plan { return predict.NewPlan(predict.NewHistory(2), predict.ToEstimate{}) },
		func() *predict.Plan { return predict.NewPlan(predict.NewHistory(1), predict.Step{}) },
	}
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 23))
		spec := testgen.Random(r)
		spec.Jobs *= 2
		jobs := testgen.Jobs(r, spec)
		for _, noKill := range []bool{false, true} {
			for _, order := range []Order{FCFS, SJBF, SJF} {
				for pi, plan := range plans {
					a := New(spec.Procs, Config{Depth: 1, Order: order, Plan: plan()})
					b := New(spec.Procs, Config{Depth: 1, Order: order, Plan: plan()})
					b.viaProfile = true
					ra, err := sim.Run(jobs, a, sim.Options{Procs: spec.Procs, NoKill: noKill})
					if err != nil {
						t.Fatal(err)
					}
					rb, err := sim.Run(jobs, b, sim.Options{Procs: spec.Procs, NoKill: noKill})
					if err != nil {
						t.Fatal(err)
					}
					for i := range jobs {
						if ra.Outcomes[i].Start != rb.Outcomes[i].Start {
							t.Fatalf("seed %d %s plan %d noKill=%v: job %d starts at %d (criteria) vs %d (profile)", seed, order, pi, noKill, i, ra.Outcomes[i].Start, rb.Outcomes[i].Start)
						}
					}
				}
			}
		}
	}
}

func TestNames(t *testing.T) {
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{Depth: 1}, "easy"},
		{Config{Depth: 4, Order: SJBF}, "easy:depth=4:order=sjbf"},
		{PlusPlus(), "easy++"},
		{Config{Depth: 1, Order: SJBF, Plan: predict.NewPlan(predict.NewHistory(2), predict.Step{})}, "easy++:correct=step"},
		{Config{Depth: 1, Order: SJBF, Plan: predict.NewPlan(predict.NewHistory(3), predict.Step{})}, "easy:order=sjbf:predict=history-3:correct=step"},
		{Config{Depth: 2, Order: SJBF, Plan: PlusPlus().Plan}, "easy:depth=2:order=sjbf:predict=history-2"},
		{Config{Depth: 1, Order: SJF, Plan: predict.NewPlan(predict.Estimate{}, predict.Step{})}, "easy:order=sjf:correct=step"},
	} {
		if got := New(8, c.cfg).Name(); got != c.want {
			t.Errorf("Name() = %q, want %q", got, c.want)
		}
	}
	if _, err := ParseOrder("lifo"); err == nil {
		t.Error("ParseOrder accepted lifo")
	}
}

// Every name a policy reports builds the same policy again.
func TestNamesRoundTrip(t *testing.T) {
	for _, spec := range []string{"easy", "easy++", "easy++:correct=step", "easy++:depth=3", "easy++:order=fcfs", "easy++:predict=estimate",
		"easy:order=sjf:predict=history", "easy:depth=all:order=sjbf:correct=step", "easy:predict=history-7"} {
		a, err := policy.New(spec, 16)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		b, err := policy.New(a.Name(), 16)
		if err != nil {
			t.Fatalf("%s → %s: %v", spec, a.Name(), err)
		}
		if a.Name() != b.Name() {
			t.Errorf("%s → %s → %s", spec, a.Name(), b.Name())
		}
	}
	for _, bad := range []string{"easy:order=lifo", "easy:predict=history:2", "easy++:predict=history-0", "easy:correct=never", "conservative:predict=x"} {
		if _, err := policy.New(bad, 16); err == nil {
			t.Errorf("%s accepted", bad)
		}
	}
}
