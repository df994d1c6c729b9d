package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/experiment"
)

const cliSweep = `name: cli
workloads:
  - trace: builtin
    subset: {jobs: 300}
    load: [original, 0.9]
policies:
  - fcfs
  - name: easy
    params: {depth: [1, 2]}
`

func writeExp(t *testing.T, text string) (spec, out string) {
	t.Helper()
	dir := t.TempDir()
	spec = filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(spec, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return spec, filepath.Join(dir, "out")
}

func TestSweepResultsCollect(t *testing.T) {
	spec, out := writeExp(t, cliSweep)
	if _, err := run(t, "sweep", spec, "--out", out, "--workers", "2", "--progress", "log"); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"plan.json", "experiment.yaml", "summary.csv", "summary.parquet"} {
		if _, err := os.Stat(filepath.Join(out, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	// resumable: nothing left to do
	got, err := run(t, "sweep", spec, "--out", out, "--progress", "log")
	if err != nil || !strings.Contains(got, "6 runs: 6 already done, 0 run now, 0 failed") {
		t.Errorf("rerun: %v\n%s", err, got)
	}
	table, err := run(t, "results", out)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(table), "\n")
	if len(lines) != 7 || !strings.Contains(lines[0], "load") || !strings.Contains(lines[0], "mean_wait") || strings.Contains(lines[0], "month") {
		t.Errorf("results table:\n%s", table)
	}
	csv, err := run(t, "results", out, "--format", "csv", "--where", "policy_name=easy", "--where", "load>=0.9", "--columns", "policy,load,p_depth,mean_wait")
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(csv), "\n")
	if len(rows) != 3 || rows[0] != "policy,load,p_depth,mean_wait" || !strings.HasPrefix(rows[1], "easy:depth=1,0.9,1,") || !strings.HasPrefix(rows[2], "easy:depth=2,0.9,2,") {
		t.Errorf("filtered CSV:\n%s", csv)
	}
	js, err := run(t, "results", out, "--format", "json", "--where", "policy~depth=2")
	if err != nil {
		t.Fatal(err)
	}
	var objs []map[string]any
	if err := json.Unmarshal([]byte(js), &objs); err != nil || len(objs) != 2 || objs[0]["p_depth"] != float64(2) {
		t.Errorf("JSON %v:\n%s", err, js)
	}
	pq := filepath.Join(t.TempDir(), "r.parquet")
	if _, err := run(t, "results", out, "--format", "parquet", "-o", pq); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(pq); err != nil || string(b[:4]) != "PAR1" {
		t.Errorf("parquet output: %v", err)
	}
	if _, err := run(t, "results", out, "--where", "nosuch=1"); err == nil || !strings.Contains(err.Error(), `no column "nosuch"`) {
		t.Errorf("bad column: %v", err)
	}
	if _, err := run(t, "results", out, "--where", "load>high"); err == nil {
		t.Error("non-numeric comparison accepted")
	}
	if got, err := run(t, "collect", out); err != nil || !strings.Contains(got, "6 runs planned: 6 present (6 ok), 0 missing") {
		t.Errorf("collect: %v\n%s", err, got)
	}
	// a missing run makes collect fail and name it
	var plan experiment.Plan
	b, _ := os.ReadFile(filepath.Join(out, "plan.json"))
	json.Unmarshal(b, &plan)
	os.RemoveAll(filepath.Join(out, "runs", plan.Runs[4].ID))
	if _, err := run(t, "collect", out); err == nil || !strings.Contains(err.Error(), "missing run "+plan.Runs[4].ID) {
		t.Errorf("collect with a missing run: %v", err)
	}
}

func TestSweepShardsAndDryRun(t *testing.T) {
	spec, out := writeExp(t, cliSweep)
	for _, s := range []string{"0/2", "1/2"} {
		got, err := run(t, "sweep", spec, "--out", out, "--shard", s, "--progress", "none")
		if err != nil || !strings.Contains(got, "shard "+s+" (--shard): 3 runs") {
			t.Fatalf("shard %s: %v\n%s", s, err, got)
		}
	}
	got, err := run(t, "sweep", spec, "--out", out, "--dry-run")
	if err != nil || !strings.Contains(got, "6 runs (shard all), 6 done, 0 to do") {
		t.Errorf("dry run: %v\n%s", err, got)
	}
	if _, err := run(t, "collect", out); err != nil {
		t.Error(err)
	}
	t.Setenv("SLURM_ARRAY_TASK_ID", "1")
	t.Setenv("SLURM_ARRAY_TASK_COUNT", "3")
	got, err = run(t, "sweep", spec, "--out", out, "--dry-run")
	if err != nil || !strings.Contains(got, "2 runs (shard 1/3), 2 done") {
		t.Errorf("Slurm shard: %v\n%s", err, got)
	}
	if _, err := run(t, "sweep", spec, "--shard", "3/3", "--dry-run"); err == nil {
		t.Error("shard 3/3 accepted")
	}
}

func TestSweepYAMLError(t *testing.T) {
	spec, _ := writeExp(t, "workloads:\n  - trace: builtin\n    laod: 0.5\npolicies: [fcfs]\n")
	_, err := run(t, "sweep", spec)
	if err == nil || !strings.Contains(err.Error(), "exp.yaml:3: workloads[0].laod: unknown key") {
		t.Errorf("error %v", err)
	}
}

func TestEmitSlurm(t *testing.T) {
	spec, out := writeExp(t, cliSweep)
	got, err := run(t, "sweep", spec, "--out", out, "--emit-slurm", "--partition", "short", "--time", "1:00:00",
		"--cpus-per-task", "4", "--shards", "3", "--array-limit", "2", "--sbatch=--qos=low", "--binary", "/opt/bin/backfill")
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"#!/bin/bash\n", "#SBATCH --array=0-2%2\n", "#SBATCH --cpus-per-task=4\n", "#SBATCH --partition=short\n",
		"#SBATCH --time=1:00:00\n", "#SBATCH --qos=low\n", "#SBATCH --output=" + out + "/slurm/%A_%a.out\n",
		"exec /opt/bin/backfill sweep " + spec + " --out " + out + ` --workers "${SLURM_CPUS_PER_TASK:-1}"`} {
		if !strings.Contains(got, w) {
			t.Errorf("script lacks %q:\n%s", w, got)
		}
	}
	if st, err := os.Stat(filepath.Join(out, "slurm")); err != nil || !st.IsDir() {
		t.Error("the log directory was not created")
	}
	// default: one task per run
	got, _ = run(t, "sweep", spec, "--out", out, "--emit-slurm")
	if !strings.Contains(got, "#SBATCH --array=0-5\n") {
		t.Errorf("default array:\n%s", got)
	}
	if _, err := run(t, "sweep", spec, "--out", out, "--emit-slurm", "--partition", "a b"); err == nil {
		t.Error("a partition with a space accepted")
	}
}
