package deadline

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
)

// TestMRTBacktracksEqualReference drives MRT where its search must
// backtrack and then succeeds: jobs cut from a packed schedule of a small
// machine (each job's deadline its end there plus a little slack), all
// submitted at time 0 in a shuffled order, so that the heuristic's order
// often fails and a later choice at a lower level fits. The decisions and
// the schedules must equal the literal version's (ref_test.go), which
// searches every fit afresh after a backtrack; the incremental version
// restores the fits the undone extensions changed, and checks after each
// backtrack that they are the earliest (checkFits).
func TestMRTBacktracksEqualReference(t *testing.T) {
	n := 400
	if longtest.Short() {
		n = 80
	}
	admittedAfterBacktrack := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 31))
		procs := 2 + r.IntN(6)
		prm := Defaults("mrt")
		prm.Backtrack = []int{5, 50, 500}[r.IntN(3)]
		prm.H = Heuristic(r.IntN(2))
		prm.ND = Reject
		fast, ref := mustNew(t, "mrt", procs, prm), mustNew(t, "mrt", procs, prm)
		setRef(ref)
		fast.checkFits = true
		// a packed schedule: columns of processors filled with jobs end to end
		var jobs []*job.Request
		for p := 0; p < procs; {
			w := min(1+r.IntN(3), procs-p)
			var at int64
			for k := 0; k < 2+r.IntN(4); k++ {
				e := int64(1 + r.IntN(20))
				jobs = append(jobs, &job.Request{ID: len(jobs), SWFID: int64(len(jobs) + 1), Procs: w, Estimate: e, Deadline: at + e + int64(r.IntN(8))})
				at += e
			}
			p += w
		}
		r.Shuffle(len(jobs), func(i, k int) { jobs[i], jobs[k] = jobs[k], jobs[i] })
		for i, j := range jobs {
			j.ID, j.SWFID = i, int64(i+1)
			j2 := *j
			before := fast.Stats.Backtracks
			fast.Insert(0, j)
			ref.Insert(0, &j2)
			a, ra := fast.Admitted(j)
			b, rb := ref.Admitted(&j2)
			if a != b || ra != rb {
				t.Fatalf("seed %d job %d: admitted %v %q (fast) vs %v %q (ref)", seed, j.ID, a, ra, b, rb)
			}
			if sa, sb := schedule(fast), schedule(ref); sa != sb {
				t.Fatalf("seed %d job %d:\n fast: %s\n ref:  %s", seed, j.ID, sa, sb)
			}
			if fast.Stats.Backtracks != ref.Stats.Backtracks {
				t.Fatalf("seed %d job %d: backtracks %d (fast) vs %d (ref)", seed, j.ID, fast.Stats.Backtracks, ref.Stats.Backtracks)
			}
			if fast.fitErr != nil {
				t.Fatalf("seed %d job %d: %v", seed, j.ID, fast.fitErr)
			}
			if a && fast.Stats.Backtracks > before {
				admittedAfterBacktrack++
			}
		}
	}
	if admittedAfterBacktrack == 0 {
		t.Fatal("no decision admitted a job after backtracking: the test checks nothing")
	}
	t.Logf("%d decisions admitted after backtracking", admittedAfterBacktrack)
}
