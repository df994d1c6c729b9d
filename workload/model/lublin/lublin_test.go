package lublin

import (
	"math"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/dist"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/workload/model"
)

func gen(t *testing.T, spec string, cfg model.Config) *model.Workload {
	t.Helper()
	m, err := model.New(spec)
	if err != nil {
		t.Fatal(err)
	}
	w, err := m.Generate(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// within fails when |got − want| > k standard errors of a proportion.
func withinProp(t *testing.T, what string, got, want float64, n int) {
	t.Helper()
	se := math.Sqrt(want * (1 - want) / float64(n))
	if math.Abs(got-want) > 4*se {
		t.Errorf("%s = %.4f, want %.4f ± %.4f (4 standard errors, n = %d)", what, got, want, 4*se, n)
	} else {
		t.Logf("%s = %.4f (published %.4f, 4 SE = %.4f)", what, got, want, 4*se)
	}
}

// pow2Share is the probability that round(2^x) is a power of two for x
// from the two-stage uniform of c (numerical integration).
func pow2Share(c Class) float64 {
	share := func(lo, hi float64) float64 {
		if hi <= lo {
			return 0
		}
		const steps = 200000
		n := 0
		for i := 0; i < steps; i++ {
			x := lo + (float64(i)+0.5)/steps*(hi-lo)
			if model.IsPow2(int(math.Floor(math.Pow(2, x) + 0.5))) {
				n++
			}
		}
		return float64(n) / steps
	}
	return c.UProb*share(c.ULow, c.UMed) + (1-c.UProb)*share(c.UMed, c.UHi)
}

// TestTypelessPublishedShares: serial and power-of-two shares, mean
// ln(runtime) and the runtime median against values derived from the
// published parameters.
func TestTypelessPublishedShares(t *testing.T) {
	const n = 20000
	w := gen(t, "lublin:classes=1", model.Config{Jobs: n, Seed: 7})
	if w.Procs != 128 {
		t.Fatalf("default P = %d, want 128", w.Procs)
	}
	c := Typeless
	var serial, pow2 int
	var lnSum, lnWant float64
	for i := range w.Jobs {
		j := &w.Jobs[i]
		if j.Procs < 1 || j.Procs > 128 {
			t.Fatalf("job %d has size %d", i, j.Procs)
		}
		if j.Procs == 1 {
			serial++
		}
		if model.IsPow2(j.Procs) {
			pow2++
		}
		p := max(0, min(1, c.PA*float64(j.Procs)+c.PB))
		lnWant += p*c.A1*c.B1 + (1-p)*c.A2*c.B2
		lnSum += math.Log(float64(max(j.Runtime, 1)))
	}
	withinProp(t, "serial fraction", float64(serial)/n, c.Serial, n)
	wantPow2 := c.Serial + c.Pow2 + (1-c.Serial-c.Pow2)*pow2Share(c)
	withinProp(t, "power-of-two fraction (serial included)", float64(pow2)/n, wantPow2, n)

	// mean ln(runtime): the hyper-gamma mean given the sizes drawn; the
	// sd of ln(runtime) is below 3, so 4 SE < 0.09.
	lnMean, lnExp := lnSum/n, lnWant/n
	if math.Abs(lnMean-lnExp) > 4*3/math.Sqrt(n) {
		t.Errorf("mean ln(runtime) = %.3f, want %.3f", lnMean, lnExp)
	}
	t.Logf("mean ln(runtime) = %.3f (model %.3f)", lnMean, lnExp)

	// runtime median: the model's CDF at the sample median must be 0.5.
	med := median(w.Jobs)
	g1 := dist.NewGamma(c.A1, 1/c.B1, nil)
	g2 := dist.NewGamma(c.A2, 1/c.B2, nil)
	x := math.Log(float64(med) + 1) // runtimes are truncated to whole seconds
	F := 0.0
	for i := range w.Jobs {
		p := max(0, min(1, c.PA*float64(w.Jobs[i].Procs)+c.PB))
		F += (p*g1.CDF(x) + (1-p)*g2.CDF(x)) / (p*g1.CDF(tooMuchTime) + (1-p)*g2.CDF(tooMuchTime))
	}
	F /= n
	withinProp(t, "model CDF at the sample runtime median", F, 0.5, n)
	t.Logf("runtime median %d s", med)
}

func median(jobs []job.Job) int64 {
	rs := make([]int64, len(jobs))
	for i := range jobs {
		rs[i] = jobs[i].Runtime
	}
	slices.Sort(rs)
	return rs[len(rs)/2]
}

// TestTwoClasses: class shares of serial and power-of-two jobs match each
// class's published parameters; both classes appear.
func TestTwoClasses(t *testing.T) {
	const n = 20000
	w := gen(t, "lublin", model.Config{Jobs: n, Seed: 3})
	var cnt, serial, maxSize [2]int
	for i := range w.Jobs {
		j := &w.Jobs[i]
		q := j.Queue
		if q != 0 && q != 1 {
			t.Fatalf("job %d: class %d", i, q)
		}
		cnt[q]++
		if j.Procs == 1 {
			serial[q]++
		}
		maxSize[q] = max(maxSize[q], j.Procs)
	}
	if cnt[0] < n/10 || cnt[1] < n/10 {
		t.Fatalf("class counts %v: both classes should be common", cnt)
	}
	withinProp(t, "interactive serial fraction", float64(serial[0])/float64(cnt[0]), Interactive.Serial, cnt[0])
	withinProp(t, "batch serial fraction", float64(serial[1])/float64(cnt[1]), Batch.Serial, cnt[1])
	// interactive jobs are at most round(2^5.5) = 45 on 128 nodes
	if maxSize[0] > 45 {
		t.Errorf("largest interactive job %d, the published code allows 45", maxSize[0])
	}
	t.Logf("classes: %d interactive, %d batch; largest %v", cnt[0], cnt[1], maxSize)
}

// TestDailyCycle: the share of arrivals in each half hour follows the
// weights of the daily cycle (correlation above 0.9).
func TestDailyCycle(t *testing.T) {
	const n = 30000
	w := gen(t, "lublin:classes=1", model.Config{Jobs: n, Seed: 11})
	var count [buckets]float64
	for i := range w.Jobs {
		count[(w.Jobs[i].Submit/bucketSeconds)%buckets]++
	}
	m := New0(t)
	c := m.classesFor(128)[0]
	cycle := dist.NewGamma(c.ANum, 1/c.BNum, nil)
	var wt [buckets]float64
	for b := cyclicStart; b < buckets+cyclicStart; b++ {
		wt[(b-1)%buckets] = cycle.CDF(float64(b)+0.5) - cycle.CDF(float64(b)-0.5)
	}
	r := corr(count[:], wt[:])
	if r < 0.9 {
		t.Errorf("arrivals per half hour correlate %.3f with the daily-cycle weights, want > 0.9", r)
	}
	t.Logf("correlation of arrivals per half hour with the daily cycle: %.3f", r)
}

func New0(t *testing.T) *Model {
	m, err := New(map[string]string{"classes": "1"})
	if err != nil {
		t.Fatal(err)
	}
	return m.(*Model)
}

func corr(a, b []float64) float64 {
	var ma, mb float64
	for i := range a {
		ma += a[i]
		mb += b[i]
	}
	ma /= float64(len(a))
	mb /= float64(len(b))
	var sab, saa, sbb float64
	for i := range a {
		sab += (a[i] - ma) * (b[i] - mb)
		saa += (a[i] - ma) * (a[i] - ma)
		sbb += (b[i] - mb) * (b[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

// TestLoadWithin2Percent: the calibrated offered load is within 2 % of
// the target for N = 10,000, on several machine sizes and loads.
func TestLoadWithin2Percent(t *testing.T) {
	for _, c := range []struct {
		spec string
		P    int
		L    float64
	}{{"lublin", 128, 0.7}, {"lublin", 256, 0.9}, {"lublin:classes=1", 100, 0.5}} {
		w := gen(t, c.spec, model.Config{Jobs: 10000, Procs: c.P, Load: c.L, Seed: 1})
		got := model.OfferedLoad(w.Jobs, c.P)
		if math.Abs(got/c.L-1) > 0.02 {
			t.Errorf("%s P=%d: offered load %.4f, target %g", c.spec, c.P, got, c.L)
		}
		t.Logf("%s P=%d: offered load %.4f for target %g", c.spec, c.P, got, c.L)
	}
}

func TestOverrides(t *testing.T) {
	if _, err := model.New("lublin:serial=0.5"); err == nil {
		t.Error("a whole-sample parameter with two classes should be refused")
	}
	if _, err := model.New("lublin:classes=1:batch.serial=0.5"); err == nil {
		t.Error("a class parameter with one class should be refused")
	}
	if _, err := model.New("lublin:nope=1"); err == nil {
		t.Error("unknown parameter accepted")
	}
	w := gen(t, "lublin:classes=1:serial=1", model.Config{Jobs: 500, Seed: 1})
	for _, j := range w.Jobs {
		if j.Procs != 1 {
			t.Fatalf("serial=1 gave a job of size %d", j.Procs)
		}
	}
	if w.Spec != "lublin:classes=1:serial=1" {
		t.Errorf("spec %q", w.Spec)
	}
}

// TestMeanGap: over whole days the mean inter-arrival time is the mean
// rush-hour gap E[e^G | G ≤ 13], G ~ gamma(aarr·arar, barr) (the daily
// weights average 1). The gaps are heavy-tailed (CV ≈ 9): 4 SE ≈ 20 %.
func TestMeanGap(t *testing.T) {
	const n = 40000
	w := gen(t, "lublin:classes=1", model.Config{Jobs: n, Seed: 5})
	c := Typeless
	g := dist.NewGamma(c.AArr*c.ARAR, 1/c.BArr, nil)
	var num, den float64
	const steps = 200000
	for i := 0; i < steps; i++ {
		x := (float64(i) + 0.5) / steps * tooMuchArrive
		num += math.Exp(x) * g.Prob(x)
		den += g.Prob(x)
	}
	want := num / den
	got := float64(w.Jobs[n-1].Submit-w.Jobs[0].Submit) / (n - 1)
	if math.Abs(got/want-1) > 0.2 {
		t.Errorf("mean gap %.0f s, model %.0f s", got, want)
	}
	t.Logf("mean inter-arrival %.0f s (model %.0f s)", got, want)
}

// arar=false sets the rush-to-all ratio of every class to 1 (arrivals
// without it), keeps it in the spec, and changes the gaps; arar=true is
// the default.
func TestArarFalse(t *testing.T) {
	off, err := model.New("lublin:arar=false")
	if err != nil {
		t.Fatal(err)
	}
	m := off.(*Model)
	if m.Batch.ARAR != 1 || m.Interactive.ARAR != 1 || m.Typeless.ARAR != 1 || m.Spec() != "lublin:arar=false" {
		t.Errorf("arar=false: %v %v %v %q", m.Batch.ARAR, m.Interactive.ARAR, m.Typeless.ARAR, m.Spec())
	}
	on, err := model.New("lublin:arar=true")
	if err != nil || on.(*Model).Batch.ARAR != Batch.ARAR || on.Spec() != "lublin" {
		t.Errorf("arar=true: %v %v", on, err)
	}
	a, _ := off.Generate(model.Config{Jobs: 2000, Seed: 1})
	b, _ := on.Generate(model.Config{Jobs: 2000, Seed: 1})
	if a.Jobs[len(a.Jobs)-1].Submit == b.Jobs[len(b.Jobs)-1].Submit {
		t.Error("arar=false does not change the arrivals")
	}
	if _, err := model.New("lublin:arar=maybe"); err == nil {
		t.Error("arar=maybe accepted")
	}
}
