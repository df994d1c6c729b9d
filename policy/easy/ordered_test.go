package easy

import (
	"math/rand/v2"
	"testing"

	"backfill/internal/testgen"
	"backfill/predict"
	"backfill/sim"
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
					a := NewConfig(spec.Procs, Config{Depth: 1, Order: order, Plan: plan()})
					b := NewConfig(spec.Procs, Config{Depth: 1, Order: order, Plan: plan()})
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
		{Config{Depth: 2, Order: SJBF, Plan: PlusPlus().Plan}, "easy:depth=2:order=sjbf:predict=history-2"},
		{Config{Depth: 1, Order: SJF, Plan: predict.NewPlan(predict.Estimate{}, predict.Step{})}, "easy:order=sjf:correct=step"},
	} {
		if got := NewConfig(8, c.cfg).Name(); got != c.want {
			t.Errorf("Name() = %q, want %q", got, c.want)
		}
	}
	if _, err := ParseOrder("lifo"); err == nil {
		t.Error("ParseOrder accepted lifo")
	}
}
