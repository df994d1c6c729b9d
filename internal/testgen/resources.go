package testgen

import (
	"math/rand/v2"

	"github.com/backfill-hpc/backfill/job"
)

// AddResources turns a workload into a K-resource one for property tests
// of multi-resource policies: it draws K−1 capacities beyond the
// processors (1 to 64) and gives every job a requirement of each, often
// 0, sometimes the whole capacity, otherwise uniform. It returns the
// machine's capacities beyond the processors (sim.Options.Res). K = 1
// leaves the jobs alone and returns nil.
func AddResources(r *rand.Rand, jobs []job.Job, k int) []int {
	if k <= 1 {
		return nil
	}
	caps := make([]int, k-1)
	for i := range caps {
		caps[i] = 1 + r.IntN(64)
	}
	for j := range jobs {
		res := make([]int, k-1)
		for i, c := range caps {
			switch r.IntN(6) {
			case 0:
				res[i] = 0
			case 1:
				res[i] = c
			default:
				res[i] = r.IntN(c + 1)
			}
		}
		jobs[j].Res = res
	}
	return caps
}
