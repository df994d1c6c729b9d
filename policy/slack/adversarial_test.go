package slack

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// TestCutsExactAdversarial: the search's cuts (pruning, the settled
// suffix of the AST compression and its LastBelow bound, the compression
// without the delayed holds) change no start on testgen.Adversarial
// workloads (same-second ends and submissions, identical jobs, runtime =
// estimate or 0, 1-s estimates, whole-machine jobs, queues of hundreds),
// for every heuristic but the exhaustive one, in kill mode, without kills
// and with the tick strategy (extensions). The twin is the same policy
// with the cuts off (TestSettleKeepsSchedule and TestPruningKeepsSchedule
// draw testgen.Random workloads only).
func TestCutsExactAdversarial(t *testing.T) {
	n := 4
	if !longtest.Short() {
		n = 4 // (40 pass: 14 min on the shared machine, 2026-11-25)
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x736c6b))
		jobs, procs := testgen.Adversarial(r, false)
		for longtest.Short() && len(jobs) > 120 {
			jobs, procs = testgen.Adversarial(r, false)
		}
		for i := range jobs {
			if r.IntN(5) == 0 {
				jobs[i].UP, jobs[i].PP = 0.75, 0.75 // costs that differ per job
			}
		}
		prm := DefaultParams()
		prm.AWT = float64(1 + r.IntN(120))
		prm.SF = []float64{0, 1, 3, 9}[r.IntN(4)]
		for h := AST; h < All; h++ {
			prm.Heuristic = h
			for _, mode := range []string{"kill", "nokill", "extend"} {
				a := New(procs, prm)
				b := New(procs, prm)
				b.noSettle, b.noPrune, b.noLazy = true, seed%2 == 0, seed%3 == 0
				opt := sim.Options{Procs: procs, NoKill: mode == "nokill", Extend: mode == "extend"}
				what := fmt.Sprintf("seed %d (%d jobs, %d procs, AWT %g, SF %g, %v, %s)", seed, len(jobs), procs, prm.AWT, prm.SF, h, mode)
				ra, err := sim.Run(jobs, a, opt)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				rb, err := sim.Run(jobs, b, opt)
				if err != nil {
					t.Fatalf("%s: %v", what, err)
				}
				for i := range jobs {
					if ra.Outcomes[i].Start != rb.Outcomes[i].Start {
						j := jobs[i]
						t.Fatalf("%s: job %d (submit %d, %d procs, estimate %d, runtime %d) starts at %d with the cuts, %d without",
							what, i, j.Submit, j.Procs, j.Estimate, j.Runtime, ra.Outcomes[i].Start, rb.Outcomes[i].Start)
					}
				}
			}
		}
	}
}

// TestCutsExactDriven: the same twins on policytest.Drive's streams,
// which also cancel waiting jobs anywhere in the queue.
func TestCutsExactDriven(t *testing.T) {
	n, steps := 3, 40
	if !longtest.Short() {
		n, steps = 10, 150 // (20 pass: 4.6 min on the shared machine, 2026-11-25)
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x736c64))
		procs := []int{1, 4, 16, 64}[r.IntN(4)]
		prm := DefaultParams()
		prm.AWT = float64(1 + r.IntN(120))
		prm.Heuristic = Heuristic(r.IntN(int(All)))
		a := New(procs, prm)
		b := New(procs, prm)
		b.noSettle, b.noPrune, b.noLazy = true, true, seed%2 == 0
		if err := policytest.Drive(r, a, b, procs, steps); err != nil {
			t.Fatalf("seed %d (%d procs, AWT %g, %v): %v", seed, procs, prm.AWT, prm.Heuristic, err)
		}
	}
}
