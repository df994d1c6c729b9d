package lookahead_test

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/policy/easy"
	"github.com/backfill-hpc/backfill/policy/lookahead"
	"github.com/backfill-hpc/backfill/sim"
)

func mk(jobs ...[4]int64) []job.Job {
	out := make([]job.Job, len(jobs))
	for i, x := range jobs {
		out[i] = job.Job{Request: job.Request{ID: i, SWFID: int64(i + 1), Submit: x[0], Procs: int(x[1]), Estimate: x[2],
			User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: x[3]}
	}
	return out
}

func simulate(t *testing.T, spec string, procs int, jobs []job.Job) []job.Outcome {
	t.Helper()
	s, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(jobs, s, sim.Options{Procs: procs})
	if err != nil {
		t.Fatal(err)
	}
	rep := audit.Audit(res.Outcomes, audit.Options{Procs: procs, Kill: true, KnownRuntime: true, Expect: len(jobs)})
	if !rep.OK() {
		t.Fatalf("%s: %s", spec, rep.String())
	}
	return res.Outcomes
}

// TestBetterPackingThanEASY is the hand-made case: 10 processors; J0 (6
// processors, 100 s) starts at 0; at 1 arrive J1 (8 processors), first in
// the queue, so its shadow time is 100 and 2 processors are extra; 4 are
// free. Behind it
// wait J2 (1 processor), J3 (2) and J4 (2), each 50 s, all ending before
// the shadow time. EASY's first fit starts J2 and J3 and leaves one
// processor idle (J4 no longer fits); lookahead starts J3 and J4, which
// use all four.
func TestBetterPackingThanEASY(t *testing.T) {
	jobs := mk(
		[4]int64{0, 6, 100, 100},
		[4]int64{1, 8, 100, 100},
		[4]int64{1, 1, 50, 50},
		[4]int64{1, 2, 50, 50},
		[4]int64{1, 2, 50, 50},
	)
	e := simulate(t, "easy", 10, jobs)
	l := simulate(t, "lookahead", 10, jobs)
	if e[2].Start != 1 || e[3].Start != 1 || e[4].Start == 1 {
		t.Errorf("EASY: starts %d %d %d, want J2 and J3 at 1 and J4 later", e[2].Start, e[3].Start, e[4].Start)
	}
	if l[3].Start != 1 || l[4].Start != 1 || l[2].Start == 1 {
		t.Errorf("lookahead: starts %d %d %d, want J3 and J4 at 1 and J2 later", l[2].Start, l[3].Start, l[4].Start)
	}
	if l[1].Start != 100 || e[1].Start != 100 {
		t.Errorf("the head must start at its shadow time 100: EASY %d, lookahead %d", e[1].Start, l[1].Start)
	}
	busy := func(o []job.Outcome, t0, t1 int64) int64 { // processor-seconds used in [t0, t1)
		var s int64
		for _, x := range o {
			a, b := max(x.Start, t0), min(x.End, t1)
			if b > a {
				s += (b - a) * int64(x.Procs)
			}
		}
		return s
	}
	if be, bl := busy(e, 1, 51), busy(l, 1, 51); bl != 500 || be != 450 {
		t.Errorf("processor-seconds used in [1, 51): EASY %d (want 450), lookahead %d (want 500)", be, bl)
	}
}

// TestReservationKept: the same queue, but J3 and J4 run past the shadow
// time; with 2 extra processors only one of them may start now, with J2.
func TestReservationKept(t *testing.T) {
	jobs := mk(
		[4]int64{0, 6, 100, 100},
		[4]int64{1, 8, 100, 100},
		[4]int64{1, 1, 50, 50},
		[4]int64{1, 2, 500, 500},
		[4]int64{1, 2, 500, 500},
	)
	l := simulate(t, "lookahead", 10, jobs)
	if l[1].Start != 100 {
		t.Errorf("head starts at %d, want its shadow time 100", l[1].Start)
	}
	if l[2].Start != 1 || l[3].Start != 1 || l[4].Start == 1 {
		t.Errorf("starts %d %d %d: want J2 and J3 now, J4 later (only 2 extra processors)", l[2].Start, l[3].Start, l[4].Start)
	}
}

// TestDepthOneIsEASY: with depth 1 and a head that starts whenever it fits
// (cs=0), every window holds one job and the DP keeps it iff it fits now
// and either ends by the shadow time or fits in the extra processors:
// EASY's two criteria. The schedules are identical job by job.
func TestDepthOneIsEASY(t *testing.T) {
	n := 300
	if longtest.Short() {
		n = 60
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 23))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		for _, noKill := range []bool{false, true} {
			a, err := sim.Run(jobs, easy.New(spec.Procs, easy.Config{Depth: 1}), sim.Options{Procs: spec.Procs, NoKill: noKill})
			if err != nil {
				t.Fatal(err)
			}
			b, err := sim.Run(jobs, lookahead.New(spec.Procs, lookahead.Config{Depth: 1, Reserve: true, Cs: 0}), sim.Options{Procs: spec.Procs, NoKill: noKill})
			if err != nil {
				t.Fatal(err)
			}
			for i := range jobs {
				if a.Outcomes[i].Start != b.Outcomes[i].Start {
					t.Fatalf("seed %d noKill=%v: job %d starts at %d (EASY) vs %d (lookahead depth 1)", seed, noKill, i, a.Outcomes[i].Start, b.Outcomes[i].Start)
				}
			}
		}
	}
}

// starvationWorkload: 4 processors; a stream of one-processor jobs of 20 s
// arrives two every 5 s from time 0 to 1000 (twice what the machine can
// serve), and a whole-machine job W arrives at time 2 behind the first
// ones. Returns the jobs and W's index.
func starvationWorkload() ([]job.Job, int) {
	var x [][4]int64
	w := -1
	for t := int64(0); t <= 1000; t += 5 {
		x = append(x, [4]int64{t, 1, 20, 20}, [4]int64{t, 1, 20, 20})
		if t == 0 {
			x = append(x, [4]int64{2, 4, 100, 100})
			w = len(x) - 1
		}
	}
	// keep submit times non-decreasing: W (t=2) goes after the t=0 pair
	return mk(x...), w
}

// TestUnreservedStarves: the seed paper's plain DP (no reservation) keeps
// filling every freed processor with small jobs, so without aging the
// whole-machine job waits until the stream has drained; with aging (its
// skip count reaching cs) it is reserved and starts soon; LOS reserves it
// at once.
func TestUnreservedStarves(t *testing.T) {
	jobs, w := starvationWorkload()
	last := int64(0) // the latest start of a small job under the starving policy
	starved := simulate(t, "lookahead:reserve=false:cs=inf", 4, jobs)
	for i, o := range starved {
		if i != w {
			last = max(last, o.Start)
		}
	}
	if starved[w].Start < last {
		t.Errorf("no aging: W starts at %d, before the last small job (%d): it did not starve", starved[w].Start, last)
	}
	if starved[w].Start < 1000 {
		t.Errorf("no aging: W starts at %d, want after the stream (1000)", starved[w].Start)
	}
	aged := simulate(t, "lookahead:reserve=false:cs=3", 4, jobs)
	los := simulate(t, "lookahead", 4, jobs)
	if aged[w].Start > 100 {
		t.Errorf("aging cs=3: W starts at %d, want within 100 s", aged[w].Start)
	}
	if los[w].Start > 40 {
		t.Errorf("LOS: W starts at %d, want by 40 (its reservation)", los[w].Start)
	}
	t.Logf("W waits: no aging %d s, aging cs=3 %d s, LOS %d s", starved[w].Wait(), aged[w].Wait(), los[w].Wait())
}

// TestNames: every parameter round-trips through the registry.
func TestNames(t *testing.T) {
	for _, spec := range []string{"lookahead", "lookahead:depth=all", "lookahead:depth=7:reserve=false:cs=inf:order=sjf", "lookahead:cs=0"} {
		s, err := policy.New(spec, 16)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != spec {
			t.Errorf("%s: Name() = %s", spec, s.Name())
		}
	}
	for _, bad := range []string{"lookahead:depth=0", "lookahead:reserve=maybe", "lookahead:cs=-1", "lookahead:order=lifo", "lookahead:window=3"} {
		if _, err := policy.New(bad, 16); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
	_ = math.MaxInt
}
