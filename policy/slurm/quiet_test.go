package slurm

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/slurm"
)

// script is a stream of submissions and cancellations of waiting jobs,
// fed to one policy at a time by play, which wakes it when it asks (as
// the simulator and the live service do): two policies woken at
// different instants can then be compared by what they start.
type script struct {
	jobs    []job.Request
	runtime []int64 // by job; past the estimate only without kills
	cancel  []int64 // by job: the instant it is cancelled if still waiting (-1: never)
	noKill  bool
}

// play runs s on sc and returns each job's start (-1: never, cancelled
// first) and the number of passes.
func play(s policy.Scheduler, sc *script) ([]int64, int) {
	n := len(sc.jobs)
	reqs := make([]job.Request, n)
	copy(reqs, sc.jobs)
	start := make([]int64, n)
	for i := range start {
		start[i] = -1
	}
	type state int
	const (
		later state = iota
		waiting
		running
		done
	)
	st := make([]state, n)
	end := make([]int64, n)
	wake := policy.NoWake
	next := 0 // the next submission
	passes := 0
	for {
		t := wake
		if next < n {
			t = min(t, reqs[next].Submit)
		}
		for i := range reqs {
			switch {
			case st[i] == running:
				t = min(t, end[i])
			case st[i] == waiting && sc.cancel[i] >= 0:
				t = min(t, sc.cancel[i])
			}
		}
		if t == policy.NoWake {
			break
		}
		// ends, then cancellations, then submissions, then one pass
		for i := range reqs {
			if st[i] == running && end[i] == t {
				st[i] = done
				s.Remove(t, &reqs[i])
			}
		}
		for i := range reqs {
			if st[i] == waiting && sc.cancel[i] == t {
				st[i] = done
				s.Remove(t, &reqs[i])
			}
		}
		for next < n && reqs[next].Submit == t {
			st[next] = waiting
			s.Insert(t, &reqs[next])
			next++
		}
		wake = s.Tick(t, func(j *job.Request) {
			st[j.ID] = running
			start[j.ID] = t
			rt := sc.runtime[j.ID]
			if !sc.noKill {
				rt = min(rt, j.Estimate)
			}
			end[j.ID] = t + rt
		})
		passes++
		if wake <= t {
			panic(fmt.Sprintf("wake-up %d at %d", wake, t))
		}
	}
	return start, passes
}

// TestQuietByHand, worked from Slurm's rules (package comment): ten
// 1-CPU nodes, arrival order, Slurm's defaults (sched_interval 60,
// bf_interval 30, batch_sched_delay 3). R (t=0, 8 CPUs, limit 10,000)
// starts at the first pass, 3; H (t=1, 10 CPUs, limit 100) waits for R's
// end; W (t=2, 2 CPUs, limit 20,000) fits the 2 free CPUs but would run
// into H's reservation. The cycle at 30 starts nothing; the next one
// waits for a change: X (t=100, 10 CPUs) gets a pass and a cycle at 100
// (nothing starts). H is cancelled at 105. Nothing is pending for the
// main scheduler (a cancellation is no request), the next cycle is due at
// 130, and the periodic pass at 120 starts W, now the first job, which
// fits: the policy must be woken at 120, not skip to 130 (quiet). X
// starts at W's end, 20,120.
func TestQuietByHand(t *testing.T) {
	sc := &script{
		jobs: []job.Request{
			{ID: 0, Submit: 0, Procs: 8, Estimate: 10000},
			{ID: 1, Submit: 1, Procs: 10, Estimate: 100},
			{ID: 2, Submit: 2, Procs: 2, Estimate: 20000},
			{ID: 3, Submit: 100, Procs: 10, Estimate: 100},
		},
		runtime: []int64{10000, 100, 20000, 100},
		cancel:  []int64{-1, 105, -1, -1},
	}
	for i := range sc.jobs {
		sc.jobs[i].User, sc.jobs[i].Group, sc.jobs[i].Queue, sc.jobs[i].Partition = 1, 1, -1, -1
	}
	for _, loud := range []bool{false, true} {
		s := New(10, Options{})
		s.loud = loud
		got, _ := play(s, sc)
		if want := []int64{3, -1, 120, 20120}; !slices.Equal(got, want) {
			t.Errorf("loud %v: starts %v, want %v", loud, got, want)
		}
	}
}

// TestQuietExact: skipping the idle wake-ups (quiet) changes no start,
// against the twin woken for every pass (loud), each policy woken when it
// asks, on streams with cancellations of waiting jobs anywhere in the
// queue (the head often), jobs ending early, at once, at their estimate
// or past it (without kills), bursts of identical jobs, and the
// configurations whose wake-ups quiet reasons about: sched_interval,
// bf_interval, priorities recalculated often (age, size, fair-share with
// decay) or never (every weight 0), an end lag of 0 or 1 s. It fails if
// no wake-up was skipped, and counts the passes saved.
func TestQuietExact(t *testing.T) {
	n := 60
	if !longtest.Short() {
		n = 600
	}
	quiets, passesQ, passesL := 0, 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x71756965))
		procs := []int{1, 4, 16, 64}[r.IntN(4)]
		c := slurm.DefaultConf()
		c.BfInterval = []int64{1, 5, 30, 90}[r.IntN(4)]
		c.SchedInterval = []int64{1, 7, 60}[r.IntN(3)]
		c.BatchSchedDelay = []int64{0, 3}[r.IntN(2)]
		if r.IntN(2) == 0 {
			c.BfWindow = 60 * int64(1+r.IntN(30))
		}
		if r.IntN(2) == 0 {
			c.WeightAge = int64(r.IntN(1000))
			c.WeightFairshare = int64(r.IntN(1000))
			c.WeightJobSize = int64(r.IntN(1000))
			c.MaxAge = []int64{10, 60, 600}[r.IntN(3)]
			c.CalcPeriod = []int64{1, 13, 30, 300}[r.IntN(4)]
			c.DecayHalfLife = []int64{0, 60, 3600}[r.IntN(3)]
		}
		lag := int64(r.IntN(2))
		sc := &script{noKill: r.IntN(2) == 0}
		now := int64(0)
		for i := 0; i < 40+r.IntN(80); i++ {
			now += []int64{0, 0, 1, 5, 30, 200}[r.IntN(6)]
			j := job.Request{ID: i, SWFID: int64(i + 1), Submit: now, User: int32(r.IntN(4)), Group: int32(r.IntN(2)), Queue: -1, Partition: -1}
			if i > 0 && r.IntN(4) == 0 {
				p := sc.jobs[i-1]
				j.Procs, j.Estimate = p.Procs, p.Estimate
			} else {
				j.Procs = []int{1, procs, 1 + r.IntN(procs)}[r.IntN(3)]
				j.Estimate = []int64{1, 60, 100 + r.Int64N(3000)}[r.IntN(3)]
			}
			var rt int64
			switch r.IntN(5) {
			case 0:
				rt = 0
			case 1, 2:
				rt = j.Estimate
			case 3:
				rt = r.Int64N(j.Estimate + 1)
			default:
				rt = j.Estimate + 1 + r.Int64N(200)
			}
			cancel := int64(-1)
			if r.IntN(4) == 0 {
				cancel = now + r.Int64N(600)
			}
			sc.jobs = append(sc.jobs, j)
			sc.runtime = append(sc.runtime, rt)
			sc.cancel = append(sc.cancel, cancel)
		}
		a := New(procs, Options{Conf: c, EndLag: lag})
		b := New(procs, Options{Conf: c, EndLag: lag})
		b.loud = true
		sa, pa := play(a, sc)
		sb, pb := play(b, sc)
		for i := range sa {
			if sa[i] != sb[i] {
				j := sc.jobs[i]
				t.Fatalf("seed %d (%d procs, %+v, end lag %d, no kill %v): job %d (submit %d, %d procs, estimate %d, runtime %d, cancel %d) starts at %d with idle wake-ups skipped, %d without",
					seed, procs, c, lag, sc.noKill, i, j.Submit, j.Procs, j.Estimate, sc.runtime[i], sc.cancel[i], sa[i], sb[i])
			}
		}
		quiets += a.quiets
		passesQ += pa
		passesL += pb
	}
	if quiets == 0 {
		t.Error("no idle wake-up was skipped")
	}
	t.Logf("%d wake-ups skipped; %d passes, %d without skipping", quiets, passesQ, passesL)
}
