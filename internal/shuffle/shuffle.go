// Package shuffle drives a policy like package sim, with each instant's ends in random order.
//
// It drives a scheduling policy through a workload exactly as package sim
// does — through package engine, which checks every start — except that
// the ends of each instant are reported to the policy in a random order
// instead of increasing job ID. Tests use
// it to check that a policy's schedule does not depend on that order
// (docs/simulator.md, "Same-instant events"): the ends of an instant
// happen together, and the protocol of policy.Scheduler delivers them
// all before the instant's submissions and its pass.
package shuffle

import (
	"fmt"
	"math/rand/v2"
	"sort"

	"github.com/backfill-hpc/backfill/engine"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Options are sim.Options' switches that change events.
type Options struct {
	// NoKill lets jobs run past their estimates (sim.Options.NoKill).
	NoKill bool
	// Extend offers extensions to a policy.Extender (sim.Options.Extend):
	// the kill checks of an instant follow its ends, in increasing job ID
	// (they are decisions that take capacity one after the other, not
	// simultaneous events, so their order is the documented tie rule).
	Extend bool
}

// Run simulates jobs (IDs 0..N−1, non-decreasing submits) under sched and
// returns every job's start (−1 for a job an Admitter rejected). The ends
// of each instant are shuffled with r; with r nil they come in increasing
// job ID, as in package sim. The machine has procs processors and res
// units of the further resources (sim.Options.Res); the engine refuses a
// start that does not fit.
func Run(jobs []job.Job, sched policy.Scheduler, procs int, res []int, opt Options, r *rand.Rand) ([]int64, error) {
	eng, err := engine.New(sched, engine.Config{Procs: procs, Res: res, Extend: opt.Extend && !opt.NoKill, Jobs: len(jobs)})
	if err != nil {
		return nil, err
	}
	ext := eng.Extends()
	type end struct {
		t     int64
		id    int
		check bool
	}
	var ends []end // unsorted; small workloads only
	start := make([]int64, len(jobs))
	limit := make([]int64, len(jobs))
	for i := range start {
		start[i] = -1
	}
	next := 0
	wake := policy.NoWake
	var now int64
	startFn := func(q *job.Request) {
		id := q.ID
		start[id] = now
		j := &jobs[id]
		switch {
		case ext && j.Runtime > j.Estimate:
			limit[id] = now + j.Estimate
			ends = append(ends, end{t: limit[id], id: id, check: true})
		case !opt.NoKill && j.Runtime > j.Estimate:
			ends = append(ends, end{t: now + j.Estimate, id: id})
		default:
			ends = append(ends, end{t: now + j.Runtime, id: id})
		}
	}
	for {
		t := wake
		if next < len(jobs) && jobs[next].Submit < t {
			t = jobs[next].Submit
		}
		for _, e := range ends {
			t = min(t, e.t)
		}
		if t == policy.NoWake {
			break
		}
		now = t
		var due, checks, rest []end
		for _, e := range ends {
			switch {
			case e.t != now:
				rest = append(rest, e)
			case e.check:
				checks = append(checks, e)
			default:
				due = append(due, e)
			}
		}
		ends = rest
		sort.Slice(due, func(a, b int) bool { return due[a].id < due[b].id })
		sort.Slice(checks, func(a, b int) bool { return checks[a].id < checks[b].id })
		if r != nil {
			r.Shuffle(len(due), func(a, b int) { due[a], due[b] = due[b], due[a] })
		}
		for _, e := range due {
			if _, err := eng.End(now, &jobs[e.id].Request); err != nil {
				return nil, err
			}
		}
		for _, e := range checks {
			j := &jobs[e.id]
			x, err := eng.Extend(now, &j.Request)
			if err != nil {
				return nil, err
			}
			if x > 0 {
				limit[e.id] = now + x
				if end0 := start[e.id] + j.Runtime; end0 <= limit[e.id] {
					ends = append(ends, end{t: end0, id: e.id})
				} else {
					ends = append(ends, end{t: limit[e.id], id: e.id, check: true})
				}
				continue
			}
			if _, err := eng.End(now, &j.Request); err != nil {
				return nil, err
			}
		}
		for next < len(jobs) && jobs[next].Submit == now {
			if _, err := eng.Submit(now, &jobs[next].Request); err != nil {
				return nil, err
			}
			next++
		}
		if wake, err = eng.Pass(now, startFn); err != nil {
			return nil, err
		}
	}
	if eng.Waiting() > 0 || eng.Running() > 0 {
		return nil, fmt.Errorf("shuffle: %s: %d jobs waiting and %d running at the end", sched.Name(), eng.Waiting(), eng.Running())
	}
	return start, nil
}
