package profile

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkMove is the profile update of a compression's moves near
// saturation: 3,000 holds placed at their earliest fits on 8,192
// processors (about the profile of conservative backfilling on RICC at its
// original load: a few thousand breakpoints, a two-level tree), one in
// five released, and every remaining hold that can then start earlier
// moved there and back (two Moves per iteration, the profile unchanged
// after each pair).
func BenchmarkMove(b *testing.B) {
	p := New(8192)
	rng := rand.New(rand.NewPCG(22, 1))
	type hold struct {
		s, d int64
		n    int
	}
	hs := make([]hold, 0, 3000)
	for len(hs) < cap(hs) {
		n, d := 1+rng.IntN(512), int64(60+rng.IntN(36000))
		s := p.EarliestFit(int64(len(hs))*60, d, n)
		if err := p.Add(s, s+d, n); err != nil {
			b.Fatal(err)
		}
		hs = append(hs, hold{s, d, n})
	}
	type move struct {
		from, to, d int64
		n           int
	}
	var mv []move
	for i, h := range hs {
		if i%5 == 0 {
			if err := p.Remove(h.s, h.s+h.d, h.n); err != nil {
				b.Fatal(err)
			}
		}
	}
	for i, h := range hs {
		if i%5 == 0 {
			continue
		}
		if t := p.EarliestFitMoving(0, h.d, h.n, h.s); t < h.s {
			mv = append(mv, move{h.s, t, h.d, h.n})
		}
	}
	if len(mv) == 0 {
		b.Fatal("no hold can move")
	}
	b.ReportMetric(float64(p.Len()), "breakpoints")
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		m := mv[i%len(mv)]
		p.Move(m.from, m.to, m.d, m.n)
		p.Move(m.to, m.from, m.d, m.n)
	}
}
