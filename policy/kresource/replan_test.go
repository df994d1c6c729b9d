package kresource

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// TestNoKillReplanEqualsLiteral is package conservative's test of the
// same name for ff-cons (requirement vectors, K = 1 to 3): without kills,
// the fast re-plans after overruns (reservation's replan.go) give exactly
// the literal re-plan's schedule, job by job, under each overrun rule.
func TestNoKillReplanEqualsLiteral(t *testing.T) {
	n := 200
	if longtest.Short() {
		n = 40
	}
	rules := []policy.OverrunRule{policy.OverrunLimit, policy.OverrunDouble, policy.OverrunSecond}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 23))
		spec := testgen.Random(r)
		spec.Jobs = 60 + r.IntN(150)
		spec.MeanGap = 1 + spec.MeanGap/3 // a queue
		spec.Overrun = []float64{0.1, 0.3, 0.6}[r.IntN(3)]
		jobs := testgen.Jobs(r, spec)
		k := 1 + int(seed%3)
		res := testgen.AddResources(r, jobs, k)
		caps := append([]int{spec.Procs}, res...)
		rule := rules[(seed/3)%3]
		mk := func(literal bool) *Conservative {
			c, err := NewCons(caps, Config{Overrun: rule})
			if err != nil {
				t.Fatal(err)
			}
			c.book.Literal = literal
			return c
		}
		what := fmt.Sprintf("seed %d (%d jobs, capacities %v, overrun=%s)", seed, len(jobs), caps, rule)
		a, err := sim.Run(jobs, mk(false), sim.Options{Procs: spec.Procs, Res: res, NoKill: true})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		b, err := sim.Run(jobs, mk(true), sim.Options{Procs: spec.Procs, Res: res, NoKill: true})
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
