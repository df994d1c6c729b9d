package sim_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
)

// TestUserRelabel: user and group numbers are names. Every registered
// policy (and the variants of sameInstantSpecs: the predictors learn per
// user), and the slurm policy with fair-share, age and size weights
// (priorities from per-user and per-account usage, Fair Tree and the
// classic factor), run on a workload and on the same workload with its
// users and groups renamed by a random bijection, must start every job
// at the same second, in kill and no-kill modes. Quick: two adversarial
// workloads of at most 100 jobs; long: eight of any size.
func TestUserRelabel(t *testing.T) {
	dir := t.TempDir()
	conf := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	fs := "PriorityWeightFairshare=10000\nPriorityWeightAge=1000\nPriorityWeightJobSize=100\nPriorityMaxAge=60\nPriorityDecayHalfLife=120\nPriorityCalcPeriod=5\n"
	specs := append(sameInstantSpecs(),
		"slurm:slurmconf="+conf("ft.conf", fs)+":bf_interval=5:bf_resolution=1",
		"slurm:slurmconf="+conf("classic.conf", fs+"PriorityFlags=NO_FAIR_TREE\n")+":bf_interval=7",
		"easy:order=multifactor:slurmconf="+conf("order.conf", fs))
	n := 2
	if !longtest.Short() {
		n = 8
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x75736572))
		jobs, procs := testgen.Adversarial(r, false)
		for longtest.Short() && len(jobs) > 100 {
			jobs, procs = testgen.Adversarial(r, false)
		}
		for i := range jobs {
			jobs[i].User = int32(r.IntN(6))
			jobs[i].Group = int32(r.IntN(3))
		}
		users, groups := r.Perm(6), r.Perm(3)
		renamed := make([]job.Job, len(jobs))
		for i, j := range jobs {
			j.User = int32(100 + 7*users[j.User])
			j.Group = int32(50 + 3*groups[j.Group])
			renamed[i] = j
		}
		for _, spec := range specs {
			for _, noKill := range []bool{false, true} {
				run := func(js []job.Job) []job.Outcome {
					return simulate(t, spec, procs, js, noKill).Outcomes
				}
				a, b := run(jobs), run(renamed)
				for i := range a {
					if a[i].Start != b[i].Start {
						j := jobs[i]
						t.Fatalf("seed %d %s noKill=%v (%d jobs, %d procs): renaming users %v and groups %v moves job %d (user %d group %d, submit %d, %d procs, estimate %d) from %d to %d",
							seed, spec, noKill, len(jobs), procs, users, groups, i, j.User, j.Group, j.Submit, j.Procs, j.Estimate, a[i].Start, b[i].Start)
					}
				}
			}
		}
	}
}
