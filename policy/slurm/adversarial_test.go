package slurm

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/slurm"
)

// TestRepeatsExactAdversarial is TestRepeatsExact on testgen.Adversarial
// workloads (ends and submissions in the same second, identical jobs,
// whole-machine jobs, runtime = estimate or 0, estimates of 1 s, queues
// of hundreds) at the edges of the backfill parameters: bf_resolution of
// 1 s, of the workload's grid, or not dividing it; windows as short as
// the estimates; one job tested; bf_interval of 1 s; multifactor
// priorities that change between cycles (age over a short
// PriorityMaxAge, fair-share with decay, size, frequent recalculation);
// an end lag of 0 or 1 s; in kill and no-kill modes. The cycle plans in a profile.Flat and skips repeated cycles;
// the twin (noDefer, loud) places every hold at once, tests every job,
// runs every cycle and is woken for every pass, idle or not (quiet).
func TestRepeatsExactAdversarial(t *testing.T) {
	n := 30
	if !longtest.Short() {
		n = 500
	}
	repeats, quiets := 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x736c7572))
		js, procs := testgen.Adversarial(r, !longtest.Short())
		c := randomBackfillConf(r)
		if r.IntN(2) == 0 {
			// priorities that change between cycles: age over a short
			// PriorityMaxAge, fair-share, size, recalculated often
			c.WeightAge = int64(r.IntN(1000))
			c.WeightFairshare = int64(r.IntN(1000))
			c.WeightJobSize = int64(r.IntN(1000))
			c.FavorSmall = r.IntN(2) == 0
			c.MaxAge = []int64{10, 60, 600}[r.IntN(3)]
			c.CalcPeriod = []int64{1, 5, 30}[r.IntN(3)]
			c.DecayHalfLife = []int64{0, 60, 3600}[r.IntN(3)]
		}
		lag := int64(r.IntN(2))
		for _, noKill := range []bool{false, true} {
			a := New(procs, Options{Conf: c, EndLag: lag})
			b := New(procs, Options{Conf: c, EndLag: lag})
			b.noDefer = true
			b.loud = true
			if i, sa, sb := firstDifferentStart(t, js, a, b, sim.Options{Procs: procs, NoKill: noKill}); i >= 0 {
				j := js[i]
				t.Fatalf("seed %d (%d jobs, %d procs, bf_interval %d bf_resolution %d bf_window %d bf_max_job_test %d, weights age %d fairshare %d size %d favor small %v max age %d calc %d half-life %d, end lag %d, noKill %v): job %d (submit %d, %d procs, estimate %d, runtime %d) starts at %d with the speed-ups, %d without",
					seed, len(js), procs, c.BfInterval, c.BfResolution, c.BfWindow, c.BfMaxJobTest, c.WeightAge, c.WeightFairshare, c.WeightJobSize, c.FavorSmall, c.MaxAge, c.CalcPeriod, c.DecayHalfLife, lag, noKill, i, j.Submit, j.Procs, j.Estimate, j.Runtime, sa, sb)
			}
			repeats += a.repeats
			quiets += a.quiets
		}
	}
	if repeats == 0 {
		t.Error("no cycle was skipped as a repeat")
	}
	if quiets == 0 {
		t.Error("no idle wake-up was skipped")
	}
}

// TestRepeatsExactDriven: the slurm policy against its twin without
// speed-ups (noDefer) on policytest.Drive's event streams, which also
// cancel waiting jobs anywhere in the queue (the head, jobs just
// submitted, jobs a past cycle tested or held) and call every pass the
// policies ask for.
func TestRepeatsExactDriven(t *testing.T) {
	n := 10
	if !longtest.Short() {
		n = 200
	}
	repeats := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x7364))
		procs := []int{1, 4, 16, 64}[r.IntN(4)]
		c := randomShortWindowConf(r)
		if r.IntN(2) == 0 {
			c.WeightAge, c.WeightJobSize, c.MaxAge, c.CalcPeriod = 1000, int64(r.IntN(1000)), 60, 5
		}
		a := New(procs, Options{Conf: c})
		b := New(procs, Options{Conf: c})
		b.noDefer = true
		if err := policytest.Drive(r, a, b, procs, 300); err != nil {
			t.Fatalf("seed %d (%d procs, bf_interval %d bf_resolution %d bf_window %d bf_max_job_test %d, weights age %d size %d): %v",
				seed, procs, c.BfInterval, c.BfResolution, c.BfWindow, c.BfMaxJobTest, c.WeightAge, c.WeightJobSize, err)
		}
		repeats += a.repeats
	}
	if repeats == 0 {
		t.Error("no cycle was skipped as a repeat")
	}
}

// randomBackfillConf is Slurm's default configuration with the backfill
// cycle's parameters drawn from r: bf_interval, bf_resolution, bf_window
// (the default, a few minutes or up to half an hour) and, in one draw of
// three, a small bf_max_job_test.
func randomBackfillConf(r *rand.Rand) slurm.Conf {
	c := slurm.DefaultConf()
	c.BfInterval = []int64{1, 2, 5, 30}[r.IntN(4)]
	c.BfResolution = []int64{1, 5, 7, 10, 60}[r.IntN(5)]
	switch r.IntN(3) {
	case 0:
		c.BfWindow = 60 * int64(1+r.IntN(3))
	case 1:
		c.BfWindow = 60 * int64(1+r.IntN(30))
	}
	if r.IntN(3) == 0 {
		c.BfMaxJobTest = []int{1, 2, 10}[r.IntN(3)]
	}
	return c
}

// randomShortWindowConf is randomBackfillConf's draw for the short
// streams of policytest.Drive: bf_window is the default or a few minutes
// (one draw in two), never the half hour.
func randomShortWindowConf(r *rand.Rand) slurm.Conf {
	c := slurm.DefaultConf()
	c.BfInterval = []int64{1, 2, 5, 30}[r.IntN(4)]
	c.BfResolution = []int64{1, 5, 7, 10, 60}[r.IntN(5)]
	if r.IntN(2) == 0 {
		c.BfWindow = 60 * int64(1+r.IntN(3))
	}
	if r.IntN(3) == 0 {
		c.BfMaxJobTest = []int{1, 2, 10}[r.IntN(3)]
	}
	return c
}

// firstDifferentStart runs js under a and under b (a policy and its twin)
// with the same options and returns the first job whose start differs and
// its two starts, or i = -1 when every start agrees; a run that fails
// fails the test.
func firstDifferentStart(t *testing.T, js []job.Job, a, b *Policy, opt sim.Options) (i int, sa, sb int64) {
	t.Helper()
	ra, err := sim.Run(js, a, opt)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := sim.Run(js, b, opt)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ra.Outcomes {
		if ra.Outcomes[i].Start != rb.Outcomes[i].Start {
			return i, ra.Outcomes[i].Start, rb.Outcomes[i].Start
		}
	}
	return -1, 0, 0
}
