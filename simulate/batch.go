package simulate

import (
	"fmt"

	"github.com/backfill-hpc/backfill/internal/pool"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/workload"
)

// Batch runs every spec on jobs with the options opt, on at most workers
// goroutines, and returns the results in the order of specs. name is the
// workload's name, for errors ("easy on trace.swf: …"). ended, if not nil,
// is told how many more jobs ended in any of the runs (it is called from
// several goroutines). The first failed run's error is returned, after
// every run has finished.
//
// Batch does not check the specs before it starts: a caller that wants a
// bad spec to fail before any work builds each policy first (policy.NewK).
func Batch(jobs []job.Job, name string, specs []string, opt Options, workers int, ended func(n int)) ([]*Result, error) {
	res := make([]*Result, len(specs))
	errs := make([]error, len(specs))
	pool.Run(workers, len(specs), func(i int) {
		o := opt
		last := 0
		if ended != nil {
			o.Progress = func(done int) {
				ended(done - last)
				last = done
			}
		}
		r, err := Run(jobs, specs[i], o)
		if err != nil {
			errs[i] = fmt.Errorf("%s on %s: %w", specs[i], name, err)
			return
		}
		res[i] = r
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	return res, nil
}

// TraceBatch is Batch of every spec on trace tr, after building each
// policy on tr's resources, so that a bad spec fails before any work.
func TraceBatch(tr *workload.Trace, specs []string, opt Options, workers int, ended func(n int)) ([]*Result, error) {
	for _, spec := range specs {
		if _, err := policy.NewK(spec, tr.Caps()); err != nil {
			return nil, err
		}
	}
	return Batch(tr.Jobs, tr.Name, specs, opt, workers, ended)
}

// Rows are the summary rows of results, labelled by policy, for the
// tables of package metrics.
func Rows(results []*Result) []metrics.Row {
	rows := make([]metrics.Row, len(results))
	for i, r := range results {
		rows[i] = metrics.Row{Label: r.Policy, S: r.Summary}
	}
	return rows
}
