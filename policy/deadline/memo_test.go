package deadline

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// TestFitMemo: on random sequences of holds, releases and searches, a
// search started where the memo allows finds the earliest fit from now.
func TestFitMemo(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 3))
		procs := 1 + r.IntN(16)
		s := mustNew(t, "qops", procs, Defaults("qops"))
		s.fm.reset(memoCap)
		var held []*djob
		now := int64(r.IntN(5))
		for step := 0; step < 300; step++ {
			x := newJob(&job.Request{ID: step, Procs: 1 + r.IntN(procs), Estimate: int64(1 + r.IntN(40))}, 0)
			switch k := r.IntN(3); {
			case k == 0 && len(held) > 0:
				i := r.IntN(len(held))
				s.unhold(held[i], held[i].Start)
				held = append(held[:i], held[i+1:]...)
			default:
				want := s.run.Prof.EarliestFit(now, x.J.Estimate, x.J.Procs)
				got := s.memoFit(now, x)
				if got != want {
					t.Fatalf("seed %d step %d: memo fit %d, earliest fit %d", seed, step, got, want)
				}
				if k == 1 {
					x.Start = got
					s.hold(x, got)
					held = append(held, x)
				}
			}
		}
	}
}
