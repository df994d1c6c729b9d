package sim_test

import (
	"bytes"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
	"github.com/backfill-hpc/backfill/workload/estimate"
)

// TestEstimatesRegression simulates the runtime-estimate variants on the
// embedded KTH SP2 trace — SJBF, SJF, EASY++ and its stepwise variant,
// conservative with predictions, and EASY under the factor, double and
// modal estimate models — and compares the summary metrics (prediction
// accuracy included) with testdata/regression-estimates/KTH-SP2.csv. The
// golden changes only on purpose: run with -update and say why in the
// commit.
func TestEstimatesRegression(t *testing.T) {
	base, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct{ model, spec string }{
		{"user", "easy:order=sjbf"},
		{"user", "easy:order=sjf"},
		{"user", "easy++"},
		{"user", "easy++:correct=step"},
		{"user", "conservative:predict=history-2"},
		{"factor:3", "easy"},
		{"double", "easy"},
		{"modal", "easy"},
		{"modal:atmax=60", "conservative"},
	}
	var buf bytes.Buffer
	var rows []metrics.Row
	for _, c := range cases {
		jobs := slices.Clone(base.Jobs)
		if _, err := estimate.Apply(jobs, c.model, 1); err != nil {
			t.Fatal(err)
		}
		s, err := policy.New(c.spec, base.Procs)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(jobs, s, sim.Options{Procs: base.Procs})
		if err != nil {
			t.Fatal(err)
		}
		rep := audit.Audit(res.Outcomes, audit.Options{Procs: base.Procs, Kill: true, KnownRuntime: true, Expect: len(jobs)})
		if !rep.OK() {
			t.Fatalf("%s with %s: %s", c.spec, c.model, rep.String())
		}
		sum := metrics.Summarize(res.Outcomes, metrics.Options{Procs: base.Procs})
		rows = append(rows, metrics.Row{Label: c.model + " " + res.Policy, S: sum})
	}
	if err := metrics.WriteJSON(&buf, rows); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "regression-estimates", "KTH-SP2.json", buf.Bytes())
}
