package sim_test

import (
	"fmt"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all" // register the policies
	"github.com/backfill-hpc/backfill/sim"
)

// On 4 processors, job 1 (2 processors) runs from 0 to 100; job 2 needs
// the whole machine and waits for it; job 3 (2 processors, 30 s) fits in
// the idle half and ends before job 2 could start: EASY backfills it at
// 20, FCFS keeps it behind job 2.
func ExampleRun() {
	mk := func(id int, submit int64, procs int, estimate, runtime int64) job.Job {
		return job.Job{Request: job.Request{ID: id, SWFID: int64(id) + 1, Submit: submit, Procs: procs, Estimate: estimate,
			User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: runtime}
	}
	jobs := []job.Job{mk(0, 0, 2, 100, 100), mk(1, 10, 4, 60, 50), mk(2, 20, 2, 30, 30)}
	for _, spec := range []string{"fcfs", "easy"} {
		s, err := policy.New(spec, 4)
		if err != nil {
			fmt.Println(err)
			return
		}
		res, err := sim.Run(jobs, s, sim.Options{Procs: 4})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%-4s starts:", res.Policy)
		for _, o := range res.Outcomes {
			fmt.Printf(" %d", o.Start)
		}
		fmt.Println()
	}
	// Output:
	// fcfs starts: 0 100 150
	// easy starts: 0 100 20
}
