package kresource

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/sim"
)

// TestConsSameSecondEnd is issue 15's minimal case for FF-CONS (package
// conservative's TestSameSecondEndIsNotAnOverrun has the hand-worked
// schedule), on processors and on a second resource every job needs as
// much of as processors (so the vector case is the scalar one): P = 10;
// submit, runtime, procs, estimate: A 0 5 6 5, B 0 5 1 10, C 0 5 3 5,
// D 1 10 9 10, E 2 1 2 1. A, B, C start at 0; D is reserved at 5 and E at
// 15; at 5 A and C end at their estimates and B early; after the three
// ends D starts at 5 and E stays at 15, whatever the order of the ends.
func TestConsSameSecondEnd(t *testing.T) {
	rows := [][4]int64{{0, 5, 6, 5}, {0, 5, 1, 10}, {0, 5, 3, 5}, {1, 10, 9, 10}, {2, 1, 2, 1}}
	for _, perm := range [][]int{{0, 1, 2, 3, 4}, {0, 2, 1, 3, 4}, {1, 2, 0, 3, 4}} {
		for _, k := range []int{1, 2} {
			jobs := make([]job.Job, len(perm))
			for i, p := range perm {
				r := rows[p]
				jobs[i] = job.Job{Request: job.Request{ID: i, SWFID: int64(i + 1), Submit: r[0], Procs: int(r[2]), Estimate: r[3]}, Runtime: r[1]}
				if k == 2 {
					jobs[i].Res = []int{int(r[2])}
				}
			}
			caps := []int{10, 10}[:k]
			c, err := NewCons(caps, Config{})
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(jobs, c, sim.Options{Procs: 10, Res: caps[1:]})
			if err != nil {
				t.Fatal(err)
			}
			for i, want := range []int64{0, 0, 0, 5, 15} {
				if o := res.Outcomes[i]; o.Start != want || o.Start > o.Bound {
					t.Errorf("order %v K=%d: job %d starts at %d (bound %d), want %d", perm, k, i, o.Start, o.Bound, want)
				}
			}
		}
	}
}
