package easy

import (
	"slices"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

var _ policy.Planner = (*Policy)(nil)

type planned struct {
	j     *job.Request
	start int64
}

// Reservations implements policy.Planner. EASY keeps no reservation
// between passes; this is the plan its next pass at now would make,
// computed without changing anything: the waiting jobs in queue order
// (the primary order for sjbf and sjf) each take their earliest fit after
// the ones before them, a job that fits at now planned to start at now,
// until depth jobs got a later reservation (with depth 1, the head's
// reservation at the shadow time). Jobs after that hold no reservation:
// EASY may backfill them at any pass.
func (e *Policy) Reservations(now int64, fn func(j *job.Request, start int64)) {
	for _, p := range e.planAt(now) {
		fn(p.j, p.start)
	}
}

// Planned implements policy.Planner.
func (e *Policy) Planned(now int64, j *job.Request) (int64, bool) {
	for _, p := range e.planAt(now) {
		if p.j == j {
			return p.start, true
		}
	}
	return 0, false
}

func (e *Policy) planAt(now int64) []planned {
	prof := e.run.Prof
	var out []planned
	reserved := 0
	visit := func(j *job.Request) bool {
		d := e.plan.Dur(j)
		t := prof.EarliestFit(now, d, j.Procs)
		if err := prof.Add(t, t+d, j.Procs); err != nil {
			panic("easy: " + err.Error()) // unreachable: EarliestFit found room
		}
		out = append(out, planned{j, t})
		if t > now {
			reserved++
		}
		return reserved < e.depth
	}
	if e.order == FCFS {
		for _, j := range e.queue[e.first:] {
			if j != nil && !visit(j) {
				break
			}
		}
	} else {
		for _, j := range e.primary() {
			if e.state[j.ID] == stWaiting && !visit(j) {
				break
			}
		}
	}
	for _, p := range out {
		_ = prof.Remove(p.start, p.start+e.plan.Dur(p.j), p.j.Procs)
	}
	slices.SortFunc(out, func(a, b planned) int {
		if a.start != b.start {
			if a.start < b.start {
				return -1
			}
			return 1
		}
		return a.j.ID - b.j.ID
	})
	return out
}
