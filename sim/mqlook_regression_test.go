package sim_test

import (
	"bytes"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// TestMQLookRegression simulates multiple-queue and lookahead backfilling,
// in the originals' and the seed paper's variants, on the embedded KTH SP2
// trace and compares the summary metrics with
// testdata/regression-mqlook/KTH-SP2.csv. The golden changes only on
// purpose: run with -update and say why in the commit.
func TestMQLookRegression(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	specs := []string{"multiqueue", "multiqueue:order=sjf", "multiqueue:bounds=3600:procs=70/30",
		"lookahead", "lookahead:depth=5", "lookahead:reserve=false:order=sjf:depth=all"}
	var rows []metrics.Row
	for _, spec := range specs {
		s, err := policy.New(spec, tr.Procs)
		if err != nil {
			t.Fatal(err)
		}
		res, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs})
		if err != nil {
			t.Fatal(err)
		}
		rep := audit.Audit(res.Outcomes, audit.Options{Procs: tr.Procs, Kill: true, KnownRuntime: true, Expect: len(tr.Jobs)})
		if !rep.OK() {
			t.Fatalf("%s: %s", spec, rep.String())
		}
		rows = append(rows, metrics.Row{Label: res.Policy, S: metrics.Summarize(res.Outcomes, metrics.Options{Procs: tr.Procs})})
	}
	var buf bytes.Buffer
	if err := metrics.WriteCSV(&buf, rows); err != nil {
		t.Fatal(err)
	}
	checkGolden(t, "regression-mqlook", "KTH-SP2.csv", buf.Bytes())
}
