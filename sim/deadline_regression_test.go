package sim_test

import (
	"bytes"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	simrun "github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
	wd "github.com/backfill-hpc/backfill/workload/deadline"
)

// TestDeadlineRegression builds two deadline workloads from the embedded
// KTH SP2 trace (exact estimates, jobs 2000–3999, load 1.4 by duplication
// with every job a deadline job, and load 1.2 by expansion with 20 % of
// deadline jobs; stringency 0.2) and simulates QoPS, MSB and MRT with
// their variants beside EASY and conservative backfilling. Every schedule
// passes the audit with the deadline check; the summary metrics
// (admission columns included) are compared with
// testdata/regression-deadline/KTH-SP2.csv. The golden changes only on
// purpose: run with -update and say why in the commit.
func TestDeadlineRegression(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{Estimate: "exact"})
	if err != nil {
		t.Fatal(err)
	}
	specs := []string{"qops", "qops:h=llf:k=0", "qops:new=sorted", "msb", "mrt", "mrt:backtrack=100", "easy", "conservative"}
	var buf bytes.Buffer
	for _, ws := range []string{
		"s=0.2:l=1.4:load=dup:frac=1:offset=2000:n=2000:seed=1",
		"s=0.2:l=1.2:load=expand:frac=0.2:offset=2000:n=2000:seed=1",
	} {
		sp, err := wd.ParseSpec(ws)
		if err != nil {
			t.Fatal(err)
		}
		b, err := wd.Build(tr.Jobs, tr.Procs, sp, simrun.EASYResponses)
		if err != nil {
			t.Fatal(err)
		}
		var rows []metrics.Row
		for _, spec := range specs {
			s, err := policy.New(spec, tr.Procs)
			if err != nil {
				t.Fatal(err)
			}
			res, err := sim.Run(b.Jobs, s, sim.Options{Procs: tr.Procs})
			if err != nil {
				t.Fatal(err)
			}
			_, adm := s.(policy.Admitter)
			rep := audit.Audit(res.Outcomes, audit.Options{Procs: tr.Procs, Kill: true, KnownRuntime: true, Expect: len(b.Jobs), Deadlines: adm})
			if !rep.OK() || rep.OverrunMisses != 0 {
				t.Fatalf("%s on %s: %s", spec, ws, rep.String())
			}
			rows = append(rows, metrics.Row{Label: ws + " " + res.Policy, S: metrics.Summarize(res.Outcomes, metrics.Options{Procs: tr.Procs})})
		}
		if err := metrics.WriteCSV(&buf, rows); err != nil {
			t.Fatal(err)
		}
	}
	checkGolden(t, "regression-deadline", "KTH-SP2.csv", buf.Bytes())
}
