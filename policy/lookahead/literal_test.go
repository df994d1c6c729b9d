package lookahead_test

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy/lookahead"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// TestDepthOneIsLiteralEASY is TestDepthOneIsEASY against EASY written out
// literally (policytest.LiteralEASY) on testgen.Adversarial workloads
// (many ends and submissions in one second, identical jobs, runtime =
// estimate or 0, estimates of 1 s, whole-machine jobs, queues of
// hundreds): the window's scan through the fit index must hand the DP
// exactly the jobs EASY's criteria would take.
func TestDepthOneIsLiteralEASY(t *testing.T) {
	n := 25
	if !longtest.Short() {
		n = 300
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6c6f6f6b))
		jobs, procs := testgen.Adversarial(r, !longtest.Short())
		for _, noKill := range []bool{false, true} {
			if err := policytest.SameStarts(jobs, sim.Options{Procs: procs, NoKill: noKill},
				&policytest.LiteralEASY{Caps: []int{procs}}, lookahead.New(procs, lookahead.Config{Depth: 1, Reserve: true, Cs: 0})); err != nil {
				t.Fatalf("seed %d (%d jobs, %d procs) noKill=%v: %v", seed, len(jobs), procs, noKill, err)
			}
		}
	}
}

// TestDepthOneIsLiteralEASYDriven: the same on policytest.Drive's event
// streams, which also cancel waiting jobs anywhere in the queue.
func TestDepthOneIsLiteralEASYDriven(t *testing.T) {
	n := 8
	if !longtest.Short() {
		n = 200
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6c64))
		procs := []int{1, 4, 16, 64}[r.IntN(4)]
		a := lookahead.New(procs, lookahead.Config{Depth: 1, Reserve: true, Cs: 0})
		if err := policytest.Drive(r, a, &policytest.LiteralEASY{Caps: []int{procs}}, procs, 200); err != nil {
			t.Fatalf("seed %d, %d processors: %v", seed, procs, err)
		}
	}
}
