package sim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/machine"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// TestRegressionOnNodes reruns TestRealTraceRegression's policies with
// every job given concrete cores on a machine of one core per node (the
// default rule) and compares the summaries with the same golden files,
// byte for byte: node-level allocation does not change a schedule. The
// audit also checks that no core is held by two jobs at once. It never
// rewrites the goldens.
func TestRegressionOnNodes(t *testing.T) {
	for _, name := range []string{"KTH-SP2", "SDSC-SP2"} {
		t.Run(name, func(t *testing.T) {
			var tr *workload.Trace
			var err error
			if name == "KTH-SP2" {
				tr, err = workload.Builtin(workload.Options{})
			} else {
				if longtest.Short() {
					t.Skip("short mode")
				}
				p := filepath.Join("..", "..", "shared", "traces", "SDSC-SP2-1998-4.2-cln.swf.gz")
				if _, err := os.Stat(p); err != nil {
					t.Skipf("%s not present", p)
				}
				tr, err = workload.Load(p, workload.Options{})
			}
			if err != nil {
				t.Fatal(err)
			}
			m, err := machine.Uniform(tr.Procs, 1)
			if err != nil {
				t.Fatal(err)
			}
			var rows []metrics.Row
			for _, spec := range regressionPolicies {
				s, err := policy.New(spec, tr.Procs)
				if err != nil {
					t.Fatal(err)
				}
				a := machine.NewAllocator(m, machine.FirstFit, len(tr.Jobs))
				res, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs, Placer: a})
				if err != nil {
					t.Fatal(err)
				}
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: tr.Procs, Kill: true, KnownRuntime: true, FCFS: policy.InArrivalOrder(s),
					Expect: len(tr.Jobs), Cores: a.Intervals})
				if !rep.OK() {
					t.Fatalf("%s: %s", spec, rep.String())
				}
				rows = append(rows, metrics.Row{Label: res.Policy, S: metrics.Summarize(res.Outcomes, metrics.Options{Procs: tr.Procs})})
			}
			var buf bytes.Buffer
			if err := metrics.WriteCSV(&buf, rows); err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(filepath.Join("testdata", "regression", name+".csv"))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), want) {
				t.Errorf("with node-level allocation the summaries differ from the goldens:\n%s\nwant:\n%s", buf.Bytes(), want)
			}
		})
	}
}
