package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
)

// testdata/sweep-small is a results directory written by `backfill sweep
// testdata/sweep-small.yaml` (the workbench of issue 9, built from its
// branch), without the timing.json files and the summary tables: 150 KTH
// jobs at loads 0.7 and 0.9, factor:2 estimates with seeds 1 and 2, EASY
// and conservative.
const sweepSmall = "testdata/sweep-small"

func TestLoadSweepDir(t *testing.T) {
	res, err := Load(sweepSmall, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Kind != "sweep" || len(res.Runs) != 8 || len(res.Warnings) != 0 {
		t.Fatalf("kind %s, %d runs, warnings %v", res.Kind, len(res.Runs), res.Warnings)
	}
	var labels []string
	for _, r := range res.Runs {
		labels = append(labels, r.Label)
		outs, err := r.jobs(true)
		if err != nil {
			t.Fatal(err)
		}
		if len(outs) != 150 || r.Procs != 100 || r.Opt.Tau != 10 || r.jobCount() != 150 {
			t.Errorf("%s: %d jobs, %d procs, tau %d", r.Label, len(outs), r.Procs, r.Opt.Tau)
		}
		// the summary stored by the sweep equals the one recomputed from
		// jobs.parquet: the rows were decoded right, from all the columns
		// and from the statistics' columns alone
		lite, err := r.jobs(false)
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range [][]job.Outcome{outs, lite} {
			got := metrics.Summarize(o, r.Opt)
			if got.All != r.Summary.All || got.Short != r.Summary.Short || got.Long != r.Summary.Long || got.Makespan != r.Summary.Makespan || got.Utilization != r.Summary.Utilization {
				t.Errorf("%s: summary from jobs.parquet\n %+v\nresult.json\n %+v", r.Label, got, r.Summary)
			}
		}
		if r.Policy == "conservative" && outs[10].Bound < outs[10].Start {
			t.Errorf("%s: job 10 bound %d before its start %d", r.Label, outs[10].Bound, outs[10].Start)
		}
	}
	for _, want := range []string{"easy load=0.7 seed=1", "conservative load=0.9 seed=2"} {
		if !slices.Contains(labels, want) {
			t.Errorf("labels %v lack %q", labels, want)
		}
	}
	lines := Lines(res, "load")
	if len(lines) != 2 || lines[0].Name != "conservative" || !slices.Equal(lines[0].X, []float64{0.7, 0.9}) || len(lines[0].Runs[1]) != 2 {
		t.Errorf("lines against load: %+v", lines)
	}
	if _, err := Build(res, BuildOptions{}); err != nil {
		t.Fatal(err)
	}

	// a bound on the jobs read: the later runs keep their summary only
	res, err = Load(sweepSmall, LoadOptions{MaxJobs: 400})
	if err != nil {
		t.Fatal(err)
	}
	with := 0
	for _, r := range res.Runs {
		if r.HasJobs() {
			with++
		}
	}
	if with != 2 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "6 runs (900 jobs) not read") {
		t.Errorf("%d runs with outcomes, warnings %v", with, res.Warnings)
	}
	d, err := Build(res, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Summary.Rows) != 8 || len(d.Gantt) != 2 || len(d.CDF) != 2 {
		t.Errorf("summary rows %d, gantts %d, cdfs %d", len(d.Summary.Rows), len(d.Gantt), len(d.CDF))
	}
}

func TestLoadSweepDirInProgress(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(sweepSmall)); err != nil {
		t.Fatal(err)
	}
	runs, _ := filepath.Glob(filepath.Join(dir, "runs", "*"))
	if err := os.Remove(filepath.Join(runs[0], "result.json")); err != nil {
		t.Fatal(err)
	}
	res, err := Load(dir, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 7 || len(res.Warnings) != 1 || !strings.Contains(res.Warnings[0], "1 of the 8 runs of the plan have no result yet") {
		t.Errorf("%d runs, warnings %v", len(res.Runs), res.Warnings)
	}
	if err := os.WriteFile(filepath.Join(runs[1], "jobs.parquet"), []byte("not parquet"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(dir, LoadOptions{}); err == nil || !strings.Contains(err.Error(), "jobs.parquet") {
		t.Errorf("corrupt jobs.parquet: %v", err)
	}
}
