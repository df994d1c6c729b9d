package dist

import "math"

// eps is the relative precision the series and continued fractions run to.
const eps = 1e-16

// tiny guards the modified Lentz algorithm against division by zero.
const tiny = 1e-300

// maxIter bounds every series and continued fraction; with shapes up to
// 10⁶ they converge in a few thousand terms.
const maxIter = 1_000_000

// GammaIncReg returns the regularized lower incomplete gamma function
// P(a, x) = γ(a, x)/Γ(a) = (1/Γ(a)) ∫₀ˣ t^(a−1) e^(−t) dt for a > 0, x ≥ 0
// (NaN for other arguments). Below x = a+1 it sums the power series
// P = e^(−x) x^a Σₙ xⁿ / Γ(a+n+1) (A&S 6.5.29); above, it evaluates
// Q = 1 − P by Legendre's continued fraction (A&S 6.5.31) with the
// modified Lentz algorithm.
func GammaIncReg(a, x float64) float64 {
	switch {
	case math.IsNaN(a) || math.IsNaN(x) || a <= 0 || x < 0:
		return math.NaN()
	case x == 0:
		return 0
	case math.IsInf(x, 1):
		return 1
	}
	lg, _ := math.Lgamma(a)
	front := a*math.Log(x) - x - lg // ln(x^a e^(−x) / Γ(a))
	if x < a+1 {
		term := 1 / a
		sum := term
		for n := 1; n < maxIter; n++ {
			term *= x / (a + float64(n))
			sum += term
			if math.Abs(term) < math.Abs(sum)*eps {
				break
			}
		}
		return math.Min(1, sum*math.Exp(front))
	}
	return 1 - gammaCF(a, x)*math.Exp(front)
}

// gammaCF evaluates 1/(x+1−a− 1(1−a)/(x+3−a− 2(2−a)/(x+5−a− …))), so that
// Q(a, x) = e^(−x) x^a / Γ(a) · gammaCF(a, x).
func gammaCF(a, x float64) float64 {
	b := x + 1 - a
	c := 1 / tiny
	d := 1 / b
	h := d
	for i := 1; i < maxIter; i++ {
		an := -float64(i) * (float64(i) - a)
		b += 2
		d = an*d + b
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = b + an/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// BetaIncReg returns the regularized incomplete beta function
// I_x(a, b) = B(x; a, b)/B(a, b) for a, b > 0 and 0 ≤ x ≤ 1 (NaN for other
// arguments).
func BetaIncReg(a, b, x float64) float64 {
	return betaInc(a, b, x, 1-x)
}

// betaInc is I_x(a, b) with y = 1 − x given separately, so that a caller
// who knows y more precisely than 1 − x (the Student t CDF near its
// median) keeps that precision. It evaluates the continued fraction
// x^a y^b / (a B(a, b)) · 1/(1+ d₁/(1+ d₂/(1+ …))) with
// d₂ₘ₊₁ = −(a+m)(a+b+m)x / ((a+2m)(a+2m+1)) and
// d₂ₘ = m(b−m)x / ((a+2m−1)(a+2m)) (DLMF 8.17.22), which converges fast for
// x < (a+1)/(a+b+2); above, it uses I_x(a, b) = 1 − I_y(b, a).
func betaInc(a, b, x, y float64) float64 {
	switch {
	case math.IsNaN(a) || math.IsNaN(b) || math.IsNaN(x) || a <= 0 || b <= 0 || x < 0 || x > 1:
		return math.NaN()
	case x == 0:
		return 0
	case y == 0:
		return 1
	}
	lab, _ := math.Lgamma(a + b)
	la, _ := math.Lgamma(a)
	lb, _ := math.Lgamma(b)
	front := math.Exp(lab - la - lb + a*math.Log(x) + b*math.Log(y))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, y)/b
}

// betaCF evaluates 1/(1+ d₁/(1+ d₂/(1+ …))) of DLMF 8.17.22 by the modified
// Lentz algorithm.
func betaCF(a, b, x float64) float64 {
	c := 1.0
	d := 1 - (a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m < maxIter; m++ {
		fm := float64(m)
		// even step d₂ₘ
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		// odd step d₂ₘ₊₁
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d = 1 + num*d
		if math.Abs(d) < tiny {
			d = tiny
		}
		c = 1 + num/c
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < eps {
			break
		}
	}
	return h
}

// StudentTCDF returns P(T ≤ t) for Student's t with nu > 0 degrees of
// freedom: for t > 0, 1 − I_{ν/(ν+t²)}(ν/2, 1/2)/2, and by symmetry for
// t < 0.
func StudentTCDF(t, nu float64) float64 {
	if math.IsNaN(t) || math.IsNaN(nu) || nu <= 0 {
		return math.NaN()
	}
	if math.IsInf(t, 0) {
		if t > 0 {
			return 1
		}
		return 0
	}
	tail := studentTTail(math.Abs(t), nu)
	if t > 0 {
		return 1 - tail
	}
	return tail
}

// studentTTail returns P(T > t) for t ≥ 0: I_x(ν/2, 1/2)/2 with
// x = ν/(ν+t²) and 1 − x = t²/(ν+t²) computed directly.
func studentTTail(t, nu float64) float64 {
	t2 := t * t
	return betaInc(nu/2, 0.5, nu/(nu+t2), t2/(nu+t2)) / 2
}

// studentTDensity returns the density of Student's t with nu degrees of
// freedom at t: Γ((ν+1)/2) / (√(νπ) Γ(ν/2)) · (1 + t²/ν)^(−(ν+1)/2).
func studentTDensity(t, nu float64) float64 {
	l1, _ := math.Lgamma((nu + 1) / 2)
	l2, _ := math.Lgamma(nu / 2)
	return math.Exp(l1 - l2 - 0.5*math.Log(nu*math.Pi) - (nu+1)/2*math.Log1p(t*t/nu))
}

// StudentTQuantile returns the p-quantile of Student's t with nu > 0
// degrees of freedom (0 < p < 1; NaN otherwise): the t with
// StudentTCDF(t, nu) = p. For ν = 1 and 2 it is the closed form
// tan(π(p − 1/2)) and (2p − 1)/√(2p(1 − p)); otherwise it solves for t by
// Newton's method on the CDF, kept inside a bracket by bisection, to
// machine precision.
func StudentTQuantile(p, nu float64) float64 {
	switch {
	case math.IsNaN(p) || math.IsNaN(nu) || nu <= 0 || p <= 0 || p >= 1:
		return math.NaN()
	case p == 0.5:
		return 0
	case p < 0.5:
		return -StudentTQuantile(1-p, nu)
	case nu == 1:
		return math.Tan(math.Pi * (p - 0.5))
	case nu == 2:
		return (2*p - 1) / math.Sqrt(2*p*(1-p))
	}
	q := 1 - p // the upper tail to reach, in (0, 1/2)
	lo, hi := 0.0, 1.0
	for studentTTail(hi, nu) > q {
		lo, hi = hi, 2*hi
		if math.IsInf(hi, 1) {
			return hi
		}
	}
	t := (lo + hi) / 2
	for i := 0; i < 200; i++ {
		f := studentTTail(t, nu) - q // decreasing in t
		if f == 0 {
			return t
		}
		if f > 0 {
			lo = t
		} else {
			hi = t
		}
		next := t + f/studentTDensity(t, nu)
		if !(next > lo && next < hi) {
			next = (lo + hi) / 2
		}
		if math.Abs(next-t) <= 1e-15*t || hi-lo <= 1e-15*hi {
			return next
		}
		t = next
	}
	return t
}
