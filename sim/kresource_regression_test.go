package sim_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
	wkres "github.com/backfill-hpc/backfill/workload/kresource"
)

var kresRegressionPolicies = []string{"fcfs", "ff-easy", "bl-easy", "bb-easy", "bb-easy:fullness=off", "ff-cons"}

// TestKResourceRegression runs the K-resource policies on the embedded KTH
// trace with K = 4 uniform requirement vectors (seed 1, every capacity
// 100) and on HPC2N with memory (K = 2, when the shared traces are
// present) and compares the summary metrics with the goldens in
// testdata/regression-kresource (-update to rewrite them; say why in the
// commit).
func TestKResourceRegression(t *testing.T) {
	cases := []struct {
		name string
		load func() ([]job.Job, []int, error)
	}{
		{"KTH-SP2-K4", func() ([]job.Job, []int, error) {
			tr, err := workload.Builtin(workload.Options{})
			if err != nil {
				return nil, nil, err
			}
			jobs := slices.Clone(tr.Jobs)
			return jobs, []int{100, 100, 100, 100}, wkres.Vectors(jobs, 4, wkres.Uniform, 1)
		}},
		{"HPC2N-mem", func() ([]job.Job, []int, error) {
			p := filepath.Join("..", "..", "shared", "traces", "HPC2N-2002-2.2-cln.swf.gz")
			if _, err := os.Stat(p); err != nil {
				t.Skipf("%s not present", p)
			}
			tr, err := workload.Load(p, workload.Options{Mem: true})
			if err != nil {
				return nil, nil, err
			}
			return tr.Jobs, tr.Caps(), nil
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if longtest.Short() && c.name != "KTH-SP2-K4" {
				t.Skip("short mode")
			}
			jobs, caps, err := c.load()
			if err != nil {
				t.Fatal(err)
			}
			var rows []metrics.Row
			for _, spec := range kresRegressionPolicies {
				s, err := policy.NewK(spec, caps)
				if err != nil {
					t.Fatal(err)
				}
				res, err := sim.Run(jobs, s, sim.Options{Procs: caps[0], Res: caps[1:]})
				if err != nil {
					t.Fatal(err)
				}
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: caps[0], Res: caps[1:], Kill: true, KnownRuntime: true, FCFS: policy.InArrivalOrder(s), Expect: len(jobs)})
				if !rep.OK() {
					t.Fatalf("%s: %s", spec, rep.String())
				}
				rows = append(rows, metrics.Row{Label: res.Policy, S: metrics.Summarize(res.Outcomes, metrics.Options{Procs: caps[0]})})
			}
			var buf bytes.Buffer
			if err := metrics.WriteCSV(&buf, rows); err != nil {
				t.Fatal(err)
			}
			checkGolden(t, "regression-kresource", c.name+".csv", buf.Bytes())
		})
	}
}
