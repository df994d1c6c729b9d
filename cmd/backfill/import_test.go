package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/machine"
	"github.com/backfill-hpc/backfill/workload"
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

// TestImportSimulateExclusive: a PBS log with a whole-node job, simulated
// on 2 nodes of 4 cores with the sidecar beside the SWF file, worked by
// hand. J1 (2 cores on 2 nodes, 0–100) holds core 0 of node 0 and core 4
// of node 1; J2 (place=excl, 1 node of 4 cores) is submitted at 10: the
// counts have 6 free cores, EASY starts it, but no node is wholly free
// until J1 ends at 100: it runs 100–150. Fragmentation: 1 job, 90 s; 6
// cores free while it waited: 540 core-seconds. With --sidecar none the
// same trace is on cores only: J2 starts at 10.
func TestImportSimulateExclusive(t *testing.T) {
	dir := t.TempDir()
	log := filepath.Join(dir, "acct.log")
	recs := "03/01/2024 12:20:00;E;1.pbs;user=ann queue=workq qtime=1709295600 start=1709295600 end=1709295700 Resource_List.ncpus=2 Resource_List.nodect=2 Resource_List.walltime=00:05:00 Exit_status=0\n" +
		"03/01/2024 12:20:00;E;2.pbs;user=bob queue=workq qtime=1709295610 start=1709295610 end=1709295660 Resource_List.ncpus=4 Resource_List.nodect=1 Resource_List.place=excl Resource_List.walltime=00:05:00 Exit_status=0\n"
	if err := os.WriteFile(log, []byte(recs), 0o644); err != nil {
		t.Fatal(err)
	}
	swf := filepath.Join(dir, "site.swf")
	if out, err := run(t, "import", "pbs", log, "-o", swf); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	for _, tc := range []struct {
		sidecar, want, frag string
	}{
		{"", ",10,4,300,1,COMPLETED_SUCCESSFULLY,100,50,150,90,140,2.800000,0-3,", "fragmentation: 1 jobs waited for their nodes after the policy started them (90 s in all, 45.0 s per job started); 540 core-seconds free but unusable"},
		{"none", ",10,4,300,1,COMPLETED_SUCCESSFULLY,10,50,60,0,50,1.000000,2-5,", ""},
	} {
		out := filepath.Join(dir, "out"+tc.sidecar)
		args := []string{"simulate", "--trace", swf, "--cores-per-node", "4", "--procs", "8", "--policy", "easy", "-o", out, "--plain-csv"}
		if tc.sidecar != "" {
			args = append(args, "--sidecar", tc.sidecar)
		}
		res, err := run(t, args...)
		if err != nil {
			t.Fatalf("simulate: %v\n%s", err, res)
		}
		if tc.frag != "" && (!strings.Contains(res, tc.frag) || !strings.Contains(res, ": 2 jobs (1 exclusive, 0 sized to their whole nodes)")) {
			t.Errorf("sidecar %q: header:\n%s", tc.sidecar, res)
		}
		if tc.frag == "" && strings.Contains(res, "fragmentation") {
			t.Errorf("--sidecar none still reads node-level requests:\n%s", res)
		}
		data, err := os.ReadFile(filepath.Join(out, "easy.plain.csv"))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(data), tc.want) { // J2: submit, size, limit, …, start, run, end, wait, …, cores
			t.Errorf("sidecar %q: want a row %q in\n%s", tc.sidecar, tc.want, data)
		}
	}
}

// TestHarnessNodes simulates the dump of the real Slurm harness
// (.ci/sacct-groundtruth.sh: one node of 32 CPUs, 8 GiB, 4 GPUs,
// partitions debug and long) on that node with its sidecar: the whole-node
// jobs inferred from the counts are exactly the three submitted with
// --exclusive (ground truth), and every policy's schedule passes the core
// and node audits (GPUs and memory included).
func TestHarnessNodes(t *testing.T) {
	dir := t.TempDir()
	swf, yaml := filepath.Join(dir, "h.swf"), filepath.Join(dir, "h.yaml")
	if err := os.WriteFile(yaml, []byte("name: harness\nnodes:\n  - cores: 32\n    memory: 8192M\n    gpus: 4\n    partitions: [debug, long]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := run(t, "import", "slurm", "../../workload/importer/testdata/slurm-harness.sacct.txt", "-o", swf, "--machine", yaml); err != nil {
		t.Fatalf("import: %v\n%s", err, out)
	}
	res, err := run(t, "simulate", "--trace", swf, "--machine", yaml, "--policy", "easy,conservative,fcfs")
	if err != nil {
		t.Fatalf("simulate: %v\n%s", err, res)
	}
	if !strings.Contains(res, "h.sidecar.csv: 266 jobs (3 exclusive, 3 sized to their whole nodes)") {
		t.Errorf("header:\n%s", res)
	}
	// which jobs: those whose sidecar row says 1 CPU asked, 32 allocated
	// on 1 node, against the submissions tagged exclusive
	m, err := machine.Load(yaml)
	if err != nil {
		t.Fatal(err)
	}
	tr, err := workload.Load(swf, workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	dem, err := machine.ReadDemands(filepath.Join(dir, "h.sidecar.csv"))
	if err != nil {
		t.Fatal(err)
	}
	ap, err := machine.Apply(m, tr.Jobs, dem)
	if err != nil {
		t.Fatal(err)
	}
	side, _ := os.ReadFile(filepath.Join(dir, "h.sidecar.csv"))
	slurmID := map[string]string{} // job_number → job_id
	for _, line := range strings.Split(string(side), "\n")[1:] {
		if f := strings.Split(line, ","); len(f) > 1 {
			slurmID[f[0]] = f[1]
		}
	}
	var got []string
	for i, d := range ap.Demands {
		if d.Exclusive {
			got = append(got, slurmID[strconv.FormatInt(tr.Jobs[i].SWFID, 10)])
		}
	}
	sub, _ := os.ReadFile("../../workload/importer/testdata/slurm-harness.submitted.tsv")
	var want []string
	for _, line := range strings.Split(string(sub), "\n") {
		if f := strings.Split(line, "\t"); f[0] == "exclusive" {
			want = append(want, f[1])
		}
	}
	if strings.Join(got, " ") != strings.Join(want, " ") || len(want) != 3 {
		t.Errorf("exclusive jobs %v, submitted with --exclusive %v", got, want)
	}
}
