package sim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

var regressionPolicies = []string{"fcfs", "easy", "easy:depth=4", "conservative", "slack"}

// TestRealTraceRegression simulates every policy on two real traces and
// compares the summary metrics with golden values in testdata/regression.
// The goldens change only on purpose: run with -update and say why in the
// commit message.
func TestRealTraceRegression(t *testing.T) {
	cases := []struct {
		name string
		load func(t *testing.T) (*workload.Trace, error)
	}{
		{"KTH-SP2", func(*testing.T) (*workload.Trace, error) { return workload.Builtin(workload.Options{}) }},
		{"SDSC-SP2", func(t *testing.T) (*workload.Trace, error) {
			p := filepath.Join("..", "..", "shared", "traces", "SDSC-SP2-1998-4.2-cln.swf.gz")
			if _, err := os.Stat(p); err != nil {
				t.Skipf("%s not present", p)
			}
			return workload.Load(p, workload.Options{})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if longtest.Short() && c.name != "KTH-SP2" {
				t.Skip("short mode")
			}
			tr, err := c.load(t)
			if err != nil {
				t.Fatal(err)
			}
			var rows []metrics.Row
			for _, spec := range regressionPolicies {
				s, err := policy.New(spec, tr.Procs)
				if err != nil {
					t.Fatal(err)
				}
				res, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs})
				if err != nil {
					t.Fatal(err)
				}
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: tr.Procs, Kill: true, KnownRuntime: true, FCFS: policy.InArrivalOrder(s), Expect: len(tr.Jobs)})
				if !rep.OK() {
					t.Fatalf("%s: %s", spec, rep.String())
				}
				rows = append(rows, metrics.Row{Label: res.Policy, S: metrics.Summarize(res.Outcomes, metrics.Options{Procs: tr.Procs})})
			}
			var buf bytes.Buffer
			if err := metrics.WriteCSV(&buf, rows); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "regression", c.name+".csv", buf.Bytes())
		})
	}
}
