package kresource

import (
	"math/rand/v2"
	"testing"
)

// TestScoreIgnoresResourceOrder: BB's balance max_i(U_i+R_i) /
// mean_i(U_i+R_i) and the fullness 1 − mean_i(U_i+R_i) of a candidate must
// not depend on the order in which the machine lists its resources beyond
// the processors (names, not a tie rule; BL alone breaks ties between
// resources by index). The mean was summed in index order, so the same
// multiset of shares gave scores a rounding apart, and exactly tied
// candidates (ties by arrival) were ranked by that rounding instead:
// sim.TestResourcePermutation (audit, 2026-11-25; seed 231 of 300) found a job of bb-easy
// with fullness off starting at 377 or 367 with the resources listed in
// two orders (machine [8 36 24 18]). Here the scores themselves are
// compared, on random free vectors and requirements.
func TestScoreIgnoresResourceOrder(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 0x62627363))
	for i := 0; i < 20000; i++ {
		k := 2 + r.IntN(4)
		caps := make([]int, k)
		for j := range caps {
			caps[j] = 1 + r.IntN(64)
		}
		free := make([]int, k)
		need := make([]int, k)
		for j := range caps {
			free[j] = r.IntN(caps[j] + 1)
			need[j] = r.IntN(free[j] + 1)
		}
		perm := r.Perm(k - 1) // the processors stay first
		pcaps, pfree, pneed := []int{caps[0]}, []int{free[0]}, []int{need[0]}
		for _, p := range perm {
			pcaps, pfree, pneed = append(pcaps, caps[1+p]), append(pfree, free[1+p]), append(pneed, need[1+p])
		}
		for _, noFull := range []bool{false, true} {
			cfg := Config{Heuristic: BB, NoFullness: noFull}
			a, err := NewEASY(caps, cfg)
			if err != nil {
				t.Fatal(err)
			}
			b, err := NewEASY(pcaps, cfg)
			if err != nil {
				t.Fatal(err)
			}
			copy(a.free, free)
			copy(b.free, pfree)
			if sa, sb := a.score(need), b.score(pneed); sa != sb {
				t.Fatalf("caps %v free %v need %v: score %v; listed as caps %v free %v need %v: %v", caps, free, need, sa, pcaps, pfree, pneed, sb)
			}
		}
	}
}
