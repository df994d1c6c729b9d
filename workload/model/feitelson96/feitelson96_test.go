package feitelson96

import (
	"math"
	"testing"

	"github.com/backfill-hpc/backfill/workload/model"
)

func within(t *testing.T, what string, got, want, tol float64) {
	t.Helper()
	if math.Abs(got-want) > tol {
		t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
	} else {
		t.Logf("%s = %.4f (model %.4f, tolerance %.4f)", what, got, want, tol)
	}
}

// TestSizesAndRuntimes without repeats: the share of serial and of
// power-of-two jobs, the harmonic slope, the mean runtime by branch
// probability and the size–runtime correlation match the parameters.
func TestSizesAndRuntimes(t *testing.T) {
	const n = 30000
	p := Default()
	p.Repeat = false
	w, err := p.Generate(model.Config{Jobs: n, Procs: 128, Rate: 0.01, Seed: 5})
	if err != nil {
		t.Fatal(err)
	}
	probs := p.SizeProbs(128)
	var serial, pow2, three int
	var runSum, runWant float64
	var smallRun, bigRun, smallN, bigN float64
	for _, j := range w.Jobs {
		switch {
		case j.Procs == 1:
			serial++
		case j.Procs == 3:
			three++
		}
		if model.IsPow2(j.Procs) {
			pow2++
		}
		pl := p.PLong(j.Procs, 128)
		runWant += pl*p.LongMean + (1-pl)*p.ShortMean
		runSum += float64(j.Runtime)
		if j.Procs <= 4 {
			smallRun += float64(j.Runtime)
			smallN++
		} else if j.Procs >= 32 {
			bigRun += float64(j.Runtime)
			bigN++
		}
	}
	prop := func(q float64) float64 { return 4 * math.Sqrt(q*(1-q)/n) }
	within(t, "serial fraction", float64(serial)/n, probs[0], prop(probs[0]))
	var wantPow2 float64
	for i, q := range probs {
		if model.IsPow2(i + 1) {
			wantPow2 += q
		}
	}
	within(t, "power-of-two fraction", float64(pow2)/n, wantPow2, prop(wantPow2))
	// harmonic order 1.5: P(3)/P(1) = 3^-1.5
	within(t, "P(size 3)", float64(three)/n, probs[2], prop(probs[2]))
	if math.Abs(probs[2]/probs[0]-math.Pow(3, -1.5)) > 1e-12 {
		t.Errorf("P(3)/P(1) = %g, want 3^-1.5", probs[2]/probs[0])
	}
	// mean runtime given the sizes drawn; sd of a runtime < 1.5 × long mean
	within(t, "mean runtime (s)", runSum/n, runWant/n, 4*1.5*p.LongMean/math.Sqrt(n))
	// weak positive correlation: big jobs run longer on average
	if !(bigRun/bigN > 2*smallRun/smallN) {
		t.Errorf("mean runtime of jobs ≥ 32 (%.0f) not above twice that of jobs ≤ 4 (%.0f)", bigRun/bigN, smallRun/smallN)
	}
	t.Logf("mean runtime: sizes ≤ 4 %.0f s, sizes ≥ 32 %.0f s", smallRun/smallN, bigRun/bigN)
	if len(w.Executable) != n {
		t.Fatalf("executable numbers: %d, want %d", len(w.Executable), n)
	}
}

// TestRepeats: the mean number of runs matches the Zipf parameters, runs
// of one job share size and runtime and follow each other.
func TestRepeats(t *testing.T) {
	const n = 30000
	p := Default()
	w, err := p.Generate(model.Config{Jobs: n, Procs: 128, Load: 0.7, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	last := map[int32]int{}
	runs := map[int32]int{}
	var early []int32 // jobs first submitted in the first quarter: their chains are complete
	for i, j := range w.Jobs {
		e := w.Executable[i]
		if k, ok := last[e]; ok {
			prev := w.Jobs[k]
			if prev.Procs != j.Procs || prev.Runtime != j.Runtime || j.Submit < prev.Submit+prev.Runtime {
				t.Fatalf("run of job %d: %+v after %+v", e, j, prev)
			}
		} else if i < n/4 {
			early = append(early, e)
		}
		last[e] = i
		runs[e]++
	}
	sum := 0
	for _, e := range early {
		sum += runs[e]
	}
	// runs per job: Zipf 2.5 capped at 1000 has sd below 7; 4 SE
	within(t, "mean runs per job", float64(sum)/float64(len(early)), p.MeanRuns(), 4*7/math.Sqrt(float64(len(early))))
	within(t, "offered load", model.OfferedLoad(w.Jobs, 128), 0.7, 0.014)
}

// TestLoadWithin2Percent on several sizes and loads, with and without
// repeats.
func TestLoadWithin2Percent(t *testing.T) {
	for _, spec := range []string{"feitelson96", "feitelson96:repeat=0"} {
		for _, c := range []struct {
			P int
			L float64
		}{{128, 0.5}, {64, 0.9}, {400, 0.75}} {
			m, err := model.New(spec)
			if err != nil {
				t.Fatal(err)
			}
			w, err := m.Generate(model.Config{Jobs: 10000, Procs: c.P, Load: c.L, Seed: 9})
			if err != nil {
				t.Fatal(err)
			}
			got := model.OfferedLoad(w.Jobs, c.P)
			if math.Abs(got/c.L-1) > 0.02 {
				t.Errorf("%s P=%d: offered load %.4f, target %g", spec, c.P, got, c.L)
			}
		}
	}
}

// TestJobsPoissonRate: the library entry point for K-resource studies
// gives Poisson arrivals at the rate asked (mean gap 1/rate, CV 1).
func TestJobsPoissonRate(t *testing.T) {
	const n = 20000
	jobs, err := Jobs(n, 256, 0.02, 4)
	if err != nil {
		t.Fatal(err)
	}
	if len(jobs) != n {
		t.Fatalf("%d jobs", len(jobs))
	}
	var s, s2 float64
	for i := 1; i < n; i++ {
		g := float64(jobs[i].Submit - jobs[i-1].Submit)
		s += g
		s2 += g * g
	}
	m := s / (n - 1)
	cv := math.Sqrt(s2/(n-1)-m*m) / m
	within(t, "mean gap (s)", m, 50, 4*50/math.Sqrt(n))
	within(t, "gap CV", cv, 1, 0.05)
	for i, j := range jobs {
		if j.ID != i || j.Estimate != max(j.Runtime, 1) || j.Procs < 1 || j.Procs > 256 {
			t.Fatalf("job %d: %+v", i, j)
		}
	}
}
