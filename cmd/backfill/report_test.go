package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// simulate --out, then report and plot on the directory; and report
// straight from a simulation.
func TestReportAndPlotCLI(t *testing.T) {
	t.Parallel() // CPU-bound: overlaps with the waits of TestAttackJobs
	dir := t.TempDir()
	out := filepath.Join(dir, "out")
	if _, err := run(t, "simulate", "--policy", "easy,easy:depth=3,conservative", "--out", out); err != nil {
		t.Fatal(err)
	}
	html := filepath.Join(dir, "r.html")
	msg, err := run(t, "report", out, "-o", html, "--gantt", "conservative", "--classes", "size:1,16")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(msg, "3 runs, 1 Gantt charts") {
		t.Errorf("report said: %s", msg)
	}
	b, err := os.ReadFile(html)
	if err != nil {
		t.Fatal(err)
	}
	page := string(b)
	for _, want := range []string{`id="summary-table"`, `"rule":"size:1,16"`, `"run":"conservative"`, "easy:depth=3", `id="report-data"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	fig := filepath.Join(dir, "depth.svg")
	if msg, err := run(t, "plot", out, "--x", "depth", "--metric", "mean_wait", "-o", fig); err != nil || !strings.Contains(msg, "wrote") {
		t.Fatalf("%s %v", msg, err)
	}
	if st, err := os.Stat(fig); err != nil || st.Size() < 1000 {
		t.Errorf("figure: %v", err)
	}

	// no input: simulate, then report
	html2 := filepath.Join(dir, "r2.html")
	if msg, err := run(t, "report", "--policy", "fcfs,easy", "-o", html2, "--gantt", "none"); err != nil || !strings.Contains(msg, "2 runs, 0 Gantt charts") {
		t.Fatalf("%s %v", msg, err)
	}

	// errors
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"report", out, "--gantt", "sjf"}, `--gantt: no run "sjf"`},
		{[]string{"report", out, "--policy", "easy"}, "--policy: simulation flags"},
		{[]string{"report", out, "--load", "0.8", "--trace", "x"}, "--load, --trace: simulation flags"},
		{[]string{"report", filepath.Join(dir, "missing")}, "no such file"},
		{[]string{"plot", out, "-o", filepath.Join(dir, "x.gif")}, "unknown figure format"},
		{[]string{"plot", out, "--metric", "speed", "-o", fig}, "unknown metric"},
	} {
		if _, err := run(t, c.args...); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want %q", c.args, err, c.want)
		}
	}
}
