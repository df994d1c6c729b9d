package dist

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func near(got, want, tol float64) bool {
	return math.Abs(got-want) <= tol*math.Max(1, math.Abs(want))
}

// TestGammaIncRegClosedForms checks P(a, x) where it has a closed form:
// P(1, x) = 1 − e^(−x), P(1/2, x) = erf(√x), and for whole n the Poisson
// sum P(n, x) = 1 − e^(−x) Σ_{k<n} x^k/k! — both branches (series below
// a+1, continued fraction above) are crossed.
func TestGammaIncRegClosedForms(t *testing.T) {
	for _, x := range []float64{1e-6, 0.1, 0.5, 1, 2, 5, 10, 30} {
		if got, want := GammaIncReg(1, x), -math.Expm1(-x); !near(got, want, 1e-14) {
			t.Errorf("P(1, %g) = %.17g, want %.17g", x, got, want)
		}
		if got, want := GammaIncReg(0.5, x), math.Erf(math.Sqrt(x)); !near(got, want, 1e-14) {
			t.Errorf("P(1/2, %g) = %.17g, want %.17g", x, got, want)
		}
	}
	// hand-worked: P(2, 3) = 1 − 4e^(−3)
	if got, want := GammaIncReg(2, 3), 1-4*math.Exp(-3); !near(got, want, 1e-15) {
		t.Errorf("P(2, 3) = %.17g, want %.17g", got, want)
	}
	for n := 1; n <= 60; n++ {
		for _, x := range []float64{0.3, 1, 4, 9.5, 20, 45, 70} {
			term, sum := 1.0, 0.0
			for k := 0; k < n; k++ {
				if k > 0 {
					term *= x / float64(k)
				}
				sum += term
			}
			want := 1 - math.Exp(-x)*sum
			if got := GammaIncReg(float64(n), x); math.Abs(got-want) > 1e-13 {
				t.Errorf("P(%d, %g) = %.17g, want %.17g", n, x, got, want)
			}
		}
	}
	for _, bad := range [][2]float64{{0, 1}, {-1, 1}, {1, -1}, {math.NaN(), 1}} {
		if got := GammaIncReg(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("P(%g, %g) = %g, want NaN", bad[0], bad[1], got)
		}
	}
	if GammaIncReg(3, 0) != 0 || GammaIncReg(3, math.Inf(1)) != 1 {
		t.Error("P(3, 0) must be 0 and P(3, ∞) 1")
	}
}

// TestGammaCDF: the CDF scales x by the rate; the median of Gamma(1, β)
// is ln 2/β.
func TestGammaCDF(t *testing.T) {
	g := NewGamma(1, 4, nil)
	if got := g.CDF(math.Ln2 / 4); !near(got, 0.5, 1e-15) {
		t.Errorf("exponential(4) CDF at its median = %.17g, want 0.5", got)
	}
	if g.CDF(-1) != 0 || g.CDF(0) != 0 {
		t.Error("CDF below 0 must be 0")
	}
	// density of Gamma(3, 2) at 1: 2³·1²·e^(−2)/Γ(3) = 4e^(−2)
	if got, want := NewGamma(3, 2, nil).Prob(1), 4*math.Exp(-2); !near(got, want, 1e-14) {
		t.Errorf("Gamma(3, 2) density at 1 = %.17g, want %.17g", got, want)
	}
}

// TestBetaIncReg checks I_x(a, b) against its closed forms: I_x(a, 1) =
// x^a, I_x(1, b) = 1 − (1−x)^b, I_x(2, 2) = x²(3 − 2x), and the symmetry
// I_x(a, b) = 1 − I_{1−x}(b, a).
func TestBetaIncReg(t *testing.T) {
	for _, x := range []float64{0.001, 0.1, 0.3, 0.5, 0.7, 0.95, 0.999} {
		for _, a := range []float64{0.5, 1, 2.5, 7} {
			if got, want := BetaIncReg(a, 1, x), math.Pow(x, a); !near(got, want, 1e-13) {
				t.Errorf("I_%g(%g, 1) = %.17g, want %.17g", x, a, got, want)
			}
			if got, want := BetaIncReg(1, a, x), 1-math.Pow(1-x, a); !near(got, want, 1e-13) {
				t.Errorf("I_%g(1, %g) = %.17g, want %.17g", x, a, got, want)
			}
			if got, want := BetaIncReg(a, 3.5, x), 1-BetaIncReg(3.5, a, 1-x); !near(got, want, 1e-13) {
				t.Errorf("I_%g(%g, 3.5) = %.17g, 1 − I_(1−x)(3.5, %g) = %.17g", x, a, got, a, want)
			}
		}
		if got, want := BetaIncReg(2, 2, x), x*x*(3-2*x); !near(got, want, 1e-14) {
			t.Errorf("I_%g(2, 2) = %.17g, want %.17g", x, got, want)
		}
	}
}

// TestStudentTQuantileTable: the two-sided 95 % critical values of a
// printed t table (e.g. Abramowitz & Stegun Table 26.10), to its three
// decimals, and to 12 digits where the value is known in closed form
// (ν = 1: tan(0.475π); ν = 2: 0.95/√(0.04875)·… = 4.302652729749464).
func TestStudentTQuantileTable(t *testing.T) {
	table := []struct{ nu, want float64 }{
		{1, 12.706}, {2, 4.303}, {3, 3.182}, {4, 2.776}, {5, 2.571}, {10, 2.228},
		{20, 2.086}, {30, 2.042}, {60, 2.000}, {120, 1.980},
	}
	for _, c := range table {
		if got := StudentTQuantile(0.975, c.nu); math.Abs(got-c.want) > 0.0005 {
			t.Errorf("t(0.975, ν=%g) = %.6f, want %.3f", c.nu, got, c.want)
		}
	}
	if got, want := StudentTQuantile(0.975, 1), math.Tan(0.475*math.Pi); !near(got, want, 1e-14) {
		t.Errorf("t(0.975, 1) = %.17g, want %.17g", got, want)
	}
	// ν = 2: t = (2p−1)/√(2p(1−p)) = 0.95/√0.04875
	if got, want := StudentTQuantile(0.975, 2), 0.95/math.Sqrt(0.04875); !near(got, want, 1e-14) {
		t.Errorf("t(0.975, 2) = %.17g, want %.17g", got, want)
	}
	// a large ν approaches the normal quantile 1.959963984540054
	if got := StudentTQuantile(0.975, 1e7); math.Abs(got-1.959963984540054) > 1e-6 {
		t.Errorf("t(0.975, 1e7) = %.12f, want ≈ 1.959964", got)
	}
	// ν = 3 is exact by the CDF F(t) = 1/2 + (θ + sinθ cosθ)/π, θ = atan(t/√3)
	f3 := func(x float64) float64 {
		th := math.Atan(x / math.Sqrt(3))
		return 0.5 + (th+math.Sin(th)*math.Cos(th))/math.Pi
	}
	for _, p := range []float64{0.6, 0.9, 0.975, 0.999, 0.999999} {
		if got := f3(StudentTQuantile(p, 3)); !near(got, p, 1e-13) {
			t.Errorf("F₃(t(%g, 3)) = %.17g, want %g", p, got, p)
		}
	}
}

// TestStudentTRoundTrip: the quantile inverts the CDF, for whole and
// fractional ν and both tails; the CDF is odd about 1/2.
func TestStudentTRoundTrip(t *testing.T) {
	for _, nu := range []float64{0.5, 1, 1.5, 2, 3, 4, 7.3, 29, 100, 1000} {
		for _, p := range []float64{1e-6, 0.01, 0.1, 0.3, 0.5, 0.55, 0.9, 0.975, 0.995, 1 - 1e-6} {
			q := StudentTQuantile(p, nu)
			if got := StudentTCDF(q, nu); !near(got, p, 1e-12) {
				t.Errorf("ν=%g: CDF(quantile(%g) = %.17g) = %.17g", nu, p, q, got)
			}
			if got := StudentTQuantile(1-p, nu); !near(got, -q, 1e-9) {
				t.Errorf("ν=%g: quantile(1−%g) = %.17g, want %.17g", nu, p, got, -q)
			}
		}
	}
	// ν = 1 is the Cauchy: F(t) = 1/2 + atan(t)/π
	for _, x := range []float64{-50, -1, 0, 0.3, 4} {
		if got, want := StudentTCDF(x, 1), 0.5+math.Atan(x)/math.Pi; !near(got, want, 1e-14) {
			t.Errorf("Cauchy CDF(%g) = %.17g, want %.17g", x, got, want)
		}
	}
	for _, bad := range [][2]float64{{0, 3}, {1, 3}, {0.5, 0}, {0.9, -2}, {math.NaN(), 3}} {
		if got := StudentTQuantile(bad[0], bad[1]); !math.IsNaN(got) {
			t.Errorf("quantile(%g, ν=%g) = %g, want NaN", bad[0], bad[1], got)
		}
	}
}

// TestGammaSampler: mean α/β and variance α/β² of many draws, and a
// Kolmogorov–Smirnov distance to GammaIncReg, for shapes below 1 (the
// boost), 1 (the exponential), between and large.
func TestGammaSampler(t *testing.T) {
	const n = 100000
	for _, c := range []struct{ shape, rate float64 }{
		{0.3, 1}, {0.7, 2}, {1, 0.5}, {2, 1}, {4.2, 1 / 0.94}, {312, 1 / 0.03}, {10.2303 * 1.0225, 1 / 0.4871},
	} {
		g := NewGamma(c.shape, c.rate, rand.NewPCG(1, uint64(c.shape*1000)))
		xs := make([]float64, n)
		var sum float64
		for i := range xs {
			xs[i] = g.Rand()
			sum += xs[i]
		}
		mean := sum / n
		var ss float64
		for _, x := range xs {
			ss += (x - mean) * (x - mean)
		}
		v := ss / (n - 1)
		wantMean, wantVar := c.shape/c.rate, c.shape/c.rate/c.rate
		if se := math.Sqrt(wantVar / n); math.Abs(mean-wantMean) > 5*se {
			t.Errorf("Gamma(%g, %g): mean %.6g, want %.6g ± %.2g", c.shape, c.rate, mean, wantMean, 5*se)
		}
		// SE of the sample variance ≈ σ²·√((κ−1)/n), κ = 3 + 6/α
		if se := wantVar * math.Sqrt((2+6/c.shape)/n); math.Abs(v-wantVar) > 5*se {
			t.Errorf("Gamma(%g, %g): variance %.6g, want %.6g ± %.2g", c.shape, c.rate, v, wantVar, 5*se)
		}
		slices.Sort(xs)
		d := 0.0
		for i, x := range xs {
			F := g.CDF(x)
			d = math.Max(d, math.Max(F-float64(i)/n, float64(i+1)/n-F))
		}
		if d > 1.63/math.Sqrt(n) { // KS critical value at 1 %
			t.Errorf("Gamma(%g, %g): KS distance %.5f > %.5f", c.shape, c.rate, d, 1.63/math.Sqrt(n))
		}
	}
}

// TestExponentialBernoulli: sample mean 1/rate; frequency of 1 is p.
func TestExponentialBernoulli(t *testing.T) {
	const n = 200000
	e := NewExponential(0.25, rand.NewPCG(2, 3))
	b := NewBernoulli(0.3, rand.NewPCG(4, 5))
	var se, sb float64
	for i := 0; i < n; i++ {
		se += e.Rand()
		sb += b.Rand()
	}
	if m := se / n; math.Abs(m-4) > 5*4/math.Sqrt(n) {
		t.Errorf("exponential(0.25) mean %.4f, want 4", m)
	}
	if f := sb / n; math.Abs(f-0.3) > 5*math.Sqrt(0.3*0.7/n) {
		t.Errorf("Bernoulli(0.3) frequency %.4f, want 0.3", f)
	}
	if NewBernoulli(0, rand.NewPCG(1, 1)).Rand() != 0 || NewBernoulli(1, rand.NewPCG(1, 1)).Rand() != 1 {
		t.Error("Bernoulli(0) must draw 0 and Bernoulli(1) draw 1")
	}
}

// constSource makes Float64() return u (a multiple of 2⁻⁵³).
type constSource struct{ u float64 }

func (c constSource) Uint64() uint64 { return uint64(c.u * (1 << 53)) }

// TestCategoricalOrder: with weights 1, 2, 3, 4 (Σ 10) the CDF lists the
// categories in heap pre-order 0, 1, 3, 2 (cumulative 1, 3, 7, 10), so
// U = 0.05 → 0, 0.2 → 1, 0.31 → 3, 0.69 → 3,
// 0.7 → 2, 0.99 → 2; a category of weight 0 is never drawn.
func TestCategoricalOrder(t *testing.T) {
	w := []float64{1, 2, 3, 4}
	for _, c := range []struct {
		u    float64
		want float64
	}{{0, 0}, {0.05, 0}, {0.2, 1}, {0.31, 3}, {0.69, 3}, {0.7, 2}, {0.99, 2}} {
		if got := NewCategorical(w, constSource{c.u}).Rand(); got != c.want {
			t.Errorf("U = %g: drew %g, want %g", c.u, got, c.want)
		}
	}
	z := []float64{0, 5, 0, 5, 0}
	for _, u := range []float64{0, 0.25, 0.5, 0.75, 1 - 1.0/(1<<53)} {
		if got := NewCategorical(z, constSource{u}).Rand(); got != 1 && got != 3 {
			t.Errorf("U = %g: drew category %g of weight 0", u, got)
		}
	}
}

// TestCategoricalFrequencies: over many draws each index appears in
// proportion to its weight.
func TestCategoricalFrequencies(t *testing.T) {
	w := []float64{5, 0, 1, 2, 0.5, 7, 3, 0, 1.5}
	total := 0.0
	for _, x := range w {
		total += x
	}
	const n = 300000
	c := NewCategorical(w, rand.NewPCG(9, 9))
	count := make([]float64, len(w))
	for i := 0; i < n; i++ {
		count[int(c.Rand())]++
	}
	for i, x := range w {
		p := x / total
		if math.Abs(count[i]/n-p) > 5*math.Sqrt(p*(1-p)/n)+1e-12 {
			t.Errorf("index %d: frequency %.5f, want %.5f", i, count[i]/n, p)
		}
	}
}
