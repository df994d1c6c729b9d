package report

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/sim"
)

// checkPlacement verifies the drawing rule's guarantees on a schedule: every
// drawn job gets exactly its processors, within the rows, and no two jobs
// hold the same processor at the same time.
func checkPlacement(t *testing.T, outs []job.Outcome, procs int, pl Placement) {
	t.Helper()
	type iv struct {
		s, e int64
		j    int32
	}
	perProc := make([][]iv, pl.Rows)
	got := make([]int, len(outs))
	for _, r := range pl.Rects {
		if r.Lo < 0 || r.N <= 0 || int(r.Lo+r.N) > pl.Rows {
			t.Fatalf("rect %+v outside rows 0..%d", r, pl.Rows)
		}
		o := &outs[r.Job]
		got[r.Job] += int(r.N)
		for p := r.Lo; p < r.Lo+r.N; p++ {
			perProc[p] = append(perProc[p], iv{o.Start, o.End, r.Job})
		}
	}
	placed := 0
	for i := range outs {
		o := &outs[i]
		want := 0
		if o.Start >= 0 && o.End > o.Start {
			want = o.Procs
			placed++
		}
		if got[i] != want {
			t.Fatalf("job %d: %d processors drawn, want %d", o.ID, got[i], want)
		}
	}
	if placed != pl.Placed {
		t.Fatalf("Placed = %d, want %d", pl.Placed, placed)
	}
	for p, ivs := range perProc {
		slices.SortFunc(ivs, func(a, b iv) int { return int(a.s - b.s) })
		for k := 1; k < len(ivs); k++ {
			if ivs[k].s < ivs[k-1].e {
				t.Fatalf("processor %d: jobs %d [%d,%d) and %d [%d,%d) overlap", p,
					outs[ivs[k-1].j].ID, ivs[k-1].s, ivs[k-1].e, outs[ivs[k].j].ID, ivs[k].s, ivs[k].e)
			}
		}
	}
	if pl.Peak <= procs && pl.Rows != max(procs, 1) {
		t.Fatalf("Rows = %d for a valid schedule on %d processors", pl.Rows, procs)
	}
}

func TestAssignRandomSchedules(t *testing.T) {
	n := 300
	if longtest.Short() {
		n = 60
	}
	for seed := range n {
		r := rand.New(rand.NewPCG(uint64(seed), 10))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		pol := []string{"fcfs", "easy", "conservative"}[seed%3]
		s, err := policy.New(pol, spec.Procs)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(jobs, s, sim.Options{Procs: spec.Procs})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(fmt.Sprintf("seed%d-%s", seed, pol), func(t *testing.T) {
			pl := Assign(res.Outcomes, spec.Procs)
			checkPlacement(t, res.Outcomes, spec.Procs, pl)
			if pl.Peak > spec.Procs {
				t.Fatalf("peak %d > %d processors on a simulated schedule", pl.Peak, spec.Procs)
			}
		})
	}
}

func oc(id int, start, end int64, procs int) job.Outcome {
	return job.Outcome{Job: job.Job{Request: job.Request{ID: id, Procs: procs, Estimate: end - start}}, Start: start, End: end, Bound: -1}
}

func TestAssignRule(t *testing.T) {
	// 4 processors. A [0,10) 1 proc -> 0; B [0,20) 2 -> 1-2; C [0,5) 1 -> 3;
	// at 10 A ends, C already ended at 5: free 0 and 3, not contiguous.
	// D [10,30) 2 procs -> pieces 0 and 3. E [20,25) 2 -> 1-2 (B ended at 20).
	outs := []job.Outcome{oc(0, 0, 10, 1), oc(1, 0, 20, 2), oc(2, 0, 5, 1), oc(3, 10, 30, 2), oc(4, 20, 25, 2), oc(5, 25, 25, 4)}
	pl := Assign(outs, 4)
	want := []Rect{{0, 0, 1}, {1, 1, 2}, {2, 3, 1}, {3, 0, 1}, {3, 3, 1}, {4, 1, 2}}
	if !slices.Equal(pl.Rects, want) {
		t.Errorf("rects %v, want %v", pl.Rects, want)
	}
	if pl.Placed != 5 || pl.Rows != 4 || pl.Peak != 4 {
		t.Errorf("placed %d rows %d peak %d", pl.Placed, pl.Rows, pl.Peak)
	}
	checkPlacement(t, outs, 4, pl)
}

func TestAssignOversubscribed(t *testing.T) {
	// a foreign schedule that holds 5 processors on a 4-processor machine
	outs := []job.Outcome{oc(0, 0, 10, 3), oc(1, 0, 10, 2)}
	pl := Assign(outs, 4)
	if pl.Rows != 5 || pl.Peak != 5 {
		t.Fatalf("rows %d peak %d, want 5 5", pl.Rows, pl.Peak)
	}
	checkPlacement(t, outs, 4, pl)
}

func BenchmarkAssign(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	jobs := testgen.Jobs(r, testgen.Spec{Jobs: 100000, Procs: 1024, MeanGap: 20, MaxRuntime: 3000})
	s, _ := policy.New("easy", 1024)
	res, err := sim.Run(jobs, s, sim.Options{Procs: 1024})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		Assign(res.Outcomes, 1024)
	}
}
