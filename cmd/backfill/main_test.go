package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// run executes the CLI in-process and returns stdout and the error.
func run(t *testing.T, args ...string) (string, error) {
	t.Helper()
	root := newRoot()
	var out bytes.Buffer
	root.SetOut(&out)
	root.SetErr(&out)
	root.SetArgs(args)
	err := root.Execute()
	return out.String(), err
}

func TestSimulateDefaultTable(t *testing.T) {
	t.Parallel() // CPU-bound: overlaps with the waits of TestAttackJobs
	out, err := run(t, "simulate")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# trace: KTH-SP2-1996-2.1-cln.swf.gz", "# machine: 100 processors (MaxProcs header)", "fcfs", "easy", "conservative", "mean wait", "short wait"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
}

func TestSimulateDeterministicAcrossWorkers(t *testing.T) {
	t.Parallel() // CPU-bound: overlaps with the waits of TestAttackJobs
	a, err := run(t, "simulate", "--format", "csv", "--workers", "1", "--policy", "fcfs,easy,conservative,easy:depth=2")
	if err != nil {
		t.Fatal(err)
	}
	b, err := run(t, "simulate", "--format", "csv", "--workers", "4", "--policy", "fcfs,easy,conservative,easy:depth=2")
	if err != nil {
		t.Fatal(err)
	}
	if a != b {
		t.Fatalf("output depends on the number of workers:\n%s\n---\n%s", a, b)
	}
}

func TestSimulateJSON(t *testing.T) {
	out, err := run(t, "simulate", "--format", "json", "--policy", "easy")
	if err != nil {
		t.Fatal(err)
	}
	var v struct {
		Trace   string
		Procs   int
		Header  []string
		Results []map[string]any
	}
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if v.Procs != 100 || len(v.Results) != 1 || len(v.Header) == 0 {
		t.Fatalf("unexpected JSON: %+v", v)
	}
}

// TestOutAndCheck writes per-job CSV and SWF schedules, then audits the SWF
// schedules with `check`, which must find no violation; a tampered schedule
// must fail.
func TestOutAndCheck(t *testing.T) {
	dir := t.TempDir()
	if _, err := run(t, "simulate", "--policy", "fcfs,conservative", "--out", dir); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"fcfs.jobs.csv", "fcfs.swf", "conservative.jobs.csv", "conservative.swf", "summary.txt", "summary.json", "summary.csv"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing output %s", f)
		}
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "fcfs.jobs.csv"))
	if !strings.Contains(string(csv), "job_id,workload_name,submission_time,requested_number_of_resources,requested_time,success") {
		t.Errorf("jobs.csv lacks the Batsim header")
	}
	out, err := run(t, "check", filepath.Join(dir, "fcfs.swf"), "--fcfs")
	if err != nil {
		t.Fatalf("check of our own schedule: %v\n%s", err, out)
	}
	if !strings.Contains(out, "28475 jobs on 100 processors") {
		t.Errorf("check output: %s", out)
	}
	// tamper: start the second job at the submit time of the first, with a
	// machine too small for what runs
	bad := filepath.Join(dir, "bad.swf")
	swf := "; MaxProcs: 4\n1 0 0 100 4 -1 -1 4 100 -1 1 1 1 -1 -1 -1 -1 -1\n2 0 0 100 2 -1 -1 2 100 -1 1 1 1 -1 -1 -1 -1 -1\n"
	if err := os.WriteFile(bad, []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err = run(t, "check", bad)
	if err == nil || !strings.Contains(out, "capacity") {
		t.Fatalf("check accepted an over-capacity schedule: %v\n%s", err, out)
	}
}

func TestInfoBuiltin(t *testing.T) {
	out, err := run(t, "info")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"28475", "offered load", "100"} {
		if !strings.Contains(out, want) {
			t.Errorf("info lacks %q:\n%s", want, out)
		}
	}
}

func TestErrors(t *testing.T) {
	cases := [][]string{
		{"simulate", "--policy", "nosuch"},
		{"simulate", "--policy", "easy:depth=x"},
		{"simulate", "--policy", "easy:depth=0"},
		{"simulate", "--policy", "fcfs:foo=1"},
		{"simulate", "--format", "xml"},
		{"simulate", "--trace", "/nonexistent.swf"},
		{"info", "/nonexistent.swf"},
		{"check", "/nonexistent.swf"},
	}
	for _, args := range cases {
		if _, err := run(t, args...); err == nil {
			t.Errorf("%v: expected an error", args)
		}
	}
	// a malformed trace names file and line
	bad := filepath.Join(t.TempDir(), "bad.swf")
	os.WriteFile(bad, []byte("1 0 0 10 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n2 5 0 x 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"), 0o644)
	_, err := run(t, "simulate", "--trace", bad, "--procs", "4")
	if err == nil || !strings.Contains(err.Error(), "bad.swf:2") {
		t.Errorf("malformed trace: error %v does not name file:line", err)
	}
	if _, err := run(t, "simulate", "--trace", bad, "--procs", "4", "--lenient"); err != nil {
		t.Errorf("lenient mode failed: %v", err)
	}
}

func TestPolicies(t *testing.T) {
	out, err := run(t, "policies")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fcfs", "easy", "conservative", "depth"} {
		if !strings.Contains(out, want) {
			t.Errorf("policies lacks %q", want)
		}
	}
}

func TestReproduceSlackTwoMonths(t *testing.T) {
	out, err := run(t, "reproduce", "slack", "--procs", "128", "--months", "1996-09,1997-07")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"== P = 128 processors", "1997-07", "2185", "399.9", "354.1", "year", "AST, SF=3", "16.5 %", "differential priorities", "tick strategy (§4.7)", "jobs that reach their estimate saved"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := run(t, "reproduce", "slack", "--months", "2001-01"); err == nil {
		t.Error("unknown month accepted")
	}
}

// TestSimulateOverrunExtend: --overrun extend gives slack-based
// backfilling's tick strategy a say (jobs saved, fewer killed), leaves
// conservative killing, and is reported in the header; bad values and a
// contradiction with --no-kill are errors.
func TestSimulateOverrunExtend(t *testing.T) {
	t.Parallel() // CPU-bound: overlaps with the waits of TestAttackJobs
	out, err := run(t, "simulate", "--policy", "conservative,slack", "--procs", "128", "--overrun", "extend", "--format", "csv")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out, "# tick strategy: conservative granted 0 extensions; 0 jobs saved, 475 killed") {
		t.Errorf("conservative line missing:\n%s", out)
	}
	var saved, killed int
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "# tick strategy: slack") {
			var ext int
			if _, err := fmt.Sscanf(l[strings.Index(l, "granted"):], "granted %d extensions; %d jobs saved, %d killed", &ext, &saved, &killed); err != nil {
				t.Fatalf("%q: %v", l, err)
			}
		}
	}
	if saved == 0 || killed+saved != 475 {
		t.Errorf("slack saved %d, killed %d; want some saved and saved+killed = 475 (the jobs that reach their estimate)", saved, killed)
	}
	for _, bad := range [][]string{{"--overrun", "maybe"}, {"--overrun", "extend", "--no-kill"}} {
		if _, err := run(t, append([]string{"simulate", "--policy", "easy"}, bad...)...); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
}
