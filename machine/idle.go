package machine

import (
	"cmp"
	"slices"

	"github.com/backfill-hpc/backfill/job"
)

// Idle measures the capacity left unused while jobs waited, from a
// schedule's outcomes on procs cores: between consecutive events (a
// submission, a start, an end), when at least one job waits (submitted,
// not started, not rejected), the idle cores × the time. At an instant,
// ends come first, then starts, then submissions. Waiting is the time with
// a job waiting; CoreSeconds the idle core-seconds in that time.
type Idle struct {
	Waiting, CoreSeconds int64
}

// IdleWhileWaiting computes Idle for outcomes.
func IdleWhileWaiting(outs []job.Outcome, procs int) Idle {
	type ev struct {
		t    int64
		kind int8 // 0 end, 1 start, 2 submit
		n    int
	}
	evs := make([]ev, 0, 3*len(outs))
	for i := range outs {
		o := &outs[i]
		if o.Rejected || o.Start < 0 {
			continue
		}
		evs = append(evs, ev{o.Submit, 2, 0}, ev{o.Start, 1, o.Procs}, ev{o.End, 0, o.Procs})
	}
	slices.SortFunc(evs, func(a, b ev) int {
		if c := cmp.Compare(a.t, b.t); c != 0 {
			return c
		}
		return cmp.Compare(a.kind, b.kind)
	})
	var r Idle
	busy, waiting := 0, 0
	for i, e := range evs {
		if i > 0 && waiting > 0 {
			dt := e.t - evs[i-1].t
			r.Waiting += dt
			r.CoreSeconds += dt * int64(max(procs-busy, 0))
		}
		switch e.kind {
		case 0:
			busy -= e.n
		case 1:
			busy += e.n
			waiting--
		case 2:
			waiting++
		}
	}
	return r
}
