package firstfit

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/sim"
)

// A case worked by hand on 4 processors: job 0 (3 procs, 100 s) starts at
// 0; job 1 (2 procs) does not fit and waits; job 2 (1 proc, 50 s) fits
// beside job 0 and starts at 0 (first fit passes job 1); job 1 starts at
// 100, when job 0 ends. FCFS would start job 2 at 100 too; EASY would
// start it at 0 as well (it ends before job 1's reservation).
func TestHandWorked(t *testing.T) {
	mk := func(id int, procs int, run int64) job.Job {
		return job.Job{Request: job.Request{ID: id, SWFID: int64(id + 1), Submit: 0, Procs: procs, Estimate: run}, Runtime: run}
	}
	jobs := []job.Job{mk(0, 3, 100), mk(1, 2, 100), mk(2, 1, 50)}
	res, err := sim.Run(jobs, New(4, 0), sim.Options{Procs: 4})
	if err != nil {
		t.Fatal(err)
	}
	want := []int64{0, 100, 0}
	for i, o := range res.Outcomes {
		if o.Start != want[i] {
			t.Errorf("job %d starts at %d, want %d", i, o.Start, want[i])
		}
	}
}
