package kresource_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/kresource"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// TestFFEASYLiteral: K-resource EASY with first fit (ff-easy, its fit
// index on processors) starts every job when EASY written out literally
// on requirement vectors does (policytest.LiteralEASY: shadow time where
// the head fits in every resource, extra units per resource, backfill iff
// it fits now and ends by the shadow or needs no more than the extra
// units of every resource), on adversarial workloads with 1, 2 and 3
// resources, in kill and no-kill modes.
func TestFFEASYLiteral(t *testing.T) {
	n := 25
	if !longtest.Short() {
		n = 300
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6b6c6974))
		base, procs := testgen.Adversarial(r, !longtest.Short())
		for k := 1; k <= 3; k++ {
			jobs := append(base[:0:0], base...)
			caps := append([]int{procs}, testgen.AddResources(r, jobs, k)...)
			for _, noKill := range []bool{false, true} {
				what := fmt.Sprintf("seed %d, K=%d %v, noKill %v, %d jobs", seed, k, caps, noKill, len(jobs))
				s, err := policy.NewK("ff-easy", caps)
				if err != nil {
					t.Fatal(err)
				}
				opt := sim.Options{Procs: procs, Res: caps[1:], NoKill: noKill}
				got, err := sim.Run(jobs, s, opt)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				want, err := sim.Run(jobs, &policytest.LiteralEASY{Caps: caps}, opt)
				if err != nil {
					t.Fatalf("%s: literal: %v", what, err)
				}
				for i := range jobs {
					if g, w := got.Outcomes[i].Start, want.Outcomes[i].Start; g != w {
						t.Fatalf("%s: job %d (submit %d, needs %d %v, estimate %d, runtime %d) starts at %d, literal EASY at %d",
							what, i, jobs[i].Submit, jobs[i].Procs, jobs[i].Res, jobs[i].Estimate, jobs[i].Runtime, g, w)
					}
				}
			}
		}
	}
}

// TestFFEASYLiteralDriven: ff-easy on one resource against the literal
// EASY on policytest.Drive's event streams, which also cancel waiting
// jobs anywhere in the queue (the fit index's holes), with the backfill
// scan walking the queue or descending the fit index.
func TestFFEASYLiteralDriven(t *testing.T) {
	n := 8
	if !longtest.Short() {
		n = 200
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		// the queue walked, the fit index from the first job on, and
		// both (switching at a low threshold as the queue grows and empties)
		for _, from := range []int{-1, 0, 8} {
			restore := kresource.SetIndexFrom(from)
			r := rand.New(rand.NewPCG(seed, 0x6b64))
			procs := []int{1, 4, 16, 64}[r.IntN(4)]
			a, err := policy.NewK("ff-easy", []int{procs})
			if err != nil {
				t.Fatal(err)
			}
			err = policytest.Drive(r, a, &policytest.LiteralEASY{Caps: []int{procs}}, procs, 200)
			restore()
			if err != nil {
				t.Fatalf("seed %d, %d processors, index from %d: %v", seed, procs, from, err)
			}
		}
	}
}

// TestFFEASYLiteralDrivenK: the same on 2 and 3 resources.
func TestFFEASYLiteralDrivenK(t *testing.T) {
	n := 8
	if !longtest.Short() {
		n = 200
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for _, from := range []int{-1, 0, 8} {
			restore := kresource.SetIndexFrom(from)
			r := rand.New(rand.NewPCG(seed, 0x6b644b))
			caps := []int{[]int{1, 4, 16, 64}[r.IntN(4)]}
			for k := 1 + r.IntN(2); k > 0; k-- {
				caps = append(caps, 1+r.IntN(32))
			}
			a, err := policy.NewK("ff-easy", caps)
			if err != nil {
				t.Fatal(err)
			}
			err = policytest.DriveK(r, a, &policytest.LiteralEASY{Caps: caps}, caps, 200)
			restore()
			if err != nil {
				t.Fatalf("seed %d, capacities %v, index from %d: %v", seed, caps, from, err)
			}
		}
	}
}
