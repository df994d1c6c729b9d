package model

import (
	"math/rand/v2"

	"github.com/backfill-hpc/backfill/internal/dist"
)

func newExp(rate float64, src rand.Source) dist.Exponential {
	return dist.NewExponential(rate, src)
}

// HyperErlang is a mixture of two Erlang distributions of the same order
// N: with probability P an Erlang(N, Rate1), else an Erlang(N, Rate2).
// With N = 1 it is a hyper-exponential, with P = 1 an Erlang. The
// variates come from package dist (Erlang = dist.Gamma with integer shape).
type HyperErlang struct {
	P            float64
	Rate1, Rate2 float64 // per-stage rates (1/s)
	N            int
}

// Mean is N·(P/Rate1 + (1−P)/Rate2).
func (h HyperErlang) Mean() float64 {
	return float64(h.N) * (h.P/h.Rate1 + (1-h.P)/h.Rate2)
}

// Moment returns E[X^k] for k = 1, 2, 3.
func (h HyperErlang) Moment(k int) float64 {
	c := 1.0
	for i := 0; i < k; i++ {
		c *= float64(h.N + i)
	}
	p1, p2 := 1.0, 1.0
	for i := 0; i < k; i++ {
		p1 /= h.Rate1
		p2 /= h.Rate2
	}
	return c * (h.P*p1 + (1-h.P)*p2)
}

// Sampler draws from h with the given sources: u chooses the branch, the
// Erlang variate is a dist.Gamma drawing from src.
type Sampler struct {
	h   HyperErlang
	u   dist.Bernoulli
	g1  dist.Gamma
	g2  dist.Gamma
	ok1 bool
	ok2 bool
}

// NewSampler returns a sampler of h drawing from src.
func (h HyperErlang) NewSampler(src rand.Source) *Sampler {
	s := &Sampler{h: h, u: dist.NewBernoulli(h.P, src)}
	if h.Rate1 > 0 {
		s.g1, s.ok1 = dist.NewGamma(float64(h.N), h.Rate1, src), true
	}
	if h.Rate2 > 0 {
		s.g2, s.ok2 = dist.NewGamma(float64(h.N), h.Rate2, src), true
	}
	return s
}

// Rand draws one variate.
func (s *Sampler) Rand() float64 {
	first := s.h.P >= 1 || (s.h.P > 0 && s.u.Rand() == 1)
	if (first && s.ok1) || !s.ok2 {
		return s.g1.Rand()
	}
	return s.g2.Rand()
}
