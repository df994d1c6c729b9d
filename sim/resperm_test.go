package sim_test

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// TestResourcePermutation: the resources beyond processors are names
// too. Every policy that schedules K resources, on a machine of
// processors and three more resources, must start every job at the same
// second when those three (capacities and every job's requirements) are
// listed in another order, in kill and no-kill modes — but bl-easy, whose
// documented ties between resources go by index.
func TestResourcePermutation(t *testing.T) {
	n := 3
	if !longtest.Short() {
		n = 20
	}
	specs := map[string]bool{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x72657370))
		jobs, procs := testgen.Adversarial(r, false)
		for longtest.Short() && len(jobs) > 120 {
			jobs, procs = testgen.Adversarial(r, false)
		}
		caps := append([]int{procs}, testgen.AddResources(r, jobs, 4)...)
		perm := []int{0, 1, 2}
		for slices.Equal(perm, []int{0, 1, 2}) {
			r.Shuffle(3, func(a, b int) { perm[a], perm[b] = perm[b], perm[a] })
		}
		pcaps := []int{procs, caps[1+perm[0]], caps[1+perm[1]], caps[1+perm[2]]}
		pjobs := make([]job.Job, len(jobs))
		for i, j := range jobs {
			j.Res = []int{j.Res[perm[0]], j.Res[perm[1]], j.Res[perm[2]]}
			pjobs[i] = j
		}
		for _, info := range policy.List() {
			for _, spec := range []string{info.Name, info.Name + ":order=sjf", info.Name + ":w=all", info.Name + ":w=2:fullness=off", info.Name + ":fullness=off"} {
				if _, err := policy.NewK(spec, caps); err != nil {
					continue // not a K-resource policy, or no order
				}
				if info.Name == "bl-easy" {
					// BL orders the resources by use and the job's
					// requirements by size, ties by index (docs/policies.md):
					// the resources' order is its documented tie rule
					continue
				}
				specs[spec] = true
				for _, noKill := range []bool{false, true} {
					run := func(js []job.Job, cs []int) []job.Outcome {
						s, err := policy.NewK(spec, cs)
						if err != nil {
							t.Fatal(err)
						}
						res, err := sim.Run(js, s, sim.Options{Procs: cs[0], Res: cs[1:], NoKill: noKill})
						if err != nil {
							t.Fatalf("seed %d %s: %v", seed, spec, err)
						}
						return res.Outcomes
					}
					a, b := run(jobs, caps), run(pjobs, pcaps)
					for i := range a {
						if a[i].Start != b[i].Start {
							j := jobs[i]
							t.Fatalf("seed %d %s noKill=%v (caps %v, resources reordered %v): job %d (submit %d, needs %d %v, estimate %d) starts at %d, at %d after reordering",
								seed, spec, noKill, caps, perm, i, j.Submit, j.Procs, j.Res, j.Estimate, a[i].Start, b[i].Start)
						}
					}
				}
			}
		}
	}
	t.Logf("%d K-resource policies and orders: %v", len(specs), specs)
	if len(specs) < 9 {
		t.Errorf("only %d K-resource policies found", len(specs))
	}
}
