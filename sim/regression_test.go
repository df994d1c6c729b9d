package sim_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"backfill/audit"
	"backfill/metrics"
	"backfill/policy"
	"backfill/sim"
	"backfill/workload"
)

var update = flag.Bool("update", false, "rewrite the golden files of the real-trace regression (say why in the commit)")

var regressionPolicies = []string{"fcfs", "easy", "easy:depth=4", "conservative", "slack"}

// TestRealTraceRegression simulates every policy on two real traces and
// compares the summary metrics with golden values in testdata/regression.
// The goldens change only on purpose: run with -update and say why in the
// commit message.
func TestRealTraceRegression(t *testing.T) {
	cases := []struct {
		name string
		load func() (*workload.Trace, error)
	}{
		{"KTH-SP2", func() (*workload.Trace, error) { return workload.Builtin(workload.Options{}) }},
		{"SDSC-SP2", func() (*workload.Trace, error) {
			p := filepath.Join("..", "..", "shared", "traces", "SDSC-SP2-1998-4.2-cln.swf.gz")
			if _, err := os.Stat(p); err != nil {
				t.Skipf("%s not present", p)
			}
			return workload.Load(p, workload.Options{})
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if testing.Short() && c.name != "KTH-SP2" {
				t.Skip("short mode")
			}
			tr, err := c.load()
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
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: tr.Procs, Kill: true, KnownRuntime: true, FCFS: spec == "fcfs", Expect: len(tr.Jobs)})
				if !rep.OK() {
					t.Fatalf("%s: %s", spec, rep.String())
				}
				rows = append(rows, metrics.Row{Label: res.Policy, S: metrics.Summarize(res.Outcomes, metrics.Options{Procs: tr.Procs})})
			}
			var buf bytes.Buffer
			if err := metrics.WriteCSV(&buf, rows); err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata", "regression", c.name+".csv")
			if *update {
				if err := os.MkdirAll(filepath.Dir(golden), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(golden, buf.Bytes(), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test ./sim -run RealTraceRegression -update to create it)", err)
			}
			if !bytes.Equal(want, buf.Bytes()) {
				t.Errorf("summary metrics changed on %s\n got:\n%s\nwant:\n%s", c.name, buf.String(), want)
			}
		})
	}
}
