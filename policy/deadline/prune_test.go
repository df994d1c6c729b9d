package deadline

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/testgen"
)

// TestMSBPruningChangesNothing: on random arrival sequences, MSB with and
// without its pruning makes the same decisions and the same schedules.
func TestMSBPruningChangesNothing(t *testing.T) {
	for seed := uint64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		testgen.Deadlines(r, jobs, []float64{1, 0.5}[seed%2], 500)
		for _, h := range []Heuristic{AST, EDF} {
			prm := Defaults("msb")
			prm.H = h
			if seed%3 == 0 {
				prm.Au, prm.Af = 0.5, 0
			}
			a, b := mustNew(t, "msb", spec.Procs, prm), mustNew(t, "msb", spec.Procs, prm)
			b.noPrune = true
			// no passes: every job arrives into a growing schedule
			for i := range jobs {
				j := &jobs[i].Request
				a.Insert(j.Submit, j)
				b.Insert(j.Submit, j)
				oka, _ := a.Admitted(j)
				okb, _ := b.Admitted(j)
				if oka != okb || schedule(a) != schedule(b) {
					t.Fatalf("seed %d h=%v job %d: pruned %v %s, unpruned %v %s", seed, h, i, oka, schedule(a), okb, schedule(b))
				}
			}
			if a.Stats.Placements > b.Stats.Placements {
				t.Fatalf("seed %d: pruning made more placements", seed)
			}
		}
	}
}
