package deadline

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/sim"
)

// TestSameSecondEnd is issue 15's minimal case with deadlines that force
// the schedule (P = 10; submit, runtime, procs, estimate, deadline):
//
//	A: 0 5 6 5 5    B: 0 5 1 10 10    C: 0 5 3 5 5    D: 1 10 9 10 15    E: 2 1 2 1 16
//
// t=0: A, B, C are admitted and start at 0 (10 processors). t=1: D must
// start by 15 − 10 = 5; 9 processors are free from 5 (A and C hold theirs
// until 5, B one until 10): D is admitted at 5. t=2: E must start by
// 16 − 1 = 15; before D it would need 2 processors before 5 (none free)
// or delay D past its deadline; after D, 1 processor is free in [10,15)
// and 10 from 15: E is admitted at 15. t=5: A and C end at their
// estimates, B early. After the three ends D starts at 5 and E at 15 —
// every deadline met — whatever the order of the ends. The bug: with B's
// end handled before C's, C was taken for an overrun and D moved to 6,
// missing its deadline.
func TestSameSecondEnd(t *testing.T) {
	rows := [][5]int64{{0, 5, 6, 5, 5}, {0, 5, 1, 10, 10}, {0, 5, 3, 5, 5}, {1, 10, 9, 10, 15}, {2, 1, 2, 1, 16}}
	for _, kind := range []string{"qops", "msb", "mrt"} {
		for _, perm := range [][]int{{0, 1, 2, 3, 4}, {0, 2, 1, 3, 4}, {1, 2, 0, 3, 4}} {
			jobs := make([]job.Job, len(perm))
			for i, p := range perm {
				r := rows[p]
				jobs[i] = job.Job{Request: job.Request{ID: i, SWFID: int64(i + 1), Submit: r[0], Procs: int(r[2]), Estimate: r[3], Deadline: r[4]}, Runtime: r[1]}
			}
			s := mustNew(t, kind, 10, Defaults(kind))
			res, err := sim.Run(jobs, s, sim.Options{Procs: 10})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []int64{0, 0, 0, 5, 15} {
				if o := res.Outcomes[i]; o.Rejected || o.Start != want {
					t.Errorf("%s order %v: job %d starts at %d (rejected %v), want %d", kind, perm, i, o.Start, o.Rejected, want)
				}
			}
		}
	}
}
