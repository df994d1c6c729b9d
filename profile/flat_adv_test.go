package profile

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// TestFlatIsProfileAdversarial is TestFlatIsProfile with the shapes that
// break chunked copies: every time on a coarse grid (many holds starting
// and ending at the same instants, changes that cancel to 0), holds of
// the whole machine and of 1 processor, durations of 1 s, holds placed
// back to back at the same earliest fit (identical jobs) until chunks
// split again and again, holds starting at the origin, queries at, just
// before and just after the grid's instants with durations 0 and 1 and
// sizes 0, 1, all and more, and the same Flat loaded again from the
// profile at a later origin.
func TestFlatIsProfileAdversarial(t *testing.T) {
	var f Flat
	seeds := uint64(1500)
	if longtest.Short() {
		seeds = 150
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 0x666c6174))
		procs := []int{1, 2, 3, 16, 64}[r.IntN(5)]
		grid := int64([]int{1, 10}[r.IntN(2)])
		p := New(procs)
		if seed%2 == 0 {
			p.lim, p.fan = 4, 3
		}
		size := func() int {
			switch r.IntN(4) {
			case 0:
				return procs
			case 1:
				return 1
			}
			return 1 + r.IntN(procs)
		}
		dur := func() int64 {
			if r.IntN(4) == 0 {
				return 1
			}
			return grid * int64(1+r.IntN(8))
		}
		for k := r.IntN(200); k > 0; k-- {
			s := grid * int64(r.IntN(30))
			n := size()
			if d := dur(); p.Fits(s, d, n) {
				mustAdd(t, p, s, s+d, n)
			}
		}
		for load := 0; load < 3; load++ {
			origin := grid * int64(5+r.IntN(20)+10*load)
			f.Load(p, origin)
			for k := 0; k < 120; k++ {
				a := origin + grid*int64(r.IntN(40)) + int64(r.IntN(3)-1)
				a = max(a, origin)
				b := a + []int64{0, 1, grid, grid * int64(r.IntN(20))}[r.IntN(4)]
				if got, want := f.FreeAt(a), p.FreeAt(a); got != want {
					t.Fatalf("seed %d load %d: FreeAt(%d) = %d, want %d", seed, load, a, got, want)
				}
				if got, want := f.MinFree(a, b), p.MinFree(a, b); got != want {
					t.Fatalf("seed %d load %d: MinFree(%d, %d) = %d, want %d", seed, load, a, b, got, want)
				}
				d := []int64{0, 1, dur()}[r.IntN(3)]
				n := []int{0, 1, procs, procs + 1, size()}[r.IntN(5)]
				s := p.EarliestFit(a, d, n)
				if got := f.EarliestFit(a, d, n); got != s {
					t.Fatalf("seed %d load %d: EarliestFit(%d, %d, %d) = %d, want %d", seed, load, a, d, n, got, s)
				}
				if n < 1 || n > procs || d < 1 {
					continue
				}
				// an identical job after it, placed the same way, now and then
				for rep := 1 + r.IntN(2); rep > 0; rep-- {
					mustAdd(t, p, s, s+d, n)
					f.AddFitted(s, s+d, n)
					s = p.EarliestFit(a, d, n)
					if got := f.EarliestFit(a, d, n); got != s {
						t.Fatalf("seed %d load %d: after an identical hold, EarliestFit(%d, %d, %d) = %d, want %d", seed, load, a, d, n, got, s)
					}
				}
			}
		}
	}
}
