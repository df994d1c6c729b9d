package kresource

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// TestConsAdversarialEqualsLiteral: ff-cons's compression (filter walks
// carried over moves, per resource) and its re-plans after overruns give
// exactly the schedule of the literal book, on testgen.Adversarial
// workloads with 1, 2 and 3 resources, in kill and no-kill modes.
func TestConsAdversarialEqualsLiteral(t *testing.T) {
	n := 15
	if !longtest.Short() {
		n = 60
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6b636f6e))
		base, procs := testgen.Adversarial(r, !longtest.Short())
		for k := 1; k <= 3; k++ {
			jobs := append(base[:0:0], base...)
			caps := append([]int{procs}, testgen.AddResources(r, jobs, k)...)
			for _, noKill := range []bool{false, true} {
				mk := func(literal bool) *Conservative {
					c, err := NewCons(caps, Config{})
					if err != nil {
						t.Fatal(err)
					}
					c.book.Literal = literal
					return c
				}
				what := fmt.Sprintf("seed %d (%d jobs, caps %v, noKill=%v)", seed, len(jobs), caps, noKill)
				opt := sim.Options{Procs: procs, Res: caps[1:], NoKill: noKill}
				a, err := sim.Run(jobs, mk(false), opt)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				b, err := sim.Run(jobs, mk(true), opt)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				for i := range jobs {
					if a.Outcomes[i].Start != b.Outcomes[i].Start {
						j := jobs[i]
						t.Fatalf("%s: job %d (submit %d, needs %d %v, estimate %d, runtime %d) starts at %d (fast) vs %d (literal)",
							what, i, j.Submit, j.Procs, j.Res, j.Estimate, j.Runtime, a.Outcomes[i].Start, b.Outcomes[i].Start)
					}
				}
			}
		}
	}
}

// TestConsDrivenEqualsLiteral: ff-cons's fast book against the literal
// one on one resource, on policytest.Drive's event streams
// (cancellations anywhere in the queue, same-second ends, runs past the
// estimates, identical and whole-machine jobs).
func TestConsDrivenEqualsLiteral(t *testing.T) {
	n := 8
	if !longtest.Short() {
		n = 150
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6b6364))
		procs := []int{1, 4, 16, 64}[r.IntN(4)]
		mk := func(literal bool) *Conservative {
			c, err := NewCons([]int{procs}, Config{})
			if err != nil {
				t.Fatal(err)
			}
			c.book.Literal = literal
			return c
		}
		if err := policytest.Drive(r, mk(false), mk(true), procs, 200); err != nil {
			t.Fatalf("seed %d, %d processors: %v", seed, procs, err)
		}
	}
}

// TestConsDrivenEqualsLiteralK: the same on 2 and 3 resources.
func TestConsDrivenEqualsLiteralK(t *testing.T) {
	n := 8
	if !longtest.Short() {
		n = 150
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6b63644b))
		caps := []int{[]int{1, 4, 16, 64}[r.IntN(4)]}
		for k := 1 + r.IntN(2); k > 0; k-- {
			caps = append(caps, 1+r.IntN(32))
		}
		mk := func(literal bool) *Conservative {
			c, err := NewCons(caps, Config{})
			if err != nil {
				t.Fatal(err)
			}
			c.book.Literal = literal
			return c
		}
		if err := policytest.DriveK(r, mk(false), mk(true), caps, 200); err != nil {
			t.Fatalf("seed %d, capacities %v: %v", seed, caps, err)
		}
	}
}
