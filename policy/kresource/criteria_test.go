package kresource

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/sim"
)

// TestCriteriaEqualProfileRoute: the per-resource EASY criteria (shadow
// time, extra units) start exactly the jobs the profile test with the
// reservation held starts, for FF, BL and BB, on random K-resource
// workloads with and without kills.
func TestCriteriaEqualProfileRoute(t *testing.T) {
	n := 300
	if longtest.Short() {
		n = 60
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 75))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		res := testgen.AddResources(r, jobs, 1+r.IntN(4))
		caps := append([]int{spec.Procs}, res...)
		for _, cfg := range []Config{{Heuristic: FF}, {Heuristic: BL, Window: 1}, {Heuristic: BB}} {
			for _, noKill := range []bool{false, true} {
				var out [2][]int64
				for route := range 2 {
					e, err := NewEASY(caps, cfg)
					if err != nil {
						t.Fatal(err)
					}
					e.viaProfile = route == 1
					rs, err := sim.Run(jobs, e, sim.Options{Procs: spec.Procs, Res: res, NoKill: noKill})
					if err != nil {
						t.Fatal(err)
					}
					for _, o := range rs.Outcomes {
						out[route] = append(out[route], o.Start)
					}
				}
				for i := range out[0] {
					if out[0][i] != out[1][i] {
						t.Fatalf("seed %d %s noKill=%v: job %d starts at %d by the criteria, %d by the profile", seed, cfg.Heuristic, noKill, i, out[0][i], out[1][i])
					}
				}
			}
		}
	}
}
