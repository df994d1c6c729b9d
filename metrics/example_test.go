package metrics_test

import (
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
)

// Two jobs on 2 processors: the first (2 processors) runs 0–100, the
// second (1 processor, submitted at 10) waits until 100 and runs 50 s.
// Mean wait (0 + 90)/2 = 45; utilization (2·100 + 1·50)/(2·150) = 5/6.
func ExampleSummarize() {
	out := func(id int, submit int64, procs int, start, end int64) job.Outcome {
		j := job.Job{Request: job.Request{ID: id, SWFID: int64(id) + 1, Submit: submit, Procs: procs, Estimate: end - start,
			User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: end - start}
		return job.Outcome{Job: j, Start: start, End: end, Bound: -1}
	}
	outcomes := []job.Outcome{out(0, 0, 2, 0, 100), out(1, 10, 1, 100, 150)}
	s := metrics.Summarize(outcomes, metrics.Options{Procs: 2})
	fmt.Printf("jobs %d, mean wait %.0f s, max wait %d s, makespan %d s, utilization %.3f\n",
		s.All.Jobs, s.All.MeanWait, s.All.MaxWait, s.Makespan, s.Utilization)
	// Output:
	// jobs 2, mean wait 45 s, max wait 90 s, makespan 150 s, utilization 0.833
}
