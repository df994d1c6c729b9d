package profile

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// TestFlatIsProfile: a Flat loaded from a profile (small blocks too, so
// that it spans several) answers FreeAt, MinFree and EarliestFit as the
// profile does from its origin on, and after holds placed in both (at
// earliest fits, as a backfill cycle places them, and in part of the
// window) still does.
func TestFlatIsProfile(t *testing.T) {
	var f Flat
	seeds := uint64(3000)
	if longtest.Short() {
		seeds = 300
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 31))
		procs := 1 + r.IntN(40)
		p := New(procs)
		if seed%2 == 0 {
			p.lim, p.fan = 4, 3
		}
		// running jobs: holds from before the origin on
		for k := r.IntN(150); k > 0; k-- {
			s := int64(r.IntN(200))
			n := 1 + r.IntN(procs)
			if e := s + 1 + int64(r.IntN(300)); p.Fits(s, e-s, n) {
				mustAdd(t, p, s, e, n)
			}
		}
		origin := int64(100 + r.IntN(100))
		f.Load(p, origin)
		for k := 0; k < 100; k++ {
			a := origin + int64(r.IntN(400))
			b := a + int64(r.IntN(120))
			if got, want := f.FreeAt(a), p.FreeAt(a); got != want {
				t.Fatalf("seed %d: FreeAt(%d) = %d, want %d", seed, a, got, want)
			}
			if got, want := f.MinFree(a, b), p.MinFree(a, b); got != want {
				t.Fatalf("seed %d: MinFree(%d, %d) = %d, want %d", seed, a, b, got, want)
			}
			d, n := int64(r.IntN(150)), r.IntN(procs+2)
			s := p.EarliestFit(a, d, n)
			if got := f.EarliestFit(a, d, n); got != s {
				t.Fatalf("seed %d: EarliestFit(%d, %d, %d) = %d, want %d", seed, a, d, n, got, s)
			}
			if n < 1 || n > procs || d < 1 {
				continue
			}
			e := s + 1 + int64(r.IntN(int(d)))
			mustAdd(t, p, s, e, n)
			f.AddFitted(s, e, n)
		}
	}
}
