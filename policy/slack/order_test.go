package slack

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// TestOrderPermutation: §4.5's iteration example (TestIterationExample)
// with order=sjf. J1, J2, J3 (estimates 2, 3, 1 s) hold the whole
// machine one after the other; J4 is inserted. At each slot the delayed
// jobs are compressed in shortest-estimate-first order instead of AST:
// slot 0 delays all three, (J3, J1, J2); slot 2 delays J2 and J3, (J3,
// J2); slot 5 delays J3; slot 6 delays nobody.
func TestOrderPermutation(t *testing.T) {
	prm := DefaultParams()
	prm.Order = policy.SJF
	s := build(t, 4, prm, []placed{
		{id: 1, n: 4, est: 2, te: 0, p: 0.5, s: 100, s0: 100},
		{id: 2, n: 4, est: 3, te: 2, p: 0.5, s: 100, s0: 100},
		{id: 3, n: 4, est: 1, te: 5, p: 0.5, s: 100, s0: 100},
	})
	s.noPrune = true
	var seen []string
	s.onSlot = func(ts int64, order []*sjob) {
		var ids []string
		for _, d := range order {
			ids = append(ids, fmt.Sprint("J", d.J.ID))
		}
		seen = append(seen, fmt.Sprintf("%d:(%s)", ts, strings.Join(ids, ",")))
	}
	s.Insert(0, &job.Request{ID: 4, SWFID: 4, Procs: 4, Estimate: 1, UP: 1})
	got := strings.Join(seen, " ")
	if want := "0:(J3,J1,J2) 2:(J3,J2) 5:(J3) 6:()"; got != want {
		t.Errorf("slots and permutations priced: %s, want %s", got, want)
	}
}

// TestOrderFCFSIsAAT: order=fcfs compresses in arrival order, which is
// heuristic AAT whenever job IDs follow submission times (as the
// simulator's do): the schedules agree job by job. AST, the default,
// differs from both on some of these workloads (else the test could not
// tell an ignored order).
func TestOrderFCFSIsAAT(t *testing.T) {
	astDiffers := 0
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 41))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		fc, err := policy.New("slack:order=fcfs:sf=2", spec.Procs)
		if err != nil {
			t.Fatal(err)
		}
		aat, err := policy.New("slack:h=aat:sf=2", spec.Procs)
		if err != nil {
			t.Fatal(err)
		}
		a, err := sim.Run(jobs, fc, sim.Options{Procs: spec.Procs})
		if err != nil {
			t.Fatal(err)
		}
		b, err := sim.Run(jobs, aat, sim.Options{Procs: spec.Procs})
		if err != nil {
			t.Fatal(err)
		}
		c, err := sim.Run(jobs, New(spec.Procs, Params{Au: 1, At: 1, Ap: 1, Af: 1, SF: 2, AWT: 2401}), sim.Options{Procs: spec.Procs})
		if err != nil {
			t.Fatal(err)
		}
		differs := false
		for i := range jobs {
			if a.Outcomes[i].Start != b.Outcomes[i].Start {
				t.Fatalf("seed %d: job %d starts at %d (order=fcfs) vs %d (h=aat)", seed, jobs[i].SWFID, a.Outcomes[i].Start, b.Outcomes[i].Start)
			}
			differs = differs || a.Outcomes[i].Start != c.Outcomes[i].Start
		}
		if differs {
			astDiffers++
		}
	}
	if astDiffers == 0 {
		t.Error("AST gave the schedule of order=fcfs on every workload")
	}
	t.Logf("AST differs on %d of 40 workloads", astDiffers)
}

// TestOrderParam: the order parameter's names and errors.
func TestOrderParam(t *testing.T) {
	for spec, want := range map[string]string{
		"slack":            "slack",
		"slack:order=none": "slack",
		"slack:order=sjf":  "slack:order=sjf",
		"slack:order=fcfs": "slack:order=fcfs",
	} {
		s, err := policy.New(spec, 16)
		if err != nil {
			t.Fatalf("%s: %v", spec, err)
		}
		if s.Name() != want {
			t.Errorf("%s: name %s, want %s", spec, s.Name(), want)
		}
	}
	for _, spec := range []string{"slack:order=sjf:h=dp", "slack:order=nosuch"} {
		if _, err := policy.New(spec, 16); err == nil {
			t.Errorf("%s: accepted", spec)
		}
	}
}
