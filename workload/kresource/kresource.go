// Package kresource builds the K-resource workloads of Leinberger, Karypis & Kumar.
//
// It turns a single-resource workload into the K-resource
// workload of Leinberger, Karypis & Kumar (TR 99-025, §3.1): each job's
// size n becomes a vector of K requirements, drawn from a uniform or an
// exponential distribution and scaled by n, on a machine where every
// resource has the capacity P; and jobs arrive as a Poisson process whose
// rate is searched for (Calibrate) so that FCFS/FF-EASY reaches a target
// mean ready-queue length.
//
// Requirements. For job j of size n and each resource i, a factor x_i in
// (0, 1] is drawn and the requirement is r_i = ⌈x_i · n⌉ ∈ [1, n]:
//
//   - Uniform: x uniform on (0, 1] (mean 1/2);
//   - Exponential: x exponential with mean 1/2 truncated to (0, 1]
//     (drawn by inversion, mean ≈ 0.343): mostly small requirements, as
//     the paper says.
//
// The paper gives neither the exponential's mean nor the rounding; these
// are ours. Resource 0 is the job's processors (job.Request.Procs) and
// resources 1..K−1 its Res, so the engine and the auditor check every
// resource; the machine's capacities are P for every resource.
//
// Arrivals come from the base model (feitelson96.Jobs draws its Poisson
// gaps once per seed and divides them by the rate, so that workloads at
// different rates share their random numbers and the rate search sees a
// smooth, nearly monotone response); Vectors depends on the seed and the
// job order only, which the rate does not change.
package kresource

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/backfill-hpc/backfill/job"
)

// Dist is the distribution of the requirement factors.
type Dist int

const (
	// Uniform factors on (0, 1].
	Uniform Dist = iota
	// Exponential factors of mean 1/2 truncated to (0, 1].
	Exponential
)

// String is the distribution's name.
func (d Dist) String() string {
	if d == Exponential {
		return "exponential"
	}
	return "uniform"
}

// ParseDist parses "uniform" or "exponential" (or "unif", "exp").
func ParseDist(s string) (Dist, error) {
	switch s {
	case "uniform", "unif":
		return Uniform, nil
	case "exponential", "exp":
		return Exponential, nil
	}
	return 0, fmt.Errorf("requirement distribution %q: expected uniform or exponential", s)
}

// ExpMean is the mean of the exponential before truncation to (0, 1].
const ExpMean = 0.5

// factor draws one requirement factor in (0, 1]; mu is the exponential's
// mean before truncation.
func factor(r *rand.Rand, d Dist, mu float64) float64 {
	u := 1 - r.Float64() // (0, 1]
	if d == Uniform {
		return u
	}
	// inversion of the exponential truncated to [0, 1]: F(x) = (1−e^{−x/μ}) / (1−e^{−1/μ})
	x := -mu * math.Log(1-u*(1-math.Exp(-1/mu)))
	return min(max(x, math.SmallestNonzeroFloat64), 1)
}

// Vectors gives every job a K-vector of requirements scaled by its size
// (see the package comment): Procs becomes r_0 and Res r_1..r_{K−1}. The
// draws depend on seed only, in job order.
func Vectors(jobs []job.Job, k int, d Dist, seed uint64) error {
	return VectorsMean(jobs, k, d, ExpMean, seed)
}

// VectorsMean is Vectors with the exponential's mean (before truncation
// to (0, 1]) given: smaller means give more skewed, smaller requirements
// (the paper does not state its parameter; ExpMean is ours). The uniform
// distribution ignores mu.
func VectorsMean(jobs []job.Job, k int, d Dist, mu float64, seed uint64) error {
	if k < 1 {
		return fmt.Errorf("kresource: K must be at least 1, got %d", k)
	}
	if !(mu > 0 && mu <= 100) {
		return fmt.Errorf("kresource: exponential mean %g is not in (0, 100]", mu)
	}
	r := rand.New(rand.NewPCG(seed, 0x6b726573)) // stream "kres"
	for i := range jobs {
		j := &jobs[i]
		n := float64(j.Procs)
		need := func() int { return max(1, int(math.Ceil(factor(r, d, mu)*n))) }
		j.Procs = need()
		j.Res = nil
		if k > 1 {
			j.Res = make([]int, k-1)
			for x := range j.Res {
				j.Res[x] = need()
			}
		}
	}
	return nil
}
