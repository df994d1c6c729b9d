package deadline_test

// These tests build deadline workloads with the EASY responses of package
// simulate, which itself imports this package: they live in the external
// test package to keep the import graph acyclic.

import (
	"testing"

	_ "github.com/backfill-hpc/backfill/policy/easy"
	"github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
	"github.com/backfill-hpc/backfill/workload/deadline"
)

// TestBuild: on a small workload, deadlines follow the EASY run, the load
// and the share of deadline jobs are as asked, and with s = 0 and every
// job a deadline job, the EASY schedule itself meets every deadline.
func TestBuild(t *testing.T) {
	js := deadline.BaseJobs(300)
	b, err := deadline.Build(js, 16, deadline.Spec{Offset: 50, Count: 200, Load: 1.4, Method: deadline.MethodDup, Stringency: 0, Fraction: 1, Seed: 2}, simulate.EASYResponses)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Jobs) != 280 || b.Duplicates != 80 || b.Deadlines != 280 {
		t.Fatalf("%d jobs, %d duplicates, %d deadlines", len(b.Jobs), b.Duplicates, b.Deadlines)
	}
	for i, j := range b.Jobs {
		if j.Deadline != j.Submit+max(j.Runtime, b.EASY[i], 1) {
			t.Fatalf("job %d: deadline %d, submit %d, EASY response %d", i, j.Deadline, j.Submit, b.EASY[i])
		}
	}
	b, err = deadline.Build(js, 16, deadline.Spec{Load: 1.2, Method: deadline.MethodExpand, Stringency: 0.5, Fraction: 0.2, Seed: 2}, simulate.EASYResponses)
	if err != nil || len(b.Jobs) != 300 || b.Deadlines != 60 || len(b.Notes) != 3 {
		t.Fatalf("expansion: %d jobs, %d deadlines, notes %q, %v", len(b.Jobs), b.Deadlines, b.Notes, err)
	}
}

// TestBuildRealTrace builds a deadline workload from the embedded KTH
// trace (exact estimates), as the reproduction does from CTC and SDSC.
func TestBuildRealTrace(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{Estimate: "exact"})
	if err != nil {
		t.Fatal(err)
	}
	b, err := deadline.Build(tr.Jobs, tr.Procs, deadline.Spec{Offset: 1000, Count: 500, Load: 1.6, Method: deadline.MethodDup, Stringency: 0.2, Fraction: 0.8, Seed: 1}, simulate.EASYResponses)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Jobs) != 800 || b.Deadlines != 640 {
		t.Errorf("%d jobs, %d deadlines", len(b.Jobs), b.Deadlines)
	}
}
