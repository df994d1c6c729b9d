package reservation

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// TestSkipIndex compares the index's queries with a scan of the list, on
// random lists and bases (a wrong descent or climb returns a position too
// early or too late, which the compression tests would only see as a
// slower pass, or not at all).
func TestSkipIndex(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	var ix skipIndex
	for trial := range 500 {
		n := r.IntN(70)
		w := make([]*Entry[int, struct{}], n)
		for k := range w {
			w[k] = &Entry[int, struct{}]{J: &job.Request{ID: k}, Need: 1 + r.IntN(20), Dur: int64(1 + r.IntN(20))}
		}
		base := 0
		if n > 0 {
			base = r.IntN(n + 1)
		}
		buildSkip(&ix, w, base)
		for range 40 {
			p := base + r.IntN(n-base+2)
			bound := 1 + r.IntN(22)
			want := n
			for k := p; k < n; k++ {
				if w[k].Need < bound {
					want = k
					break
				}
			}
			if got := ix.needBelow(p, bound); got != want {
				t.Fatalf("trial %d (n=%d base=%d): needBelow(%d, %d) = %d, want %d", trial, n, base, p, bound, got, want)
			}
			wantD := n
			for k := p; k < n; k++ {
				if w[k].Dur < int64(bound) {
					wantD = k
					break
				}
			}
			if got := ix.durBelow(p, int64(bound)); got != wantD {
				t.Fatalf("trial %d (n=%d base=%d): durBelow(%d, %d) = %d, want %d", trial, n, base, p, bound, got, wantD)
			}
		}
	}
}
