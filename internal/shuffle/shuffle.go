// Package shuffle drives a policy like package sim, with each instant's ends in random order.
//
// It drives a scheduling policy through a workload exactly
// as package sim does, except that the ends of each instant are reported
// to the policy in a random order instead of increasing job ID. Tests use
// it to check that a policy's schedule does not depend on that order
// (docs/simulator.md, "Same-instant events"): the ends of an instant
// happen together, and the protocol of policy.Scheduler delivers them
// all before the instant's submissions and its pass.
package shuffle

import (
	"fmt"
	"math/rand/v2"
	"sort"

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
// job ID, as in package sim. Run checks no capacity: compare its result
// with an audited sim.Run.
func Run(jobs []job.Job, sched policy.Scheduler, opt Options, r *rand.Rand) ([]int64, error) {
	adm, _ := sched.(policy.Admitter)
	var ext policy.Extender
	if opt.Extend && !opt.NoKill {
		ext, _ = sched.(policy.Extender)
	}
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
	waiting := make([]bool, len(jobs))
	nWaiting, next := 0, 0
	wake := policy.NoWake
	var now int64
	var err error
	startFn := func(q *job.Request) {
		if err != nil {
			return
		}
		id := q.ID
		if id < 0 || id >= len(jobs) || !waiting[id] {
			err = fmt.Errorf("shuffle: %s started job %d, which is not waiting, at %d", sched.Name(), id, now)
			return
		}
		waiting[id] = false
		nWaiting--
		start[id] = now
		j := &jobs[id]
		switch {
		case ext != nil && j.Runtime > j.Estimate:
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
			sched.Remove(now, &jobs[e.id].Request)
		}
		for _, e := range checks {
			j := &jobs[e.id]
			if x := ext.Extend(now, &j.Request); x > 0 {
				limit[e.id] = now + x
				if end0 := start[e.id] + j.Runtime; end0 <= limit[e.id] {
					ends = append(ends, end{t: end0, id: e.id})
				} else {
					ends = append(ends, end{t: limit[e.id], id: e.id, check: true})
				}
				continue
			}
			sched.Remove(now, &j.Request)
		}
		for next < len(jobs) && jobs[next].Submit == now {
			j := &jobs[next]
			waiting[next] = true
			nWaiting++
			sched.Insert(now, &j.Request)
			if adm != nil {
				if ok, _ := adm.Admitted(&j.Request); !ok {
					waiting[next] = false
					nWaiting--
				}
			}
			next++
		}
		wake = sched.Tick(now, startFn)
		if err != nil {
			return nil, err
		}
		if wake <= now {
			return nil, fmt.Errorf("shuffle: %s asked to be woken at %d, not after %d", sched.Name(), wake, now)
		}
		if nWaiting > 0 && len(ends) == 0 && next == len(jobs) && wake == policy.NoWake {
			return nil, fmt.Errorf("shuffle: %s leaves %d jobs waiting at %d", sched.Name(), nWaiting, now)
		}
	}
	return start, nil
}
