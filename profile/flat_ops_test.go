package profile

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// TestFlatHoldsAnywhere is TestFlatIsProfile with the holds a backfill
// cycle places elsewhere than at the answer of the search just before
// (Slurm's deferred reservations, a start at the origin, a hold placed
// after another search or a query): each hold at a random instant where
// it fits, of a random size and length, sometimes after a search whose
// answer it does not start at, sometimes at that answer but after other
// holds were placed since (the search's place is then stale), sometimes
// at the answer of the search before a range query, at the answer but
// longer than the window searched (where it fits), and once, after the
// plan is loaded again, at the answer of the old plan's last search.
// Every query is
// compared with the profile's, and so are the free processors at every
// instant of the plan's span after each hold (a hold that broke a
// chunk's base or extremes shows there even where no search looks).
func TestFlatHoldsAnywhere(t *testing.T) {
	var f Flat
	seeds := uint64(2000)
	if longtest.Short() {
		seeds = 200
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x686f6c64))
		procs := []int{1, 2, 5, 16, 40}[r.IntN(5)]
		grid := int64([]int{1, 5}[r.IntN(2)])
		p := New(procs)
		if seed%2 == 0 {
			p.lim, p.fan = 4, 3
		}
		for k := r.IntN(120); k > 0; k-- {
			s := grid * int64(r.IntN(60))
			n := 1 + r.IntN(procs)
			if d := grid * int64(1+r.IntN(20)); p.Fits(s, d, n) {
				mustAdd(t, p, s, s+d, n)
			}
		}
		origin := grid * int64(10+r.IntN(20))
		f.Load(p, origin)
		span := origin + grid*80
		check := func(what string) {
			t.Helper()
			for a := origin; a <= span; a++ {
				if got, want := f.FreeAt(a), p.FreeAt(a); got != want {
					t.Fatalf("seed %d, %s: FreeAt(%d) = %d, want %d", seed, what, a, got, want)
				}
			}
		}
		hold := func(s, e int64, n int, what string) {
			t.Helper()
			mustAdd(t, p, s, e, n)
			f.AddFitted(s, e, n)
			check(what)
		}
		var fit, d int64
		var n int
		for k := 0; k < 60; k++ {
			a := origin + grid*int64(r.IntN(50))
			d = grid * int64(1+r.IntN(12))
			n = 1 + r.IntN(procs)
			fit = p.EarliestFit(a, d, n)
			if got := f.EarliestFit(a, d, n); got != fit {
				t.Fatalf("seed %d: EarliestFit(%d, %d, %d) = %d, want %d", seed, a, d, n, got, fit)
			}
			switch r.IntN(6) {
			case 5: // at the answer, longer than the window searched, where it fits
				if e := fit + d + 1 + int64(r.IntN(int(3*grid))); p.Fits(fit, e-fit, n) {
					hold(fit, e, n, "a hold at the answer beyond its window")
				}
			case 0: // a hold elsewhere, then one at the (now stale) answer if it still fits
				s := origin + grid*int64(r.IntN(50)) + int64(r.IntN(2))
				e := s + grid*int64(1+r.IntN(10))
				m := 1 + r.IntN(procs)
				if p.Fits(s, e-s, m) {
					hold(s, e, m, "a hold elsewhere")
				}
				if p.Fits(fit, d, n) {
					hold(fit, fit+d, n, "a hold at a stale answer")
				}
			case 1: // at the answer, after a range query and a free count
				if got, want := f.MinFree(origin, fit+d), p.MinFree(origin, fit+d); got != want {
					t.Fatalf("seed %d: MinFree(%d, %d) = %d, want %d", seed, origin, fit+d, got, want)
				}
				if got, want := f.FreeAt(fit), p.FreeAt(fit); got != want {
					t.Fatalf("seed %d: FreeAt(%d) = %d, want %d", seed, fit, got, want)
				}
				hold(fit, fit+1+int64(r.IntN(int(d))), n, "a hold at the answer after queries")
			case 2: // at the origin, where it fits
				e := origin + grid*int64(1+r.IntN(10))
				if m := 1 + r.IntN(procs); p.Fits(origin, e-origin, m) {
					hold(origin, e, m, "a hold at the origin")
				}
			case 3: // at a random instant where it fits, not after a search's answer
				s := origin + int64(r.IntN(int(span-origin)))
				e := s + 1 + int64(r.IntN(int(grid*15)))
				if m := 1 + r.IntN(procs); p.Fits(s, e-s, m) {
					hold(s, e, m, "a hold anywhere")
				}
			default: // at the answer
				hold(fit, fit+d, n, "a hold at the answer")
			}
		}
		// the plan loaded again (from the profile with the holds, at a
		// later origin), and a hold at the last search's answer in the
		// old plan without a search in the new one
		if origin = max(origin, fit-grid*int64(r.IntN(3))); fit >= origin {
			f.Load(p, origin)
			span = max(span, fit+d)
			if p.Fits(fit, d, n) {
				hold(fit, fit+d, n, "a hold after Load at the last plan's answer")
			}
		}
	}
}
