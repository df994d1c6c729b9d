package lookahead_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/lookahead"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// literalLOS is lookahead backfilling as the package comment states it,
// for arrival order, written out without index or solver: the queue is a
// slice scanned from the front, the shadow time comes from the running
// jobs' estimated ends (now + 1 for a job past its estimate), and each
// window's set is found by trying every subset (the most processors used
// within free and, for jobs running past the shadow time, the extra
// processors; among the best, the smallest membership mask, i.e. the
// trace-back's preference for jobs nearer the head).
type literalLOS struct {
	procs, depth, cs int
	reserve          bool
	queue            []*job.Request
	running          map[*job.Request]int64
	skips            map[int]int
}

func (l *literalLOS) Name() string { return "literal-los" }

func (l *literalLOS) Insert(now int64, j *job.Request) { l.queue = append(l.queue, j) }

func (l *literalLOS) Remove(now int64, j *job.Request) {
	if _, ok := l.running[j]; ok {
		delete(l.running, j)
		return
	}
	l.queue = slices.DeleteFunc(l.queue, func(q *job.Request) bool { return q == j })
}

func (l *literalLOS) Tick(now int64, start func(*job.Request)) int64 {
	if l.running == nil {
		l.running, l.skips = map[*job.Request]int64{}, map[int]int{}
	}
	free := l.procs
	for j := range l.running {
		free -= j.Procs
	}
	taken := map[*job.Request]bool{}
	launch := func(j *job.Request) {
		free -= j.Procs
		l.running[j] = now
		taken[j] = true
		start(j)
	}
	defer func() {
		l.queue = slices.DeleteFunc(l.queue, func(q *job.Request) bool { return taken[q] })
	}()
	aged := func(j *job.Request) bool { return l.skips[j.ID] >= l.cs }
	hp := 0
	for hp < len(l.queue) && l.queue[hp].Procs <= free && aged(l.queue[hp]) {
		launch(l.queue[hp])
		hp++
	}
	if hp == len(l.queue) || free == 0 {
		return policy.NoWake
	}
	h := l.queue[hp]
	shadow, extra := int64(math.MaxInt64), free
	from := hp
	if h.Procs > free {
		from = hp + 1
		if l.reserve || aged(h) {
			type end struct {
				t int64
				n int
			}
			var ends []end
			for j, s := range l.running {
				ends = append(ends, end{max(s+j.Estimate, now+1), j.Procs})
			}
			slices.SortFunc(ends, func(a, b end) int { return int(a.t - b.t) })
			avail := free
			for _, e := range ends {
				avail += e.n
				if avail >= h.Procs {
					shadow = e.t
					break
				}
			}
			avail = free
			for _, e := range ends {
				if e.t <= shadow {
					avail += e.n
				}
			}
			extra = avail - h.Procs
		}
	}
	passed := false
	pos := from
	for free > 0 {
		xcap := min(extra, free)
		var win []*job.Request
		for ; pos < len(l.queue) && len(win) < l.depth; pos++ {
			j := l.queue[pos]
			if !taken[j] && j.Procs <= free && (j.Procs <= xcap || now+j.Estimate <= shadow) {
				win = append(win, j)
			}
		}
		if len(win) == 0 {
			break
		}
		best, mask := -1, 0
		for m := 0; m < 1<<len(win); m++ {
			tot, long := 0, 0
			for i, j := range win {
				if m&(1<<i) != 0 {
					tot += j.Procs
					if now+j.Estimate > shadow {
						long += j.Procs
					}
				}
			}
			if tot <= free && long <= max(0, xcap) && tot > best {
				best, mask = tot, m
			}
		}
		for i, j := range win {
			if mask&(1<<i) == 0 {
				continue
			}
			if now+j.Estimate > shadow {
				extra -= j.Procs
			}
			if j != h {
				passed = true
			}
			launch(j)
		}
		if len(win) < l.depth {
			break
		}
	}
	if passed && !taken[h] {
		l.skips[h.ID]++
	}
	return policy.NoWake
}

// TestLiteralLOS: lookahead (arrival order; depths 2 to 8; with and
// without the head's reservation; with and without aging) starts every
// job when lookahead written out literally (literalLOS) does, on
// testgen.Adversarial workloads in kill and no-kill modes and on
// policytest.Drive's event streams (cancellations anywhere in the queue):
// the windows handed out by the queue's index, the chained windows and
// the solver's tie rule must be the definition's.
func TestLiteralLOS(t *testing.T) {
	n := 15
	if !longtest.Short() {
		n = 250
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6c6f73))
		depth := []int{2, 3, 5, 8}[r.IntN(4)]
		reserve := r.IntN(3) != 0
		cs := []int{0, 2, 5, math.MaxInt}[r.IntN(4)]
		mk := func(procs int) (policy.Scheduler, policy.Scheduler) {
			return lookahead.New(procs, lookahead.Config{Depth: depth, Reserve: reserve, Cs: cs}),
				&literalLOS{procs: procs, depth: depth, cs: cs, reserve: reserve}
		}
		what := fmt.Sprintf("seed %d (depth %d, reserve %v, cs %d)", seed, depth, reserve, cs)
		jobs, procs := testgen.Adversarial(r, !longtest.Short())
		for _, noKill := range []bool{false, true} {
			a, b := mk(procs)
			ra, err := sim.Run(jobs, a, sim.Options{Procs: procs, NoKill: noKill})
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			rb, err := sim.Run(jobs, b, sim.Options{Procs: procs, NoKill: noKill})
			if err != nil {
				t.Fatalf("%s: literal: %v", what, err)
			}
			for i := range jobs {
				if ra.Outcomes[i].Start != rb.Outcomes[i].Start {
					j := jobs[i]
					t.Fatalf("%s (%d jobs, %d procs) noKill=%v: job %d (submit %d, %d procs, estimate %d, runtime %d) starts at %d (lookahead) vs %d (literal)",
						what, len(jobs), procs, noKill, i, j.Submit, j.Procs, j.Estimate, j.Runtime, ra.Outcomes[i].Start, rb.Outcomes[i].Start)
				}
			}
		}
		dp := []int{1, 4, 16, 64}[r.IntN(4)]
		a, b := mk(dp)
		if err := policytest.Drive(r, a, b, dp, 150); err != nil {
			t.Fatalf("%s, %d processors, driven: %v", what, dp, err)
		}
	}
}
