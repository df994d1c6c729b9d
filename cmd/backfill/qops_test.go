package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSimulateDeadlines(t *testing.T) {
	args := []string{"simulate", "--estimate", "exact", "--deadlines", "s=0.2:l=1.4:frac=0.8:offset=500:n=300",
		"--policy", "qops,msb,mrt,easy"}
	out, err := run(t, args...)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"# rule: deadline workload s=0.2:l=1.4:load=dup:frac=0.8:offset=500:n=300:seed=1",
		"# rule: load 1.4 by duplication: 120 duplicates", "on 336 of 420 jobs", "unadmitted %", "non-dl resp"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	csv1, err := run(t, append(args, "--format", "csv", "--workers", "1")...)
	if err != nil {
		t.Fatal(err)
	}
	csv2, _ := run(t, append(args, "--format", "csv", "--workers", "3")...)
	if csv1 != csv2 || !strings.Contains(csv1, "unadmitted_deadline_pct") {
		t.Errorf("CSV differs between worker counts or lacks the admission columns:\n%s", csv1)
	}
	dir := t.TempDir()
	if _, err := run(t, append(args, "--out", dir)...); err != nil {
		t.Fatal(err)
	}
	jobs, err := os.ReadFile(filepath.Join(dir, "qops.jobs.csv"))
	if err != nil || !strings.Contains(string(jobs), "REJECTED") || !strings.Contains(string(jobs), ",deadline,reason") {
		t.Errorf("qops.jobs.csv: %v\n%.500s", err, jobs)
	}
	for _, bad := range []string{"s=1", "l=0.5", "n=99999999", "bogus=1"} {
		if _, err := run(t, "simulate", "--deadlines", bad, "--policy", "qops"); err == nil || !strings.Contains(err.Error(), "--deadlines") {
			t.Errorf("--deadlines %s: err %v", bad, err)
		}
	}
}
