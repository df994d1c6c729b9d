package conservative

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/predict"
	"github.com/backfill-hpc/backfill/sim"
)

// TestNoKillReplanEqualsLiteral: without kills, the re-plans after
// overruns (reservation.Book.Replan and the catch-up, which skip the
// searches of jobs that cannot land elsewhere: reservation's replan.go)
// give exactly the schedule of the literal re-plan (every reservation
// removed and re-placed in order with a search from now), job by job, on
// random loaded workloads where many jobs run past their estimates, under
// each overrun rule, with the estimates and with history predictions
// (whose corrections re-plan too), in arrival order and with the queue
// order sjf (whose compressions are re-plans in that order).
func TestNoKillReplanEqualsLiteral(t *testing.T) {
	n := 300
	if longtest.Short() {
		n = 60
	}
	rules := []policy.OverrunRule{policy.OverrunLimit, policy.OverrunDouble, policy.OverrunSecond}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 22))
		spec := testgen.Random(r)
		spec.Jobs = 60 + r.IntN(200)
		spec.MeanGap = 1 + spec.MeanGap/3 // a queue
		spec.Overrun = []float64{0.1, 0.3, 0.6}[r.IntN(3)]
		jobs := testgen.Jobs(r, spec)
		rule := rules[seed%3]
		var plan func() *predict.Plan
		if seed%4 == 3 {
			plan = func() *predict.Plan {
				p, err := predict.Parse("history", "estimate")
				if err != nil {
					t.Fatal(err)
				}
				return p
			}
		}
		sjf := seed%5 == 4 // compressions re-plan in that order; overruns in reservation order
		mk := func(literal bool) *Policy {
			cfg := Config{Overrun: rule}
			if plan != nil {
				cfg.Plan = plan()
			}
			c := New(spec.Procs, cfg)
			if sjf {
				if err := c.setOrder(spec.Procs, policy.Params{"order": "sjf"}); err != nil {
					t.Fatal(err)
				}
			}
			c.book.Literal = literal
			return c
		}
		what := fmt.Sprintf("seed %d (%d jobs, %d procs, overrun=%s, predict=%v, sjf=%v)", seed, len(jobs), spec.Procs, rule, plan != nil, sjf)
		a, err := sim.Run(jobs, mk(false), sim.Options{Procs: spec.Procs, NoKill: true})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, err := sim.Run(jobs, mk(true), sim.Options{Procs: spec.Procs, NoKill: true})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		for i := range jobs {
			if a.Outcomes[i].Start != b.Outcomes[i].Start {
				t.Fatalf("%s: job %d starts at %d (fast) vs %d (literal)", what, i, a.Outcomes[i].Start, b.Outcomes[i].Start)
			}
		}
	}
}
