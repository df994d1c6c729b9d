package kresource

import (
	"math"
	"reflect"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func sized(n, size int) []job.Job {
	jobs := make([]job.Job, n)
	for i := range jobs {
		jobs[i] = job.Job{Request: job.Request{ID: i, Procs: size, Estimate: 10}, Runtime: 10}
	}
	return jobs
}

// TestVectors: requirements lie in [1, n], have the distributions' means
// (uniform: (n+1)/2 for ⌈U·n⌉; truncated exponential: about 0.343·n + 1/2),
// and depend on the seed only.
func TestVectors(t *testing.T) {
	const n, size, k = 20000, 64, 4
	for _, c := range []struct {
		d    Dist
		mean float64
	}{
		{Uniform, 0.5*size + 0.5},
		// E[x] of Exp(mean μ) on [0,1]: μ − e^{−1/μ}/(1 − e^{−1/μ})
		{Exponential, (ExpMean-math.Exp(-1/ExpMean)/(1-math.Exp(-1/ExpMean)))*size + 0.5},
	} {
		jobs := sized(n, size)
		if err := Vectors(jobs, k, c.d, 7); err != nil {
			t.Fatal(err)
		}
		sum, cnt := 0.0, 0
		for _, j := range jobs {
			if len(j.Res) != k-1 {
				t.Fatalf("K−1 = %d extra requirements, got %d", k-1, len(j.Res))
			}
			for i := range k {
				r := j.Need(i)
				if r < 1 || r > size {
					t.Fatalf("%s: requirement %d outside [1, %d]", c.d, r, size)
				}
				sum += float64(r)
				cnt++
			}
		}
		if m := sum / float64(cnt); math.Abs(m-c.mean) > 0.01*size {
			t.Errorf("%s: mean requirement %.2f, want %.2f", c.d, m, c.mean)
		}
		again := sized(n, size)
		_ = Vectors(again, k, c.d, 7)
		if !reflect.DeepEqual(jobs, again) {
			t.Errorf("%s: same seed, different vectors", c.d)
		}
	}
	one := sized(3, 5)
	_ = Vectors(one, 1, Uniform, 1)
	if one[0].Res != nil {
		t.Error("K = 1 has Res")
	}
	if Vectors(one, 0, Uniform, 1) == nil {
		t.Error("K = 0 accepted")
	}
	if _, err := ParseDist("normal"); err == nil {
		t.Error("unknown distribution accepted")
	}
}

// TestCalibrate: the search finds the rate of a known monotone response,
// from below and from above, within the tolerance, and stops at maxSteps.
func TestCalibrate(t *testing.T) {
	queue := func(rate float64) (float64, error) { return 1000 * rate * rate, nil } // q = 1000 r²
	for _, r0 := range []float64{0.001, 0.3, 50} {
		c, err := Calibrate(128, r0, 0.01, 60, queue)
		if err != nil {
			t.Fatal(err)
		}
		if math.Abs(c.Queue-128) > 1.28 || math.Abs(c.Rate-math.Sqrt(0.128)) > 0.01*math.Sqrt(0.128) {
			t.Errorf("from %g: rate %g queue %g after %d steps", r0, c.Rate, c.Queue, c.Steps)
		}
	}
	c, _ := Calibrate(128, 0.001, 1e-12, 5, queue)
	if c.Steps != 5 {
		t.Errorf("maxSteps 5, took %d", c.Steps)
	}
	if _, err := Calibrate(0, 1, 0.1, 5, queue); err == nil {
		t.Error("target 0 accepted")
	}
}
