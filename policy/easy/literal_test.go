package easy_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/easy"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/predict"
	"github.com/backfill-hpc/backfill/sim"
)

// TestLiteralEASY: EASY (depth 1, with its fit index), and its orders
// sjbf and sjf, start every job when the EASY of the papers written out
// literally (policytest.LiteralEASY: scan the queue, shadow time and
// extra nodes from the running jobs' estimated ends, backfill iff it fits
// now and ends by the shadow or uses no more than the extra nodes) does,
// on adversarial workloads (testgen.Adversarial: many ends and
// submissions in one second, identical jobs, runtime = estimate, runtime
// 0, estimates of 1 s, whole-machine jobs, queues of hundreds) and on
// testgen's random ones, in kill and no-kill modes, with the estimates and
// with history predictions (EASY++'s, and history-1 corrected stepwise).
func TestLiteralEASY(t *testing.T) {
	n := 20
	if !longtest.Short() {
		n = 250
	}
	plans := []func() *predict.Plan{
		func() *predict.Plan { return nil },
		func() *predict.Plan { return easy.PlusPlus().Plan },
		func() *predict.Plan { return predict.NewPlan(predict.NewHistory(1), predict.Step{}) },
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6c6974))
		var jobs []job.Job
		var procs int
		if seed%4 == 0 {
			spec := testgen.Random(r)
			jobs, procs = testgen.Jobs(r, spec), spec.Procs
		} else {
			jobs, procs = testgen.Adversarial(r, !longtest.Short())
		}
		for c, order := range []easy.Order{easy.FCFS, easy.SJBF, easy.SJF} {
			noKill := (seed+uint64(c))%2 == 1
			for pi, plan := range plans {
				what := fmt.Sprintf("seed %d, order %s, plan %d, noKill %v, %d jobs on %d processors", seed, order, pi, noKill, len(jobs), procs)
				got := run(t, what, jobs, procs, noKill, easy.New(procs, easy.Config{Depth: 1, Order: order, Plan: plan()}))
				want := run(t, what, jobs, procs, noKill, &policytest.LiteralEASY{Caps: []int{procs}, SJBF: order == easy.SJBF, SJF: order == easy.SJF, Plan: plan()})
				for i := range jobs {
					if got[i].Start != want[i].Start {
						t.Fatalf("%s: job %d (submit %d, %d procs, estimate %d, runtime %d) starts at %d, literal EASY at %d",
							what, i, jobs[i].Submit, jobs[i].Procs, jobs[i].Estimate, jobs[i].Runtime, got[i].Start, want[i].Start)
					}
				}
			}
		}
	}
}

func run(t *testing.T, what string, jobs []job.Job, procs int, noKill bool, s policy.Scheduler) []job.Outcome {
	t.Helper()
	res, err := sim.Run(jobs, s, sim.Options{Procs: procs, NoKill: noKill})
	if err != nil {
		t.Fatalf("%s: %s: %v", what, s.Name(), err)
	}
	return res.Outcomes
}

// TestLiteralEASYDriven compares easy (fcfs, sjbf, sjf; estimates and
// EASY++'s predictions) with the literal EASY on the event streams of
// policytest.Drive, which cancel waiting jobs (the head, jobs just
// submitted, jobs anywhere in a queue of hundreds): the fit index's
// holes and compaction, and the sorted queues, must follow, whether the
// backfill scan walks the queue or descends the fit index (forced either
// way, and switching at a low threshold).
func TestLiteralEASYDriven(t *testing.T) {
	n := 8
	if !longtest.Short() {
		n = 200
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for c, order := range []easy.Order{easy.FCFS, easy.SJBF, easy.SJF} {
			for pi, plan := range []func() *predict.Plan{
				func() *predict.Plan { return nil },
				func() *predict.Plan { return easy.PlusPlus().Plan },
			} {
				// the queue scanned below the index's threshold, the fit
				// index from the first job on, and the default (both,
				// switching as the queue grows and empties)
				for _, from := range []int{-1, 0, 8} {
					restore := easy.SetIndexFrom(from)
					r := rand.New(rand.NewPCG(seed, uint64(10*c+pi)))
					procs := []int{1, 4, 16, 64}[r.IntN(4)]
					a := easy.New(procs, easy.Config{Depth: 1, Order: order, Plan: plan()})
					b := &policytest.LiteralEASY{Caps: []int{procs}, SJBF: order == easy.SJBF, SJF: order == easy.SJF, Plan: plan()}
					err := policytest.Drive(r, a, b, procs, 200)
					restore()
					if err != nil {
						t.Fatalf("seed %d, order %s, plan %d, %d processors, index from %d: %v", seed, order, pi, procs, from, err)
					}
				}
			}
		}
	}
}

// TestLiteralDepth: EASY with reservations for the first 2 to 5 waiting
// jobs (the profile route; for sjbf and sjf the duration-ordered treap's
// walk) starts every job when the same rule written out with a list of
// holds (policytest.LiteralDepth) does, on adversarial workloads in kill
// and no-kill modes and on policytest.Drive's streams (cancellations),
// with the estimates and EASY++'s predictions.
func TestLiteralDepth(t *testing.T) {
	n := 10
	if !longtest.Short() {
		n = 400
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		for c, order := range []easy.Order{easy.FCFS, easy.SJBF, easy.SJF} {
			r := rand.New(rand.NewPCG(seed, uint64(0x6470+c)))
			depth := 2 + r.IntN(4)
			var plan func() *predict.Plan = func() *predict.Plan { return nil }
			if r.IntN(2) == 0 {
				plan = func() *predict.Plan { return easy.PlusPlus().Plan }
			}
			mk := func(procs int) (*easy.Policy, *policytest.LiteralDepth) {
				return easy.New(procs, easy.Config{Depth: depth, Order: order, Plan: plan()}),
					&policytest.LiteralDepth{Procs: procs, Depth: depth, SJBF: order == easy.SJBF, SJF: order == easy.SJF, Plan: plan()}
			}
			jobs, procs := testgen.Adversarial(r, false)
			noKill := r.IntN(2) == 0
			what := fmt.Sprintf("seed %d, order %s, depth %d, %s, noKill %v, %d jobs on %d processors", seed, order, depth, easy.New(1, easy.Config{Depth: depth, Order: order, Plan: plan()}).Name(), noKill, len(jobs), procs)
			a, b := mk(procs)
			got := run(t, what, jobs, procs, noKill, a)
			want := run(t, what, jobs, procs, noKill, b)
			for i := range jobs {
				if got[i].Start != want[i].Start {
					t.Fatalf("%s: job %d (submit %d, %d procs, estimate %d, runtime %d) starts at %d, literal at %d",
						what, i, jobs[i].Submit, jobs[i].Procs, jobs[i].Estimate, jobs[i].Runtime, got[i].Start, want[i].Start)
				}
			}
			dp := []int{1, 4, 16, 64}[r.IntN(4)]
			a, b = mk(dp)
			if err := policytest.Drive(r, a, b, dp, 120); err != nil {
				t.Fatalf("%s, driven on %d processors: %v", what, dp, err)
			}
		}
	}
}
