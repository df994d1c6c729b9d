package reproduce

import (
	"fmt"
	"runtime"
	"sync"
	"sync/atomic"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all" // every policy the papers compare
	"github.com/backfill-hpc/backfill/sim"
)

// This file is the reproductions' only contact with the simulator and
// the auditor: one audited run and one worker pool. When the project's
// shared audited-run path lands (issue 16 item 3), these two functions
// switch to it.

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
	// opt are further simulator options (Procs and Res are set from
	// caps).
	opt sim.Options
	// deadlines asks the audit to check the admitted jobs' deadlines.
	deadlines bool
	label     string
}

// runAudited simulates r and audits the schedule: jobs are killed at
// their estimate unless r.opt says otherwise, and a schedule that fails
// the audit is an error. It returns the simulator's result and the
// scheduler (for policy statistics).
func runAudited(r runSpec) (*sim.Result, policy.Scheduler, error) {
	var (
		s   policy.Scheduler
		err error
	)
	if len(r.caps) > 1 {
		s, err = policy.NewK(r.spec, r.caps)
	} else {
		s, err = policy.New(r.spec, r.caps[0])
	}
	if err != nil {
		return nil, nil, err
	}
	opt := r.opt
	opt.Procs = r.caps[0]
	if len(r.caps) > 1 {
		opt.Res = r.caps[1:]
	}
	res, err := sim.Run(r.jobs, s, opt)
	if err != nil {
		return nil, nil, fmt.Errorf("%s on %s: %w", r.spec, r.label, err)
	}
	if opt.Extend {
		// extensions make jobs run past their estimate and kill the others
		// there: the auditor has no mode for that mix, so these runs are
		// checked by the simulator's own capacity checks only
		return res, s, nil
	}
	aopt := audit.Options{Procs: opt.Procs, Res: opt.Res, Kill: !opt.NoKill, KnownRuntime: true,
		Expect: len(r.jobs), Deadlines: r.deadlines}
	if rep := audit.Audit(res.Outcomes, aopt); !rep.OK() {
		return nil, nil, fmt.Errorf("%s on %s: the schedule fails the audit:\n%s", r.spec, r.label, rep.String())
	}
	return res, s, nil
}

// parallel runs f(0) … f(n−1) on workers goroutines (all cores when
// workers < 1), reports each finished cell to p (label(i) names it), and
// returns the first error in index order.
func parallel(n, workers int, p Progress, label func(i int) string, f func(i int) error) error {
	if workers < 1 {
		workers = runtime.GOMAXPROCS(0)
	}
	errs := make([]error, n)
	var next, done atomic.Int64
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range min(workers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1) - 1)
				if i >= n {
					return
				}
				errs[i] = f(i)
				d := int(done.Add(1))
				if p != nil {
					mu.Lock()
					p(d, n, label(i))
					mu.Unlock()
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
