package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestImportSimulate is the done-when: import the committed sacct
// fixture, then simulate it on a machine file under three policies, with
// allocations in jobs.csv.
func TestImportSimulate(t *testing.T) {
	dir := t.TempDir()
	swf := filepath.Join(dir, "site.swf")
	yaml := filepath.Join(dir, "site.yaml")
	if err := os.WriteFile(yaml, []byte("name: testsite\nnodes:\n  - count: 4\n    cores: 8\n    gpus: 1\n    partitions: [debug]\n  - count: 2\n    cores: 16\n    gpus: 2\n    partitions: [long]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "import", "slurm", "../../workload/importer/testdata/sacct-forms.txt", "-o", swf, "--machine", yaml); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	head, _ := os.ReadFile(swf)
	for _, h := range []string{"; Computer: testsite\n", "; MaxNodes: 6\n", "; MaxProcs: 64\n"} {
		if !strings.Contains(string(head), h) {
			t.Errorf("SWF header lacks %q", h)
		}
	}
	for _, f := range []string{"site.swf", "site.sidecar.csv", "site.names.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	out := filepath.Join(dir, "out")
	res, err := run(t, "simulate", "--trace", swf, "--machine", yaml, "--policy", "easy,conservative,slack", "-o", out, "--plain-csv")
	if err != nil {
		t.Fatalf("simulate: %v\n%s", err, res)
	}
	// the sidecar beside site.swf is read: node counts, memory, GPUs and
	// partitions are respected (job 102 asks 3 nodes with a GPU each: the
	// debug nodes have one)
	if !strings.Contains(res, "machine: 64 processors") || !strings.Contains(res, "allocation: easy:") ||
		!strings.Contains(res, "node-level requests: "+filepath.Join(dir, "site.sidecar.csv")+": 10 jobs") || !strings.Contains(res, "fragmentation: ") {
		t.Errorf("summary:\n%s", res)
	}
	data, err := os.ReadFile(filepath.Join(out, "easy.plain.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(data)), "\n")
	if len(lines) != 11 { // header + the 10 jobs that ran
		t.Fatalf("%d lines:\n%s", len(lines), data)
	}
	if !strings.Contains(lines[1], ",0-3,") { // job 1: 4 CPUs, first fit from core 0
		t.Errorf("first job: %s", lines[1])
	}
	// the report draws the real core ids (report.FromAlloc)
	if res, err := run(t, "report", out, "-o", filepath.Join(dir, "r.html")); err != nil {
		t.Errorf("report: %v\n%s", err, res)
	}
	// the documented evalys format, read with Python's csv module when
	// Python is here (evalys parses allocated_resources with procset:
	// space-separated intervals "a-b" or "a")
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("no python3")
	}
	script := `
import csv, re, sys
n = 0
for row in csv.DictReader(open(sys.argv[1])):
    s = row["allocated_resources"]
    assert re.fullmatch(r"\d+(-\d+)?( \d+(-\d+)?)*", s), s
    ivs = [tuple(map(int, x.split("-"))) if "-" in x else (int(x), int(x)) for x in s.split(" ")]
    assert all(a <= b for a, b in ivs), s
    assert all(ivs[i][1] + 1 < ivs[i+1][0] for i in range(len(ivs) - 1)), s
    assert sum(b - a + 1 for a, b in ivs) == int(row["requested_number_of_resources"]), row
    for k in ("job_id", "submission_time", "starting_time", "finish_time", "execution_time", "waiting_time"):
        float(row[k])
    n += 1
print(n)
`
	cmd := exec.Command(py, "-c", script, filepath.Join(out, "easy.plain.csv"))
	b, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(b)) != "10" {
		t.Errorf("python csv check: %v\n%s", err, b)
	}
}
