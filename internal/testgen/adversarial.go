package testgen

import (
	"math/rand/v2"
	"slices"

	"github.com/backfill-hpc/backfill/job"
)

// Adversarial draws a workload made to break exact speed shortcuts: many
// events in the same second (submissions on a coarse grid of instants,
// estimates and runtimes on the same grid, so that ends and submissions
// coincide), runs of identical jobs (same submission, size, estimate and
// runtime), runtimes equal to the estimate, runtimes of 0, estimates of
// 1 s, jobs of the whole machine, and, one workload in four, a queue of
// hundreds (several hundred jobs submitted within a few instants). It
// returns the jobs (IDs 0..n−1, non-decreasing submissions) and the
// number of processors. long draws larger workloads.
func Adversarial(r *rand.Rand, long bool) ([]job.Job, int) {
	procs := []int{1, 2, 3, 8, 16, 64, 128}[r.IntN(7)]
	n := 20 + r.IntN(100)
	grid := int64([]int{1, 5, 10}[r.IntN(3)])
	horizon := int64(n) * grid * int64(1+r.IntN(4)) // mean gap 0.5–2 grid steps
	if r.IntN(4) == 0 {
		// a queue of hundreds: most jobs within a few instants
		n = 200 + r.IntN(200)
		horizon = grid * int64(1+r.IntN(5))
	}
	if long {
		n *= 1 + r.IntN(3)
	}
	overrun := []float64{0, 0.05, 0.3}[r.IntN(3)]
	jobs := make([]job.Job, n)
	submits := make([]int64, n)
	for i := range submits {
		submits[i] = r.Int64N(horizon/grid+1) * grid
	}
	slices.Sort(submits)
	for i := range jobs {
		if i > 0 && r.IntN(5) == 0 {
			// identical to the previous job, in the same second
			jobs[i] = jobs[i-1]
			jobs[i].Submit = jobs[i-1].Submit
			jobs[i].ID, jobs[i].SWFID = i, int64(i+1)
			continue
		}
		var size int
		switch k := r.IntN(10); {
		case k < 2:
			size = procs
		case k < 4:
			size = 1
		case k < 5:
			size = max(1, procs/2)
		default:
			size = 1 + r.IntN(procs)
		}
		est := grid * int64(1+r.IntN(12))
		if r.IntN(8) == 0 {
			est = 1
		}
		var run int64
		switch k := r.Float64(); {
		case k < overrun:
			run = est + grid*int64(1+r.IntN(3))
		case k < overrun+0.35:
			run = est
		case k < overrun+0.5:
			run = 0
		default:
			run = r.Int64N(est/grid+1) * grid
			run = min(run, est)
		}
		jobs[i] = job.Job{
			Request: job.Request{ID: i, SWFID: int64(i + 1), Submit: submits[i], Procs: size, Estimate: est,
				User: int32(r.IntN(4)), Group: -1, Queue: -1, Partition: -1},
			Runtime: run,
		}
	}
	// submissions non-decreasing (identical jobs copied their
	// predecessor's, which may exceed a later draw)
	for i := 1; i < n; i++ {
		if jobs[i].Submit < jobs[i-1].Submit {
			jobs[i].Submit = jobs[i-1].Submit
		}
	}
	return jobs, procs
}
