// Package testgen generates random workloads for property tests.
//
// It generates random workloads for property tests: varied
// machine sizes, loads and estimate accuracies, with many simultaneous
// events (submit times and runtimes are drawn from small ranges so that
// ties are common).
package testgen

import (
	"math/rand/v2"

	"github.com/backfill-hpc/backfill/job"
)

// Spec describes a random workload.
type Spec struct {
	Jobs  int
	Procs int
	// MeanGap is the mean inter-arrival time in seconds (smaller = heavier
	// load). 0 means all jobs arrive at time 0.
	MeanGap int
	// MaxRuntime bounds runtimes (uniform in [0, MaxRuntime]).
	MaxRuntime int
	// Overrun is the probability that a job's runtime exceeds its estimate.
	Overrun float64
	// Coarse rounds times to multiples of 10 s, making ties frequent.
	Coarse bool
}

// Random draws a Spec from r.
func Random(r *rand.Rand) Spec {
	return Spec{
		Jobs:       1 + r.IntN(120),
		Procs:      1 + r.IntN(64),
		MeanGap:    r.IntN(60),
		MaxRuntime: 1 + r.IntN(300),
		Overrun:    []float64{0, 0, 0.1, 0.5}[r.IntN(4)],
		Coarse:     r.IntN(2) == 0,
	}
}

// Jobs generates the workload: IDs 0..n-1, non-decreasing submits, sizes
// in [1, Procs] (often small, sometimes the whole machine), estimates ≥ 1.
func Jobs(r *rand.Rand, s Spec) []job.Job {
	jobs := make([]job.Job, s.Jobs)
	var t int64
	round := func(x int64) int64 {
		if s.Coarse {
			return x / 10 * 10
		}
		return x
	}
	for i := range jobs {
		if s.MeanGap > 0 {
			t += round(int64(r.IntN(2*s.MeanGap + 1)))
		}
		var procs int
		switch r.IntN(5) {
		case 0:
			procs = s.Procs
		case 1:
			procs = 1
		default:
			procs = 1 + r.IntN(s.Procs)
		}
		run := round(int64(r.IntN(s.MaxRuntime + 1)))
		est := run
		if r.Float64() < s.Overrun {
			est = run / 2
		} else if r.IntN(2) == 0 {
			est = round(run * int64(1+r.IntN(5)))
		}
		if est < 1 {
			est = 1 + int64(r.IntN(10))
		}
		jobs[i] = job.Job{
			Request: job.Request{
				ID: i, SWFID: int64(i + 1), Submit: t, Procs: procs, Estimate: est,
				User: int32(r.IntN(5)), Group: -1, Queue: -1, Partition: -1,
			},
			Runtime: run,
		}
	}
	return jobs
}

// Deadlines gives a share frac of the jobs (each with probability frac) a
// completion deadline: submit + estimate + a slack uniform in
// [0, maxSlack] seconds; the others keep Deadline 0 (no deadline).
func Deadlines(r *rand.Rand, jobs []job.Job, frac float64, maxSlack int) {
	for i := range jobs {
		j := &jobs[i]
		j.Deadline = 0
		if r.Float64() < frac {
			j.Deadline = j.Submit + j.Estimate + int64(r.IntN(maxSlack+1))
		}
	}
}

// ServiceJobs returns the job stream of the benchmarks that time single
// decisions in the live service's shape on 1,024 processors (conservative's
// BenchmarkServiceQueue, the deadline policies' shape benchmarks): IDs
// from first, all submitted at 1, nine in ten asking 1–128 processors and
// one in ten 1–1,024, estimates of 60 s to 10 h, drawn from r.
func ServiceJobs(r *rand.Rand, first int) func() *job.Request {
	id := first
	return func() *job.Request {
		n := 1 + r.IntN(128)
		if r.IntN(10) == 0 {
			n = 1 + r.IntN(1024)
		}
		j := &job.Request{ID: id, SWFID: int64(id + 1), Submit: 1, Procs: n, Estimate: int64(60 + r.IntN(36000))}
		id++
		return j
	}
}
