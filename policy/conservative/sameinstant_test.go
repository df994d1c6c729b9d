package conservative

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/sim"
)

// jobsOf builds a workload from rows {submit, runtime, procs, estimate}.
func jobsOf(rows [][4]int64) []job.Job {
	js := make([]job.Job, len(rows))
	for i, r := range rows {
		js[i] = job.Job{Request: job.Request{ID: i, SWFID: int64(i + 1), Submit: r[0], Procs: int(r[2]), Estimate: r[3]}, Runtime: r[1]}
	}
	return js
}

// TestSameSecondEndIsNotAnOverrun is issue 15's minimal case, worked by
// hand from Talby & Feitelson §3.2 (P = 10; submit, runtime, procs,
// estimate):
//
//	A: 0 5 6 5    B: 0 5 1 10    C: 0 5 3 5    D: 1 10 9 10    E: 2 1 2 1
//
// t=0: A, B, C start (10 processors); holds A [0,5) 6, B [0,10) 1,
// C [0,5) 3. t=1: D (9 for 10 s): free 0 before 5, 9 in [5,10), 10 after,
// so D is reserved at 5, guaranteed. t=2: E (2 for 1 s): free 0 before 10,
// 1 in [10,15), 10 after: reserved at 15. t=5: A and C end at their
// estimates, B ends early (released [5,10) on 1 processor). After all
// three ends the machine is empty from 5 on: compression keeps D at 5
// (nothing earlier is possible, it is now) and E at 15 (D holds 9 of 10
// over [5,15)); the pass starts D at 5. So D starts at 5, E at 15,
// whatever the order of the three ends. The bug: with B's end handled
// before C's (B has the smaller ID), C still looked running past its hold
// end, its hold was extended to 6 and D re-placed at 6, past its
// guarantee.
func TestSameSecondEndIsNotAnOverrun(t *testing.T) {
	a, b, c := [4]int64{0, 5, 6, 5}, [4]int64{0, 5, 1, 10}, [4]int64{0, 5, 3, 5}
	d, e := [4]int64{1, 10, 9, 10}, [4]int64{2, 1, 2, 1}
	for _, order := range [][][4]int64{{a, b, c, d, e}, {a, c, b, d, e}, {b, c, a, d, e}, {c, b, a, d, e}} {
		jobs := jobsOf(order)
		for _, noKill := range []bool{false, true} {
			res, err := sim.Run(jobs, New(10, Config{}), sim.Options{Procs: 10, NoKill: noKill})
			if err != nil {
				t.Fatal(err)
			}
			want := []int64{0, 0, 0, 5, 15}
			for i, o := range res.Outcomes {
				if o.Start != want[i] {
					t.Errorf("order %v noKill=%v: job %d starts at %d, want %d", order, noKill, i, o.Start, want[i])
				}
				if !noKill && o.Bound >= 0 && o.Start > o.Bound {
					t.Errorf("order %v: job %d starts at %d after its guarantee %d", order, i, o.Start, o.Bound)
				}
			}
		}
	}
}

// TestSimultaneousEarlyEnds: two jobs ending early in the same second are
// one release; the compression that follows sees both, whatever their
// order. Worked by hand (P = 4; the example of docs/simulator.md,
// "Same-instant events"):
//
//	J1: 0 5 3 20    J2: 0 5 1 30    J3: 1 10 4 10    J4: 3 20 3 20
//
// t=0: J1 [0,20) 3 and J2 [0,30) 1 start. t=1: J3 needs the whole
// machine: reserved at 30. t=3: J4 (3 for 20 s): 3 free over [20,30) only
// until J3's reservation, so [40,60). t=5: J1 and J2 end early: the
// machine is empty from 5. Compression in reservation order: J3 to 5
// ([5,15) on all 4), then J4 to 15. The pass starts J3 at 5; J4 starts at
// 15. (EASY starts J3 at 5 too; pyss, which frees simultaneous ends one at
// a time with a pass in between, starts J4 at 5 and J3 at 25.)
func TestSimultaneousEarlyEnds(t *testing.T) {
	j1, j2 := [4]int64{0, 5, 3, 20}, [4]int64{0, 5, 1, 30}
	j3, j4 := [4]int64{1, 10, 4, 10}, [4]int64{3, 20, 3, 20}
	for _, order := range [][][4]int64{{j1, j2, j3, j4}, {j2, j1, j3, j4}} {
		res, err := sim.Run(jobsOf(order), New(4, Config{}), sim.Options{Procs: 4})
		if err != nil {
			t.Fatal(err)
		}
		for i, want := range []int64{0, 0, 5, 15} {
			if got := res.Outcomes[i].Start; got != want {
				t.Errorf("order %v: job %d starts at %d, want %d", order, i, got, want)
			}
		}
	}
}
