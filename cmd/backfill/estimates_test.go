package main

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// results drops the comment lines (the header) of a CSV summary.
func results(out string) string {
	var keep []string
	for _, l := range strings.Split(out, "\n") {
		if !strings.HasPrefix(l, "#") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func TestSimulateEstimateModels(t *testing.T) {
	t.Parallel() // CPU-bound: overlaps with the waits of TestAttackJobs
	sim := func(args ...string) string {
		t.Helper()
		out, err := run(t, append([]string{"simulate", "--format", "csv", "--policy", "easy,easy++"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	a := sim("--estimate", "factor:3", "--seed", "5")
	if !strings.Contains(a, "# rule: estimate model factor:3, seed 5") {
		t.Fatalf("header lacks the estimate model:\n%s", a)
	}
	if b := sim("--estimate", "factor:3", "--seed", "5", "--workers", "1"); a != b {
		t.Fatal("same seed, different output")
	}
	if m := sim("--estimate", "modal:atmax=40"); !strings.Contains(m, "maximum M = 53400 s") {
		t.Fatalf("modal header:\n%s", m)
	}
	// the models' own properties are package estimate's tests; through the
	// CLI they run with BACKFILL_LONG=1 (five more runs of the whole trace)
	if !longtest.Short() {
		if c := sim("--estimate", "factor:3", "--seed", "6"); results(a) == results(c) {
			t.Fatal("seeds 5 and 6 give the same results")
		}
		// factor:1 is exact
		if x, y := sim("--estimate", "exact"), sim("--estimate", "factor:1"); results(x) != results(y) {
			t.Fatalf("factor:1 differs from exact:\n%s\n%s", results(x), results(y))
		}
		if d := sim("--estimate", "double"); results(d) == results(sim()) {
			t.Fatal("double gives the user estimates' results")
		}
	}
	for _, bad := range [][]string{{"--estimate", "factor:0.5"}, {"--estimate", "bogus"}, {"--estimate", "modal:atmax=99"}} {
		if _, err := run(t, append([]string{"simulate", "--policy", "easy"}, bad...)...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}

func TestSimulateClassesAndPredictions(t *testing.T) {
	t.Parallel() // CPU-bound: overlaps with the waits of TestAttackJobs
	out, err := run(t, "simulate", "--policy", "easy,easy++", "--classes", "size:1,8,32", "--classes", "runtime:3600")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"class (size:1,8,32)", "8 < size <= 32", "class (runtime:3600)", "runtime > 3600", "pred MAE", "corrected jobs"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := run(t, "simulate", "--classes", "size:1", "--format", "json"); err == nil {
		t.Error("--classes with JSON accepted")
	}
	if _, err := run(t, "simulate", "--classes", "wait:1"); err == nil {
		t.Error("bad class rule accepted")
	}
	// without predictions the default table has no prediction block
	out, err = run(t, "simulate", "--policy", "easy")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "pred") {
		t.Errorf("prediction block without predictions:\n%s", out)
	}
}
