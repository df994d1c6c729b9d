package jann97

import (
	"fmt"
	"math"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/workload/model"
)

// MaxOrder bounds the common order searched by Fit.
const MaxOrder = 200

// Moments returns the first three raw moments of xs.
func Moments(xs []float64) (m1, m2, m3 float64) {
	for _, x := range xs {
		m1 += x
		m2 += x * x
		m3 += x * x * x
	}
	n := float64(len(xs))
	return m1 / n, m2 / n, m3 / n
}

// Fit returns the hyper-Erlang distribution of common order that matches
// the first three moments m1, m2, m3 (the method of Jann et al. 1997):
// the smallest order n ≥ 1 for which a mixture of Erlang(n, λ1) and
// Erlang(n, λ2) with these moments exists. Dividing the k-th moment by
// n(n+1)…(n+k−1) leaves the moments of a two-point distribution of the
// stage means (1/λ1 w.p. p, 1/λ2 w.p. 1−p), which has a solution when
// its variance is positive and both points are positive.
//
// When no order up to MaxOrder matches the third moment, the first two
// are matched by an Erlang (coefficient of variation < 1) or by a
// balanced-means hyper-exponential (CV ≥ 1); exact says whether all three
// moments are matched.
func Fit(m1, m2, m3 float64) (h model.HyperErlang, exact bool, err error) {
	if !(m1 > 0) || !(m2 > 0) || !(m3 > 0) {
		return h, false, fmt.Errorf("moments must be positive, got %g, %g, %g", m1, m2, m3)
	}
	for n := 1; n <= MaxOrder; n++ {
		c1 := float64(n)
		c2 := c1 * float64(n+1)
		c3 := c2 * float64(n+2)
		u1, u2, u3 := m1/c1, m2/c2, m3/c3
		v := u2 - u1*u1
		if v <= u2*1e-12 {
			continue
		}
		s := (u3 - u1*u2) / v // a + b
		q := s*u1 - u2        // a·b
		d := s*s - 4*q
		if d < 0 || q <= 0 || s <= 0 {
			continue
		}
		a := (s + math.Sqrt(d)) / 2
		b := (s - math.Sqrt(d)) / 2
		if b <= 0 || a <= b {
			continue
		}
		p := (u1 - b) / (a - b)
		if p <= 0 || p >= 1 {
			continue
		}
		return model.HyperErlang{P: p, Rate1: 1 / a, Rate2: 1 / b, N: n}, true, nil
	}
	cv2 := m2/(m1*m1) - 1
	if cv2 < 1 {
		n := max(1, int(math.Round(1/math.Max(cv2, 1e-9))))
		n = min(n, MaxOrder)
		r := float64(n) / m1
		return model.HyperErlang{P: 1, Rate1: r, Rate2: r, N: n}, false, nil
	}
	// balanced means: p/λ1 = (1−p)/λ2 = m1/2
	p := 0.5 * (1 + math.Sqrt((cv2-1)/(cv2+1)))
	return model.HyperErlang{P: p, Rate1: 2 * p / m1, Rate2: 2 * (1 - p) / m1, N: 1}, false, nil
}

// Range is a range of job sizes with its two fitted distributions.
type Range struct {
	// Lo and Hi bound the sizes (inclusive).
	Lo, Hi int
	// Interarrival is the distribution of the time between two arrivals
	// of jobs of this range; Runtime that of their runtimes.
	Interarrival, Runtime model.HyperErlang
	// Jobs is the number of jobs of the range in the fitted log.
	Jobs int
	// ExactIA and ExactRun say whether three moments were matched.
	ExactIA, ExactRun bool
}

// Bounds are the size ranges of the model: powers of two, the last one up
// to the 322 nodes of the CTC SP2 partition.
var Bounds = [][2]int{{1, 1}, {2, 2}, {3, 4}, {5, 8}, {9, 16}, {17, 32}, {33, 64}, {65, 128}, {129, 256}, {257, 322}}

// FitJobs fits every range of Bounds on jobs (sorted by submit time)
// submitted before end: runtimes per range, and the gaps between
// consecutive submissions within each range. Jobs larger than the last
// range are left out (counted in the second result).
func FitJobs(jobs []job.Job, end int64) ([]Range, int, error) {
	var out []Range
	skipped := 0
	top := Bounds[len(Bounds)-1][1]
	for i := range jobs {
		if jobs[i].Submit < end && jobs[i].Procs > top {
			skipped++
		}
	}
	for _, b := range Bounds {
		var runs, gaps []float64
		last := int64(-1)
		for i := range jobs {
			j := &jobs[i]
			if j.Submit >= end || j.Procs < b[0] || j.Procs > b[1] {
				continue
			}
			runs = append(runs, float64(j.Runtime))
			if last >= 0 {
				gaps = append(gaps, float64(j.Submit-last))
			}
			last = j.Submit
		}
		if len(gaps) < 3 {
			return nil, 0, fmt.Errorf("size range %d-%d has %d jobs, too few to fit", b[0], b[1], len(runs))
		}
		r := Range{Lo: b[0], Hi: b[1], Jobs: len(runs)}
		var err error
		if r.Interarrival, r.ExactIA, err = Fit(Moments(gaps)); err != nil {
			return nil, 0, fmt.Errorf("range %d-%d interarrival: %w", b[0], b[1], err)
		}
		if r.Runtime, r.ExactRun, err = Fit(Moments(runs)); err != nil {
			return nil, 0, fmt.Errorf("range %d-%d runtime: %w", b[0], b[1], err)
		}
		out = append(out, r)
	}
	return out, skipped, nil
}
