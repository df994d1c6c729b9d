package main

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultRunExplained: the default run names its units, says what it
// is and why FCFS waits are days, and records the version.
func TestDefaultRunExplained(t *testing.T) {
	out, err := run(t, "simulate", "--human")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# version: ", "# note: the default run: FCFS, EASY and conservative", "FCFS waits are days", "mean wait  ", "4d 02h"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	out, err = run(t, "simulate", "--policy", "easy")
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(out, "note: the default run") || !strings.Contains(out, "mean wait (s)") || !strings.Contains(out, "makespan (s)") {
		t.Errorf("a chosen run has no default-run note and units in every duration header:\n%s", out)
	}
	v, err := run(t, "--version")
	if err != nil || !strings.Contains(v, "go1.") {
		t.Errorf("--version: %q %v", v, err)
	}
}

// TestMachineReadableFormats: info, check and bench speak JSON and CSV;
// check lists a limited number of violations and a summary.
func TestMachineReadableFormats(t *testing.T) {
	t.Parallel() // CPU-bound: overlaps with the waits of TestAttackJobs
	out, err := run(t, "info", "--format", "json")
	if err != nil {
		t.Fatal(err)
	}
	var info struct {
		Version string
		Summary struct{ Jobs int }
	}
	if err := json.Unmarshal([]byte(out), &info); err != nil || info.Summary.Jobs != 28475 || info.Version == "" {
		t.Errorf("info --format json: %v %+v", err, info)
	}
	out, err = run(t, "info", "--format", "csv")
	if rows, cerr := csv.NewReader(strings.NewReader(out)).ReadAll(); err != nil || cerr != nil || rows[0][0] != "key" || !strings.Contains(out, "summary.Jobs,28475") {
		t.Errorf("info --format csv: %v %v\n%.300s", err, cerr, out)
	}

	dir := t.TempDir()
	if _, err := run(t, "simulate", "--policy", "easy", "--out", dir, "--plain-csv"); err != nil {
		t.Fatal(err)
	}
	sched := filepath.Join(dir, "easy.swf")
	out, err = run(t, "check", sched, "--fcfs", "--limit", "3")
	if err == nil || strings.Count(out, "fcfs-order job") != 3 || !strings.Contains(out, "summary: ") || !strings.Contains(out, "more fcfs-order violations not shown") {
		t.Errorf("check --fcfs --limit 3: %v\n%s", err, out)
	}
	out, _ = run(t, "check", sched, "--fcfs", "--limit", "2", "--format", "json")
	var ck struct {
		Total      int `json:"violations_total"`
		Violations []struct{ Kind string }
	}
	if err := json.Unmarshal([]byte(out), &ck); err != nil || len(ck.Violations) != 2 || ck.Total < 1000 {
		t.Errorf("check --format json: %v %+v", err, ck)
	}
	out, _ = run(t, "check", sched, "--fcfs", "--limit", "2", "--format", "csv")
	if rows, err := csv.NewReader(strings.NewReader(out)).ReadAll(); err != nil || len(rows) != 3 || rows[0][0] != "kind" {
		t.Errorf("check --format csv: %v %q", err, rows)
	}

	// the plain jobs CSV starts with its header row; the provenance is beside it
	b, err := os.ReadFile(filepath.Join(dir, "easy.plain.csv"))
	if err != nil || !strings.HasPrefix(string(b), "job_id,") || strings.Contains(string(b), "\n#") {
		t.Errorf("easy.plain.csv: %v %.80q", err, b)
	}
	if p, err := os.ReadFile(filepath.Join(dir, "easy.provenance.txt")); err != nil || !strings.Contains(string(p), "trace: KTH") {
		t.Errorf("provenance: %v %q", err, p)
	}
	// evalys draws from allocated_resources: filled (the report's drawing
	// rule), each job's intervals adding up to its size
	rows, err := csv.NewReader(strings.NewReader(string(b))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == "allocated_resources" {
			col = i
		}
	}
	if col < 0 || rows[1][col] == "" {
		t.Errorf("allocated_resources empty in the plain CSV: %q", rows[1])
	}
}
