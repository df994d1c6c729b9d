package slack

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// TestWindowWorked, by hand, on 10 processors with the paper's §5.2
// parameters but AWT = 10 s: J0 (the whole machine, 100 s) runs from 0; A
// (the whole machine, 100 s) and B (the whole machine, 50 s), submitted at
// 1, wait at 100 and 200 (B at 100 would delay A by 50 s, beyond A's slack
// s0 = (1 − 1/3)·3·10 = 20 s: each waits ≥ 2·AWT, so SP = 1 and p = 1/3);
// X (the whole machine, 10 s) arrives at 2, p = 1/6, so a 10 s delay of A
// or B costs 10·10·(1/3)/(1/6) = 200.
//
// The paper's search (every waiting job): X at 100 delays A to 110 and B to
// 210, price 98·10 + 200 + 200 = 1380, against 198·10 + 200 at 200 (B
// delayed) and 248·10 at 250 (nobody delayed): X starts at 100.
//
// window=1: only A may move, B stays at 200. At 100, A delayed to 110 would
// run into B: no schedule; the slots end at A's (100), and the
// conservative slot is 250: X starts at 250, A at 100, B at 200.
// window=2 covers the queue: the paper's schedule.
func TestWindowWorked(t *testing.T) {
	jobs := []job.Job{
		{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: 10, Estimate: 100}, Runtime: 100},
		{Request: job.Request{ID: 1, SWFID: 2, Submit: 1, Procs: 10, Estimate: 100}, Runtime: 100},
		{Request: job.Request{ID: 2, SWFID: 3, Submit: 1, Procs: 10, Estimate: 50}, Runtime: 50},
		{Request: job.Request{ID: 3, SWFID: 4, Submit: 2, Procs: 10, Estimate: 10}, Runtime: 10},
	}
	for _, c := range []struct {
		spec    string
		x, a, b int64
	}{
		{"slack:awt=10", 100, 110, 210},
		{"slack:awt=10:window=2", 100, 110, 210},
		{"slack:awt=10:window=1", 250, 100, 200},
	} {
		s, err := policy.New(c.spec, 10)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(jobs, s, sim.Options{Procs: 10})
		if err != nil {
			t.Fatal(err)
		}
		got := [3]int64{res.Outcomes[3].Start, res.Outcomes[1].Start, res.Outcomes[2].Start}
		if got != [3]int64{c.x, c.a, c.b} {
			t.Errorf("%s: X, A, B start at %v, want %v", c.spec, got, [3]int64{c.x, c.a, c.b})
		}
	}
}

// TestWindowInvariants: with a window, on long queues (a few hundred jobs
// arriving faster than they run, early ends, every fifth job with a higher
// priority; the tick strategy's extensions on every other seed), no
// waiting job ever has negative slack or a slot after its
// bound te0 + s0, the outcome passes the audit (whose guarantee check reads
// the bounds), the search's exact cuts (lower bounds, settled jobs) change
// no decision inside the window, and a window at least as long as the
// queue ever gets is the paper's schedule.
func TestWindowInvariants(t *testing.T) {
	seeds, most := uint64(20), 300
	if longtest.Short() {
		seeds, most = 6, 120
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 37))
		spec, jobs, prm := longQueueCase(r, most)
		prm.Window = []int{1, 2, 3, 5, 8}[r.IntN(5)]
		if seed%3 == 0 {
			prm.Heuristic = Heuristic(1 + r.IntN(4)) // the general compression
		}
		a := New(spec.Procs, prm)
		b := New(spec.Procs, prm)
		b.noSettle = true
		b.noPrune = true
		// the tick strategy's extension (§4.7) on every other seed
		opt := sim.Options{Procs: spec.Procs, Extend: seed%2 == 1}
		ra, err := sim.Run(jobs, checked{a, t}, opt)
		if err != nil {
			t.Fatal(err)
		}
		rb, err := sim.Run(jobs, b, opt)
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			if ra.Outcomes[i].Start != rb.Outcomes[i].Start {
				t.Fatalf("seed %d window %d: job %d starts at %d with the cuts, %d without", seed, prm.Window, i, ra.Outcomes[i].Start, rb.Outcomes[i].Start)
			}
		}
		rep := audit.Audit(ra.Outcomes, audit.Options{Procs: spec.Procs, Kill: true, KnownRuntime: true, Expect: len(jobs)})
		if !rep.OK() {
			t.Fatalf("seed %d window %d: %s", seed, prm.Window, rep.String())
		}
		// a window the queue never exceeds: the paper's search
		full := prm
		full.Window = len(jobs)
		whole := prm
		whole.Window = 0
		rc, _ := sim.Run(jobs, New(spec.Procs, full), sim.Options{Procs: spec.Procs})
		rd, _ := sim.Run(jobs, New(spec.Procs, whole), sim.Options{Procs: spec.Procs})
		for i := range jobs {
			if rc.Outcomes[i].Start != rd.Outcomes[i].Start {
				t.Fatalf("seed %d: window %d (the whole queue): job %d starts at %d, %d without a window", seed, len(jobs), i, rc.Outcomes[i].Start, rd.Outcomes[i].Start)
			}
		}
	}
}

// TestWindowParam: window parses, appears in the name, and refuses
// negative values.
func TestWindowParam(t *testing.T) {
	s, err := policy.New("slack:window=8", 16)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name() != "slack:window=8" {
		t.Errorf("name %q", s.Name())
	}
	for _, v := range []string{"all", "0"} {
		s, err := policy.New("slack:window="+v, 16)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != "slack" {
			t.Errorf("window=%s: name %q, want slack", v, s.Name())
		}
	}
	if _, err := policy.New("slack:window=-1", 16); err == nil {
		t.Error("window=-1 accepted")
	}
}

// TestWindowCompressesRest, by hand: the jobs beyond the window use
// released capacity as conservative backfilling's compression would. On 10
// processors with AWT = 10 s, J0 (the whole machine, estimate 100) runs
// from 0 and ends at 10; A (the whole machine, 100 s) and B (5 processors,
// 50 s), submitted at 1, wait at 100 and 200 (B at 100 would delay A by
// 50 s, beyond its 20 s of slack). At 10, remove's search with window=1
// sees only A and moves it to 10; B, beyond the window, is then compressed
// to its earliest fit, 110 (A holds the machine until then). The paper's
// search gives the same schedule: compressing from now moves A by 90 s and
// B by 90 s (profit 300 + 150) against B alone by 190 s (316.7).
func TestWindowCompressesRest(t *testing.T) {
	jobs := []job.Job{
		{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: 10, Estimate: 100}, Runtime: 10},
		{Request: job.Request{ID: 1, SWFID: 2, Submit: 1, Procs: 10, Estimate: 100}, Runtime: 100},
		{Request: job.Request{ID: 2, SWFID: 3, Submit: 1, Procs: 5, Estimate: 50}, Runtime: 50},
	}
	for _, spec := range []string{"slack:awt=10", "slack:awt=10:window=1"} {
		s, err := policy.New(spec, 10)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(jobs, s, sim.Options{Procs: 10})
		if err != nil {
			t.Fatal(err)
		}
		if a, b := res.Outcomes[1].Start, res.Outcomes[2].Start; a != 10 || b != 110 {
			t.Errorf("%s: A starts at %d, B at %d; want 10 and 110", spec, a, b)
		}
	}
}
