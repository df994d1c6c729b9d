package reproduce

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/backfill-hpc/backfill/internal/pool"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all" // every policy the papers compare
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/simulate"
)

// This file is the reproductions' only contact with the simulator and
// the auditor: one audited run (the project's simulate.RunScheduler) and
// one worker pool (internal/pool) with progress.

// Progress is told of every finished cell of a reproduction: done of
// total cells of the current stage, and what the cell was. It is called
// from the workers, one call at a time.
type Progress func(done, total int, cell string)

// runSpec is one simulation to run and audit.
type runSpec struct {
	jobs []job.Job
	spec string
	// caps are the capacities of every resource, processors first (a
	// one-element slice for a machine of processors only).
	caps []int
	// opt are further simulator options: NoKill and Extend.
	opt sim.Options
	// label names the workload in errors.
	label string
}

// runAudited simulates r and audits the schedule with every check that
// applies (simulate.Audit: capacity on every resource, deadlines for a
// policy with admission control, FCFS order for fcfs, extensions); jobs
// are killed at their estimate unless r.opt says otherwise, and a
// schedule that fails the audit is an error. It returns the simulator's
// result and the scheduler (for policy statistics).
func runAudited(r runSpec) (*sim.Result, policy.Scheduler, error) {
	s, err := policy.NewK(r.spec, r.caps)
	if err != nil {
		return nil, nil, err
	}
	var res []int
	if len(r.caps) > 1 {
		res = r.caps[1:]
	}
	out, err := simulate.RunScheduler(r.jobs, s, simulate.Options{Procs: r.caps[0], Res: res, NoKill: r.opt.NoKill, Extend: r.opt.Extend})
	if err != nil {
		return nil, nil, fmt.Errorf("%s on %s: %w", r.spec, r.label, err)
	}
	return out.Sim, s, nil
}

// parallel runs f(0) … f(n−1) on workers goroutines (all cores when
// workers < 1), reports each finished cell to p (label(i) names it), and
// returns the first error in index order.
func parallel(n, workers int, p Progress, label func(i int) string, f func(i int) error) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	var done atomic.Int64
	var mu sync.Mutex
	_, err := pool.Map(workers, n, func(i int) (struct{}, error) {
		err := f(i)
		d := int(done.Add(1))
		if p != nil {
			mu.Lock()
			p(d, n, label(i))
			mu.Unlock()
		}
		return struct{}{}, err
	})
	return err
}
