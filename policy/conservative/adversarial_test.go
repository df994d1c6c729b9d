package conservative

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// TestAdversarialEqualsLiteral: the fast compression (filter walks carried
// over moves, memories of failures and fits as a ring) and the re-plans
// after overruns give exactly the schedule of the literal book (every
// reservation removed and re-placed in order), job by job, on
// testgen.Adversarial workloads (ends and submissions in one second,
// identical jobs, runtime = estimate or 0, estimates of 1 s, whole-machine
// jobs, queues of hundreds), in kill mode and in no-kill mode under each
// overrun rule, in arrival order and with the queue order sjf.
func TestAdversarialEqualsLiteral(t *testing.T) {
	n := 30
	if !longtest.Short() {
		n = 400
	}
	rules := []policy.OverrunRule{policy.OverrunLimit, policy.OverrunDouble, policy.OverrunSecond}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x636f6e73))
		jobs, procs := testgen.Adversarial(r, !longtest.Short())
		sjf := seed%4 == 3
		for _, noKill := range []bool{false, true} {
			rule := rules[r.IntN(3)]
			mk := func(literal bool) *Policy {
				c := New(procs, Config{Overrun: rule})
				if sjf {
					if err := c.setOrder(procs, policy.Params{"order": "sjf"}); err != nil {
						t.Fatal(err)
					}
				}
				c.book.Literal = literal
				return c
			}
			what := fmt.Sprintf("seed %d (%d jobs, %d procs, noKill=%v, overrun=%s, sjf=%v)", seed, len(jobs), procs, noKill, rule, sjf)
			a, err := sim.Run(jobs, mk(false), sim.Options{Procs: procs, NoKill: noKill})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			b, err := sim.Run(jobs, mk(true), sim.Options{Procs: procs, NoKill: noKill})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			for i := range jobs {
				if a.Outcomes[i].Start != b.Outcomes[i].Start {
					j := jobs[i]
					t.Fatalf("%s: job %d (submit %d, %d procs, estimate %d, runtime %d) starts at %d (fast) vs %d (literal)",
						what, i, j.Submit, j.Procs, j.Estimate, j.Runtime, a.Outcomes[i].Start, b.Outcomes[i].Start)
				}
			}
		}
	}
}

// TestDrivenEqualsLiteral: conservative's fast book against the literal
// one on policytest.Drive's event streams: cancellations of waiting jobs
// anywhere (the head, jobs just submitted) mixed with same-second ends,
// runs past the estimates, and identical and whole-machine jobs.
func TestDrivenEqualsLiteral(t *testing.T) {
	n := 8
	if !longtest.Short() {
		n = 150
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6364))
		procs := []int{1, 4, 16, 64}[r.IntN(4)]
		sjf := seed%3 == 2
		mk := func(literal bool) *Policy {
			c := New(procs, Config{})
			if sjf {
				if err := c.setOrder(procs, policy.Params{"order": "sjf"}); err != nil {
					t.Fatal(err)
				}
			}
			c.book.Literal = literal
			return c
		}
		if err := policytest.Drive(r, mk(false), mk(true), procs, 200); err != nil {
			t.Fatalf("seed %d, %d processors, sjf=%v: %v", seed, procs, sjf, err)
		}
	}
}
