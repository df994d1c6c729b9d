package easy

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/sim"
)

// TestCriteriaEqualProfileRoute: EASY with the paper's two criteria (shadow
// time, extra nodes) gives exactly the schedule of the general profile
// route with depth 1, job by job, on random workloads, with and without
// kills.
func TestCriteriaEqualProfileRoute(t *testing.T) {
	for seed := uint64(1); seed <= 500; seed++ {
		r := rand.New(rand.NewPCG(seed, 17))
		spec := testgen.Random(r)
		spec.Jobs *= 2
		jobs := testgen.Jobs(r, spec)
		for _, noKill := range []bool{false, true} {
			a := New(spec.Procs, Config{Depth: 1})
			b := New(spec.Procs, Config{Depth: 1})
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
					t.Fatalf("seed %d noKill=%v: job %d starts at %d (criteria) vs %d (profile)", seed, noKill, i, ra.Outcomes[i].Start, rb.Outcomes[i].Start)
				}
			}
		}
	}
}
