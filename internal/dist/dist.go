// Package dist implements the few probability distributions backfill needs:
// samplers for the workload models and the Student t quantile of the
// reports' confidence intervals.
//
// The samplers are the published algorithms: an exponential is
// math/rand/v2's ExpFloat64 scaled by the rate; a Bernoulli trial compares
// one uniform with p; a gamma variate is Marsaglia & Tsang's method (ACM
// TOMS 26(3), 2000) with their U^(1/α) boost for shapes below 1; a
// categorical variate is the inverse CDF of one uniform. The distribution
// functions are the regularized incomplete gamma P(a, x) (power series
// below a+1, Legendre's continued fraction above; Abramowitz & Stegun
// 6.5.29 and 6.5.31) and the regularized incomplete beta I_x(a, b)
// (continued fraction, DLMF 8.17.22), from which the Student t CDF and its
// quantile follow.
//
// Every sampler draws from the math/rand/v2 source it is given, one
// method call per uniform, normal or exponential deviate, in the order the
// algorithm consumes them. Until November 2026 the models drew from
// gonum's stat/distuv; the samplers here consume the sources exactly as
// those did (same calls, same order, same floating-point expressions), so
// a model, seed and parameters give the same workload as before, byte for
// byte. The one exception is a gamma shape below 0.2, which no published
// model uses: gonum switched to Liu, Martin & Syring's method there, this
// package keeps Marsaglia & Tsang's boost (see docs/workload.md).
package dist

import (
	"math"
	"math/rand/v2"
	"sort"
)

// Exponential draws exponential variates of rate Rate (mean 1/Rate).
type Exponential struct {
	Rate float64
	r    *rand.Rand
}

// NewExponential returns an exponential sampler of the given rate (> 0)
// drawing from src.
func NewExponential(rate float64, src rand.Source) Exponential {
	return Exponential{Rate: rate, r: rand.New(src)}
}

// Rand draws one variate: ExpFloat64() / Rate.
func (e Exponential) Rand() float64 {
	return e.r.ExpFloat64() / e.Rate
}

// Bernoulli draws 1 with probability P, else 0.
type Bernoulli struct {
	P float64
	r *rand.Rand
}

// NewBernoulli returns a Bernoulli sampler of success probability p
// drawing from src.
func NewBernoulli(p float64, src rand.Source) Bernoulli {
	return Bernoulli{P: p, r: rand.New(src)}
}

// Rand draws one trial: 1 if a uniform U in [0, 1) has U < P, else 0.
func (b Bernoulli) Rand() float64 {
	if b.r.Float64() < b.P {
		return 1
	}
	return 0
}

// Gamma is the gamma distribution of shape Shape (α > 0) and rate Rate
// (β > 0): density β^α x^(α−1) e^(−βx) / Γ(α), mean α/β, variance α/β².
type Gamma struct {
	Shape, Rate float64
	r           *rand.Rand
}

// NewGamma returns a gamma sampler of the given shape and rate drawing
// from src (src may be nil for a Gamma used only for its CDF).
func NewGamma(shape, rate float64, src rand.Source) Gamma {
	g := Gamma{Shape: shape, Rate: rate}
	if src != nil {
		g.r = rand.New(src)
	}
	return g
}

// Rand draws one variate. For α = 1 it is an exponential,
// ExpFloat64()/β. Otherwise Marsaglia & Tsang (2000): with d = α − 1/3 and
// c = 1/√(9d), repeat: X standard normal, V = (1 + cX)³ (rejected if
// 1 + cX ≤ 0), U uniform; accept d·V if U < 1 − 0.0331·X⁴ or
// ln U < X²/2 + d·(1 − V + ln V). For α < 1 it draws Gamma(α+1) the same way
// and multiplies by U^(1/α), U uniform drawn first (their §6).
func (g Gamma) Rand() float64 {
	a := g.Shape
	if a == 1 {
		return g.r.ExpFloat64() / g.Rate
	}
	d := a - 1.0/3
	boost := 1.0
	if a < 1 {
		d += 1
		boost = math.Pow(g.r.Float64(), 1/a)
	}
	c := 1 / (3 * math.Sqrt(d)) // = 1/√(9d)
	for {
		x := g.r.NormFloat64()
		v := 1 + x*c
		if v <= 0 {
			continue
		}
		v = v * v * v
		u := g.r.Float64()
		if u < 1-0.0331*(x*x)*(x*x) || math.Log(u) < 0.5*x*x+d*(1-v+math.Log(v)) {
			return boost * d * v / g.Rate
		}
	}
}

// Prob returns the density at x: β^α x^(α−1) e^(−βx) / Γ(α) (0 for x < 0).
func (g Gamma) Prob(x float64) float64 {
	switch {
	case x < 0:
		return 0
	case x == 0:
		if g.Shape == 1 {
			return g.Rate
		}
		if g.Shape < 1 {
			return math.Inf(1)
		}
		return 0
	}
	lg, _ := math.Lgamma(g.Shape)
	return math.Exp(g.Shape*math.Log(g.Rate) + (g.Shape-1)*math.Log(x) - g.Rate*x - lg)
}

// CDF returns P(X ≤ x) = P(α, βx), the regularized lower incomplete gamma.
func (g Gamma) CDF(x float64) float64 {
	if x <= 0 {
		return 0
	}
	return GammaIncReg(g.Shape, g.Rate*x)
}

// Categorical draws an index i in [0, n) with probability w[i] / Σw.
type Categorical struct {
	order []int     // the categories in the order the CDF lists them
	cum   []float64 // cum[k] = Σ w[order[j]] for j ≤ k
	r     *rand.Rand
}

// NewCategorical returns a sampler of the weights w (non-negative, not all
// zero; the caller checks) drawing from src. The inverse CDF lists the
// categories in the pre-order of a binary heap over the indexes (0, 1, 3,
// 7, …, then each right subtree): the order of gonum's Categorical, which
// the models used before, so that one uniform picks the same category.
func NewCategorical(w []float64, src rand.Source) Categorical {
	c := Categorical{r: rand.New(src)}
	var walk func(k int)
	walk = func(k int) {
		if k >= len(w) {
			return
		}
		c.order = append(c.order, k)
		walk(2*k + 1)
		walk(2*k + 2)
	}
	walk(0)
	sum := 0.0
	for _, k := range c.order {
		sum += w[k]
		c.cum = append(c.cum, sum)
	}
	return c
}

// Rand draws one index: with U uniform in [0, 1) and r = U·Σw, the first
// category in the CDF's order whose cumulative weight exceeds r (so a
// category of weight 0 is never drawn).
func (c Categorical) Rand() float64 {
	r := c.cum[len(c.cum)-1] * c.r.Float64()
	k := sort.Search(len(c.cum), func(k int) bool { return c.cum[k] > r })
	if k == len(c.cum) { // r rounded up to Σw: the last category of positive weight
		for k = len(c.cum) - 1; k > 0 && c.cum[k] == c.cum[k-1]; k-- {
		}
	}
	return float64(c.order[k])
}
