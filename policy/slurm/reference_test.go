package slurm

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/slurm"
)

// The backfill cycle written out from sched/backfill's documented
// algorithm (docs/policies.md, "The scheduler"), sharing no code with the
// policy but the job types: an independent check of the cycle's speed-ups
// (the candidates and pruning, the deferred holds, the search bounds by
// job shape, the shapes known to be beyond bf_window, the skipped repeated
// cycles, profile.Flat), which TestRepeatsExact* only compare with the
// same function with the speed-ups switched off (noDefer).
//
// refChecker wraps a Policy without limits or phases on one-CPU nodes and keeps its own account of
// the running and waiting jobs from the events it passes on. At each
// Tick it reads from the policy only whether the main scheduler and the
// backfill agent ran (their timing is not what is checked here), and
// recomputes what they must start:
//
//   - main scheduler: the waiting jobs in priority order, each that fits
//     the free CPUs starts, the first that does not stops the pass;
//   - backfill cycle: the first bf_max_job_test waiting jobs in priority
//     order, skipping those of a user who had bf_max_job_user jobs tested
//     in the cycle (they do not count); each is placed at its earliest start t ≥ now that fits the
//     running jobs (planned to end at their time limits; past it, without
//     kills, at now+1) and every start and reservation made before it in
//     the cycle; t = now starts it; t beyond now + bf_window makes no
//     reservation; otherwise it reserves its CPUs over
//     [t, max(t+1, ⌊(t+estimate)/bf_resolution⌋·bf_resolution)).
//
// The profile is a list of holds, the earliest fit a scan of the
// candidate instants (now and every hold's end), O(n²) per job.
type refChecker struct {
	s       *Policy
	procs   int
	sjf     bool
	mf      *slurm.Conf // with age or size weights: the multifactor priority, else nil
	noKill  bool
	running map[int]*refRun
	wait    []*job.Request
	err     error
	// what was checked
	mains, cycles, starts int
}

type refRun struct {
	j   *job.Request
	end int64 // planned end
}

// refHold is n CPUs held over [s, e).
type refHold struct {
	s, e int64
	n    int
}

func (c *refChecker) Name() string { return c.s.Name() }

func (c *refChecker) Insert(now int64, j *job.Request) {
	c.s.Insert(now, j)
	c.wait = append(c.wait, j)
}

func (c *refChecker) Remove(now int64, j *job.Request) {
	c.s.Remove(now, j)
	if _, ok := c.running[j.ID]; ok {
		delete(c.running, j.ID)
		return
	}
	if i := slices.Index(c.wait, j); i >= 0 {
		c.wait = slices.Delete(c.wait, i, i+1)
	}
}

// queue is the waiting jobs at now in priority order: every multifactor
// priority equal (Slurm's default weights, all 0), so arrival order (job
// ID); sjf (estimate, then arrival); or, with age and size weights
// (c.mf), the multifactor priority (refPriority), higher first, ties by
// arrival.
func (c *refChecker) queue(now int64) []*job.Request {
	q := slices.Clone(c.wait)
	slices.SortFunc(q, func(a, b *job.Request) int {
		if c.mf != nil {
			if pa, pb := refPriority(c.mf, c.procs, a, now), refPriority(c.mf, c.procs, b, now); pa != pb {
				return cmp.Compare(pb, pa)
			}
		}
		if c.sjf && a.Estimate != b.Estimate {
			return int(a.Estimate - b.Estimate)
		}
		return a.ID - b.ID
	})
	return q
}

// refPriority is j's multifactor priority at now with age and job-size
// weights only, on procs one-CPU nodes (docs/policies.md, "The
// priority"): W_age·age + W_size·size, truncated, at least 1, where age =
// min(1, (t − submit)/PriorityMaxAge) at the last calculation t ≤ now
// (calculations every PriorityCalcPeriod from 0; a job submitted since
// has age 0), and size = (P − n)/P with PriorityFavorSmall, else n/P.
func refPriority(c *slurm.Conf, procs int, j *job.Request, now int64) uint32 {
	var age, size float64
	if c.WeightAge > 0 {
		t := now / c.CalcPeriod * c.CalcPeriod
		if d := t - j.Submit; d > 0 {
			age = min(1, float64(d)/float64(c.MaxAge))
		}
	}
	if c.WeightJobSize > 0 {
		if c.FavorSmall {
			size = float64(procs-j.Procs) / float64(procs)
		} else {
			size = float64(j.Procs) / float64(procs)
		}
	}
	return uint32(max(1, age*float64(c.WeightAge)+size*float64(c.WeightJobSize)))
}

// refFree is the CPUs free at x beside holds.
func refFree(procs int, holds []refHold, x int64) int {
	f := procs
	for _, h := range holds {
		if h.s <= x && x < h.e {
			f -= h.n
		}
	}
	return f
}

// refFit is the earliest t ≥ now at which n CPUs are free over [t, t+d)
// beside holds: free CPUs only grow at a hold's end, so t is now or an
// end, and a window is checked at its start and at every hold start in it.
func refFit(procs int, holds []refHold, now, d int64, n int) int64 {
	cands := []int64{now}
	for _, h := range holds {
		if h.e > now {
			cands = append(cands, h.e)
		}
	}
	slices.Sort(cands)
	for _, t := range cands {
		ok := refFree(procs, holds, t) >= n
		for _, h := range holds {
			if ok && h.s > t && h.s < t+d {
				ok = refFree(procs, holds, h.s) >= n
			}
		}
		if ok {
			return t
		}
	}
	panic("unreachable: every hold ends")
}

func (c *refChecker) Tick(now int64, start func(*job.Request)) int64 {
	s := c.s
	sched0, full0, bf0 := s.lastSched, s.lastFull, s.lastBf
	var got []*job.Request
	wake := s.Tick(now, func(j *job.Request) {
		got = append(got, j)
		start(j)
	})
	mainRan := (s.lastSched == now && sched0 != now) || (s.lastFull == now && full0 != now)
	cycleRan := s.lastBf == now && bf0 != now
	if c.noKill {
		for _, r := range c.running {
			if r.end <= now {
				r.end = now + 1 // past its time limit: it may end at any moment
			}
		}
	}
	var holds []refHold
	free := c.procs
	for _, r := range c.running {
		holds = append(holds, refHold{now, r.end, r.j.Procs})
		free -= r.j.Procs
	}
	q := c.queue(now)
	var want []*job.Request
	if mainRan {
		c.mains++
		for len(q) > 0 && q[0].Procs <= free && free > 0 {
			want = append(want, q[0])
			holds = append(holds, refHold{now, now + q[0].Estimate, q[0].Procs})
			free -= q[0].Procs
			q = q[1:]
		}
	}
	if cycleRan {
		c.cycles++
		conf := s.c
		window := now + conf.BfWindow
		tested, byUser := 0, map[int32]int{}
		for _, j := range q {
			if tested >= conf.BfMaxJobTest {
				break
			}
			if conf.BfMaxJobUser > 0 && byUser[j.User] >= conf.BfMaxJobUser {
				continue // its user has had bf_max_job_user jobs tested
			}
			byUser[j.User]++
			tested++
			t := refFit(c.procs, holds, now, j.Estimate, j.Procs)
			switch {
			case t == now:
				want = append(want, j)
				holds = append(holds, refHold{now, now + j.Estimate, j.Procs})
			case t > window:
			default:
				e := max(t+1, (t+j.Estimate)/conf.BfResolution*conf.BfResolution)
				holds = append(holds, refHold{t, e, j.Procs})
			}
		}
	}
	if c.err == nil && !slices.Equal(got, want) {
		c.err = fmt.Errorf("at %d (main pass %v, backfill cycle %v): started %v, the reference starts %v; waiting %v, running %v",
			now, mainRan, cycleRan, ids(got), ids(want), ids(c.queue(now)), c.runningIDs())
	}
	c.starts += len(got)
	for _, j := range got {
		c.running[j.ID] = &refRun{j, now + j.Estimate}
		if i := slices.Index(c.wait, j); i >= 0 {
			c.wait = slices.Delete(c.wait, i, i+1)
		}
	}
	return wake
}

func ids(js []*job.Request) []int {
	var out []int
	for _, j := range js {
		out = append(out, j.ID)
	}
	return out
}

func (c *refChecker) runningIDs() string {
	var ks []int
	for k := range c.running {
		ks = append(ks, k)
	}
	slices.Sort(ks)
	out := ""
	for _, k := range ks {
		r := c.running[k]
		out += fmt.Sprintf(" %d(%d CPUs to %d)", k, r.j.Procs, r.end)
	}
	return out
}

// refWorkload is testgen.Adversarial, with, one workload in three, a
// share of the estimates stretched to around bf_window (the window's
// edge: earliest fits just inside and just beyond it), and one in four
// with every job submitted at 0.
func refWorkload(r *rand.Rand, window int64) ([]job.Job, int) {
	js, procs := testgen.Adversarial(r, !longtest.Short())
	for longtest.Short() && len(js) > 120 {
		js, procs = testgen.Adversarial(r, false) // the quick run: no queue of hundreds
	}
	switch r.IntN(4) {
	case 0:
		for i := range js {
			if r.IntN(4) == 0 {
				js[i].Estimate = max(1, window+int64(r.IntN(3)-1)*int64(1+r.IntN(10)))
				js[i].Runtime = min(js[i].Runtime, js[i].Estimate+int64(r.IntN(2)))
			}
		}
	case 1:
		for i := range js {
			js[i].Submit = 0
		}
	}
	return js, procs
}

// TestCycleEqualsReference compares the slurm policy's main passes and
// backfill cycles, start by start, with the reference above (refChecker)
// on adversarial workloads, in kill and no-kill modes, at the edges of
// the backfill parameters (bf_resolution of 1 s, of the workload's grid
// or not dividing it; bf_window as short as the estimates; few jobs
// tested; bf_interval of 1 s; bf_max_job_user, which takes the cycle's
// general loop), in arrival order, in sjf order and with multifactor
// priorities that change between cycles (age and size).
func TestCycleEqualsReference(t *testing.T) {
	n := 12
	if !longtest.Short() {
		n = 20 // (300 pass: 23 min on the shared machine, 2026-11-25)
	}
	var mains, cycles, starts, repeats int
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x726566))
		c := randomBackfillConf(r)
		if r.IntN(3) == 0 {
			c.SchedInterval = []int64{1, 7, 60}[r.IntN(3)]
		}
		if r.IntN(4) == 0 {
			c.BfMaxJobUser = 1 + r.IntN(3) // the general loop (not plain)
		}
		js, procs := refWorkload(r, c.BfWindow)
		sjf := r.IntN(3) == 0
		var mf *slurm.Conf
		if !sjf && r.IntN(2) == 0 {
			// priorities that change between cycles: age over a short
			// PriorityMaxAge, size, recalculated often
			c.WeightAge = int64(r.IntN(1000))
			c.WeightJobSize = int64(r.IntN(1000))
			c.FavorSmall = r.IntN(2) == 0
			c.MaxAge = []int64{10, 60, 600}[r.IntN(3)]
			c.CalcPeriod = []int64{1, 5, 30}[r.IntN(3)]
			mf = &c
		}
		lag := int64(r.IntN(2))
		for _, noKill := range []bool{false, true} {
			o := Options{Conf: c, EndLag: lag}
			if sjf {
				o.Order = policy.SJF
			}
			p := New(procs, o)
			if p.plain != (c.BfMaxJobUser == 0) || p.node || p.limited || p.ph != nil {
				t.Fatalf("seed %d: not the configuration meant (plain %v, single node %v, limits %v)", seed, p.plain, p.node, p.limited)
			}
			ck := &refChecker{s: p, procs: procs, sjf: sjf, mf: mf, noKill: noKill, running: map[int]*refRun{}}
			if _, err := sim.Run(js, ck, sim.Options{Procs: procs, NoKill: noKill}); err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			if ck.err != nil {
				t.Fatalf("seed %d (%d jobs, %d CPUs, bf_interval %d bf_resolution %d bf_window %d bf_max_job_test %d bf_max_job_user %d sched_interval %d, sjf %v, end lag %d, noKill %v): %v",
					seed, len(js), procs, c.BfInterval, c.BfResolution, c.BfWindow, c.BfMaxJobTest, c.BfMaxJobUser, c.SchedInterval, sjf, lag, noKill, ck.err)
			}
			mains, cycles, starts, repeats = mains+ck.mains, cycles+ck.cycles, starts+ck.starts, repeats+p.repeats
		}
	}
	t.Logf("%d main passes, %d backfill cycles (%d skipped as repeats), %d starts checked", mains, cycles, repeats, starts)
	if cycles == 0 || repeats == 0 {
		t.Error("no backfill cycle, or none skipped as a repeat: the reference checked nothing of the fast paths")
	}
}

// TestCycleEqualsReferenceDriven: refChecker on policytest.Drive's event
// streams, which also cancel waiting jobs anywhere in the queue (the
// head, jobs just submitted, jobs a past cycle held) and run jobs past
// their estimates; the policy's twin without speed-ups (noDefer) is
// Drive's second policy.
func TestCycleEqualsReferenceDriven(t *testing.T) {
	n, steps := 4, 100
	if !longtest.Short() {
		n, steps = 100, 200
	}
	cycles := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x726564))
		procs := []int{1, 4, 16, 64}[r.IntN(4)]
		c := randomShortWindowConf(r)
		a := New(procs, Options{Conf: c})
		b := New(procs, Options{Conf: c})
		b.noDefer = true
		ck := &refChecker{s: a, procs: procs, noKill: true, running: map[int]*refRun{}}
		if err := policytest.Drive(r, ck, b, procs, steps); err != nil {
			t.Fatalf("seed %d (%d procs, bf_interval %d bf_resolution %d bf_window %d bf_max_job_test %d): %v",
				seed, procs, c.BfInterval, c.BfResolution, c.BfWindow, c.BfMaxJobTest, err)
		}
		if ck.err != nil {
			t.Fatalf("seed %d (%d procs, bf_interval %d bf_resolution %d bf_window %d bf_max_job_test %d): %v",
				seed, procs, c.BfInterval, c.BfResolution, c.BfWindow, c.BfMaxJobTest, ck.err)
		}
		cycles += ck.cycles
	}
	if cycles == 0 {
		t.Error("no backfill cycle checked")
	}
}
