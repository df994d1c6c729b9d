package policy_test

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// planWatcher checks a policy.Planner against what the policy does: at
// each pass, every job planned at now starts at that pass, plans are never
// in the past, Planned agrees with Reservations, and (for the policies
// that keep a plan, in kill mode) a job's planned start never moves later
// and is its actual start.
type planWatcher struct {
	policy.Scheduler
	p        policy.Planner
	t        *testing.T
	monotone bool
	// inexact: the policy plans with predictions, corrected at the pass
	// itself, so a plan made before the pass may not be kept.
	inexact bool
	last    map[int]int64
}

func (w *planWatcher) Tick(now int64, start func(*job.Request)) int64 {
	due := map[int]bool{}
	prev := int64(-1)
	prevID := -1
	w.p.Reservations(now, func(j *job.Request, s int64) {
		if s < now {
			w.t.Fatalf("%s: job %d planned at %d, before now %d", w.Name(), j.ID, s, now)
		}
		if s < prev || (s == prev && j.ID < prevID) {
			w.t.Fatalf("%s: reservations out of (start, ID) order at job %d", w.Name(), j.ID)
		}
		prev, prevID = s, j.ID
		if got, ok := w.p.Planned(now, j); !ok || got != s {
			w.t.Fatalf("%s: Planned(job %d) = %d, %v; Reservations says %d", w.Name(), j.ID, got, ok, s)
		}
		if s == now {
			due[j.ID] = true
		}
		if w.monotone {
			if l, ok := w.last[j.ID]; ok && s > l {
				w.t.Fatalf("%s: job %d plan moved later, %d → %d", w.Name(), j.ID, l, s)
			}
			w.last[j.ID] = s
		}
	})
	wake := w.Scheduler.Tick(now, func(j *job.Request) {
		delete(due, j.ID)
		if w.monotone {
			if l, ok := w.last[j.ID]; ok && l != now {
				w.t.Fatalf("%s: job %d planned at %d started at %d", w.Name(), j.ID, l, now)
			}
		}
		start(j)
	})
	if len(due) > 0 && !w.inexact {
		w.t.Fatalf("%s: %d jobs planned at %d did not start", w.Name(), len(due), now)
	}
	return wake
}

func TestPlannerAgreesWithPolicy(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 11))
	specs := []struct {
		spec     string
		monotone bool
		inexact  bool
	}{
		{"conservative", true, false},
		{"easy", false, false},
		{"easy:depth=3", false, false},
		{"easy:order=sjf", false, false},
		{"easy++", false, true},
		{"slack", false, false},
	}
	for i := 0; i < 40; i++ {
		gs := testgen.Random(r)
		gs.Overrun = 0.2
		jobs := testgen.Jobs(r, gs)
		for _, sp := range specs {
			s, err := policy.New(sp.spec, gs.Procs)
			if err != nil {
				t.Fatal(err)
			}
			p, ok := s.(policy.Planner)
			if !ok {
				t.Fatalf("%s is not a policy.Planner", sp.spec)
			}
			w := &planWatcher{Scheduler: s, p: p, t: t, monotone: sp.monotone, inexact: sp.inexact, last: map[int]int64{}}
			if _, err := sim.Run(jobs, w, sim.Options{Procs: gs.Procs}); err != nil {
				t.Fatalf("%s: %v", sp.spec, err)
			}
		}
	}
}
