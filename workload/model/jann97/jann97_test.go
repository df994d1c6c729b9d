package jann97

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/workload"
	"github.com/backfill-hpc/backfill/workload/model"
)

var ctc = filepath.Join("..", "..", "..", "..", "shared", "traces", "CTC-SP2-1996-3.1-cln.swf.gz")

func relClose(a, b, tol float64) bool { return math.Abs(a-b) <= tol*math.Max(math.Abs(a), math.Abs(b)) }

// TestFittedMatchesCTC refits the model on the CTC SP2 log and checks the
// embedded parameters.
func TestFittedMatchesCTC(t *testing.T) {
	if longtest.Short() {
		t.Skip("reads the CTC SP2 log")
	}
	tr, err := workload.Load(ctc, workload.Options{})
	if err != nil {
		t.Skipf("CTC SP2 log not available: %v", err)
	}
	rs, skipped, err := FitJobs(tr.Jobs, FitEnd)
	if err != nil {
		t.Fatal(err)
	}
	if skipped != 0 || len(rs) != len(Fitted) {
		t.Fatalf("%d ranges, %d jobs skipped", len(rs), skipped)
	}
	total := 0
	for i, r := range rs {
		f := Fitted[i]
		total += r.Jobs
		same := func(a, b model.HyperErlang) bool {
			return a.N == b.N && relClose(a.P, b.P, 1e-5) && relClose(a.Rate1, b.Rate1, 1e-5) && relClose(a.Rate2, b.Rate2, 1e-5)
		}
		if r.Lo != f.Lo || r.Hi != f.Hi || r.Jobs != f.Jobs || !same(r.Interarrival, f.Interarrival) || !same(r.Runtime, f.Runtime) || !r.ExactIA || !r.ExactRun {
			t.Errorf("range %d-%d: fitted %+v, embedded %+v", r.Lo, r.Hi, r, f)
		}
	}
	t.Logf("%d jobs in the fitting window", total)
}

// TestFitMatchesMoments: Fit reproduces the three moments it is given,
// for a hyper-exponential, hyper-Erlang and low-variance cases.
func TestFitMatchesMoments(t *testing.T) {
	for _, h := range []model.HyperErlang{
		{P: 0.3, Rate1: 0.001, Rate2: 0.1, N: 1},
		{P: 0.6, Rate1: 0.01, Rate2: 0.5, N: 4},
		{P: 0.2, Rate1: 0.2, Rate2: 0.05, N: 12},
	} {
		m1, m2, m3 := h.Moment(1), h.Moment(2), h.Moment(3)
		g, exact, err := Fit(m1, m2, m3)
		if err != nil || !exact {
			t.Fatalf("%+v: fit %+v exact=%v err=%v", h, g, exact, err)
		}
		for k, m := range []float64{m1, m2, m3} {
			if !relClose(g.Moment(k+1), m, 1e-9) {
				t.Errorf("%+v: fit %+v moment %d = %g, want %g", h, g, k+1, g.Moment(k+1), m)
			}
		}
		if g.N > h.N {
			t.Errorf("%+v: fit order %d above the true one", h, g.N)
		}
	}
	// a constant: no exact fit; Erlang of high order with the mean
	g, exact, err := Fit(10, 100.0001, 1000.01)
	if err != nil || exact && g.N < 10 || !relClose(g.Mean(), 10, 1e-9) {
		t.Errorf("near-constant: %+v exact=%v err=%v", g, exact, err)
	}
	if _, _, err := Fit(0, 1, 1); err == nil {
		t.Error("zero mean accepted")
	}
}

// TestGeneratedMatchesFit: per range, the share of jobs is the range's
// share of the arrival rate and the mean runtime the fitted mean.
func TestGeneratedMatchesFit(t *testing.T) {
	const n = 40000
	m, _ := New(nil)
	w, err := m.Generate(model.Config{Jobs: n, Seed: 8})
	if err != nil {
		t.Fatal(err)
	}
	var totalRate float64
	for _, r := range Fitted {
		totalRate += 1 / r.Interarrival.Mean()
	}
	for _, r := range Fitted {
		var cnt int
		var sum float64
		for _, j := range w.Jobs {
			if j.Procs >= r.Lo && j.Procs <= r.Hi {
				cnt++
				sum += float64(j.Runtime)
			}
		}
		share := (1 / r.Interarrival.Mean()) / totalRate
		// arrivals of a renewal stream: the count's sd is about
		// sqrt(n·share)·CV of the gaps
		cvIA := math.Sqrt(r.Interarrival.Moment(2)/(r.Interarrival.Mean()*r.Interarrival.Mean()) - 1)
		tol := 4 * math.Sqrt(float64(n)*share) * math.Max(cvIA, 1) / n
		if math.Abs(float64(cnt)/n-share) > tol {
			t.Errorf("range %d-%d: %.4f of the jobs, want %.4f ± %.4f", r.Lo, r.Hi, float64(cnt)/n, share, tol)
		}
		mean := r.Runtime.Mean()
		sd := math.Sqrt(r.Runtime.Moment(2) - mean*mean)
		if cnt > 0 && math.Abs(sum/float64(cnt)-mean) > 4*sd/math.Sqrt(float64(cnt))+1 {
			t.Errorf("range %d-%d: mean runtime %.0f, fitted %.0f (sd %.0f, %d jobs)", r.Lo, r.Hi, sum/float64(cnt), mean, sd, cnt)
		}
		t.Logf("range %d-%d: %.4f of jobs (model %.4f), mean runtime %.0f s (model %.0f)", r.Lo, r.Hi, float64(cnt)/n, share, sum/float64(max(cnt, 1)), mean)
	}
}

func TestLoadWithin2PercentAndClipping(t *testing.T) {
	m, _ := New(nil)
	for _, c := range []struct {
		P int
		L float64
	}{{322, 0.7}, {128, 0.6}, {512, 0.85}} {
		w, err := m.Generate(model.Config{Jobs: 10000, Procs: c.P, Load: c.L, Seed: 3})
		if err != nil {
			t.Fatal(err)
		}
		if got := model.OfferedLoad(w.Jobs, c.P); math.Abs(got/c.L-1) > 0.02 {
			t.Errorf("P=%d: offered load %.4f, target %g", c.P, got, c.L)
		}
		for _, j := range w.Jobs {
			if j.Procs < 1 || j.Procs > c.P {
				t.Fatalf("P=%d: job of size %d", c.P, j.Procs)
			}
		}
	}
	if _, err := model.New("jann97:x=1"); err == nil {
		t.Error("jann97 takes no parameters")
	}
}
