package slack

import (
	"math"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// TestSettledFromLastBlocked works settledFrom's τ by hand on 10
// processors at now = 0. The running jobs use all 10 processors over
// [0, 10) and 4 over [10, 40). Waiting, in AST order:
//
//	W0: 8 processors, 50 s, slot 40 — among the running jobs alone it fits
//	    first at 40 (efr = S): τ = +∞, it can never start earlier.
//	W1: 10 processors, 50 s, slot 95 — with W0 held it fits at 90 (its
//	    window [90, 95) is free): it can start earlier without any release,
//	    τ = −∞.
//	W2: 6 processors, 40 s, slot 145 — efr = 10 (6 free over [10, 40), 10
//	    from 40 among the running jobs alone). With W0 and W1 held the free
//	    processors are 6 over [10, 40), 2 over [40, 90), 10 over [90, 95), 0
//	    over [95, 145): no 40 s window before 145, so its base fit is its
//	    slot. The last instant of [efr, efr + d) = [10, 50) with fewer than 6
//	    free is 49: τ = 49. (The first form of the cut needed [49, 145) all
//	    blocked; the gap [90, 95) made it −∞.)
func TestSettledFromLastBlocked(t *testing.T) {
	s := New(10, DefaultParams())
	prof := s.run.Prof
	if err := prof.Add(0, 10, 6); err != nil {
		t.Fatal(err)
	}
	if err := prof.Add(0, 40, 4); err != nil {
		t.Fatal(err)
	}
	mk := func(id, n int, d, start int64) *sjob {
		return &sjob{J: &job.Request{ID: id, Procs: n, Estimate: d}, Need: n, Dur: d, Start: start, First: start}
	}
	W := []*sjob{mk(0, 8, 50, 40), mk(1, 10, 50, 95), mk(2, 6, 40, 145)}
	for _, w := range W {
		w.X.efr = prof.EarliestFitMoving(0, w.J.Estimate, w.J.Procs, w.Start)
	}
	if W[0].X.efr != 40 || W[1].X.efr != 40 || W[2].X.efr != 10 {
		t.Fatalf("efr = %d, %d, %d; want 40, 40, 10", W[0].X.efr, W[1].X.efr, W[2].X.efr)
	}
	s.settledFrom(0, W)
	want := []int64{math.MaxInt64, math.MinInt64, 49}
	for i, w := range W {
		if w.X.tau != want[i] {
			t.Errorf("W%d: τ = %d, want %d", i, w.X.tau, want[i])
		}
	}
	if W[2].X.base != 145 || W[1].X.base != 90 {
		t.Errorf("base fits %d, %d; want 90, 145", W[1].X.base, W[2].X.base)
	}
	// the suffix minima: W1's −∞ keeps every compression from ending
	// before it, W2 alone settles once every release lies before 49
	if s.settle[0] != math.MinInt64 || s.settle[1] != math.MinInt64 || s.settle[2] != 49 {
		t.Errorf("settle = %v", s.settle)
	}
	// settledFrom leaves every waiting job held
	if got := prof.FreeAt(100); got != 0 {
		t.Errorf("free at 100 = %d, want 0 (W1 held)", got)
	}
}
