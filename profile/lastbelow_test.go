package profile

import (
	"math/rand/v2"
	"testing"
)

// TestLastBelow checks LastBelow against FreeAt, instant by instant, on
// random profiles (a lone block and trees of several levels).
func TestLastBelow(t *testing.T) {
	tall := 0
	for seed := uint64(1); seed <= 60; seed++ {
		r := rand.New(rand.NewPCG(seed, 41))
		procs := 1 + r.IntN(16)
		p := New(procs)
		holds := r.IntN(1 + int(seed)*8)
		for i := 0; i < holds; i++ {
			s := int64(r.IntN(400))
			d := int64(1 + r.IntN(60))
			n := 1 + r.IntN(procs)
			if p.Fits(s, d, n) {
				if err := p.Add(s, s+d, n); err != nil {
					t.Fatal(err)
				}
			}
		}
		if p.height > 0 {
			tall++
		}
		for q := 0; q < 200; q++ {
			lo := int64(r.IntN(480)) - 20
			hi := lo + int64(r.IntN(120))
			n := r.IntN(procs + 2)
			want, wok := int64(0), false
			if n > 0 {
				for x := hi - 1; x >= lo; x-- {
					if p.FreeAt(x) < n {
						want, wok = x, true
						break
					}
				}
			}
			got, ok := p.LastBelow(lo, hi, n)
			if ok != wok || ok && got != want {
				t.Fatalf("seed %d: LastBelow(%d, %d, %d) = %d, %v; want %d, %v", seed, lo, hi, n, got, ok, want, wok)
			}
		}
	}
	if tall == 0 {
		t.Fatal("no profile had inner levels")
	}
}
