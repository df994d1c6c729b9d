package simulate_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/report"
	"github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
)

// On backfillable, FCFS starts job 2 only after job 1 ends (110): waits
// 0, 99, 108, mean 69; EASY backfills it at 2: waits 0, 99, 0, mean 33.
func TestBatchOrderAndProgress(t *testing.T) {
	var ended atomic.Int64
	res, err := simulate.Batch(backfillable(), "t", []string{"fcfs", "easy"}, simulate.Options{Procs: 2}, 2,
		func(n int) { ended.Add(int64(n)) })
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 2 || res[0].Policy != "fcfs" || res[1].Policy != "easy" {
		t.Fatalf("results %v, want fcfs then easy", res)
	}
	if w := res[0].Summary.All.MeanWait; w != 69 {
		t.Errorf("fcfs mean wait %v, want 69", w)
	}
	if w := res[1].Summary.All.MeanWait; w != 33 {
		t.Errorf("easy mean wait %v, want 33", w)
	}
	if ended.Load() != 6 {
		t.Errorf("progress counted %d ended jobs, want 6 (3 per run)", ended.Load())
	}
	rows := simulate.Rows(res)
	if rows[0].Label != "fcfs" || rows[1].S.All.MeanWait != 33 {
		t.Errorf("rows %+v", rows)
	}
}

func TestBatchErrorNamesSpecAndWorkload(t *testing.T) {
	_, err := simulate.Batch(backfillable(), "trace.swf", []string{"easy", "nosuch"}, simulate.Options{Procs: 2}, 1, nil)
	if err == nil || !strings.HasPrefix(err.Error(), "nosuch on trace.swf: ") {
		t.Fatalf("err = %v, want it to start with \"nosuch on trace.swf: \"", err)
	}
}

func trace() *workload.Trace {
	return &workload.Trace{Name: "t.swf", Procs: 2, ProcsSource: "MaxProcs header", Jobs: backfillable(), Rules: []string{"skipped: none"}}
}

func TestHeader(t *testing.T) {
	h := simulate.Header(trace(), "v1", simulate.Options{Extend: true, Metrics: metrics.Options{Tau: 10, WarmUp: 5}})
	want := []string{
		"version: v1", "trace: t.swf", "machine: 2 processors (MaxProcs header)", "jobs simulated: 3", "rule: skipped: none",
		"kill: a job still running at its estimate is offered an extension by policies with the tick strategy (--overrun extend), killed by the others",
		"bounded slowdown tau: 10 s", "averages exclude jobs submitted in the first 5 s and the last 0 s",
	}
	if !slices.Equal(h, want) {
		t.Fatalf("header\n%q\nwant\n%q", h, want)
	}
	h = simulate.Header(trace(), "v1", simulate.Options{NoKill: true, Metrics: metrics.Options{Tau: 10}})
	if h[5] != "kill: jobs run past their estimate (--overrun run)" || len(h) != 7 {
		t.Fatalf("no-kill header %q", h)
	}
}

func TestExtensionNotesOnlyWhenExtending(t *testing.T) {
	res, err := simulate.Batch(backfillable(), "t", []string{"easy"}, simulate.Options{Procs: 2}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if n := simulate.ExtensionNotes(simulate.Options{}, res); n != nil {
		t.Errorf("notes without extend: %q", n)
	}
	n := simulate.ExtensionNotes(simulate.Options{Extend: true}, res)
	if len(n) != 1 || n[0] != "tick strategy: easy granted 0 extensions; 0 jobs saved, 0 killed" {
		t.Errorf("notes %q", n)
	}
	if a := simulate.AllocNotes(res); a != nil {
		t.Errorf("allocation notes without a machine: %q", a)
	}
}

func TestFileName(t *testing.T) {
	for in, want := range map[string]string{"easy": "easy", "easy:depth=4": "easy_depth-4", "a/b c": "a_b_c"} {
		if got := simulate.FileName(in); got != want {
			t.Errorf("FileName(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestWriteDir(t *testing.T) {
	tr := trace()
	res, err := simulate.Batch(tr.Jobs, tr.Name, []string{"easy:depth=2"}, simulate.Options{Procs: 2}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := filepath.Join(t.TempDir(), "out")
	if err := simulate.WriteDir(dir, tr, res, simulate.Rows(res), []string{"version: v1"}, simulate.DirOptions{Tau: 10, PlainCSV: true}); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(dir)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	want := []string{"easy_depth-2.jobs.csv", "easy_depth-2.plain.csv", "easy_depth-2.provenance.txt", "easy_depth-2.swf", "summary.csv", "summary.json", "summary.txt"}
	if !slices.Equal(names, want) {
		t.Fatalf("files %q, want %q", names, want)
	}
	csv, _ := os.ReadFile(filepath.Join(dir, "easy_depth-2.jobs.csv"))
	if !strings.HasPrefix(string(csv), "# policy: easy:depth=2\n# version: v1\n") {
		t.Errorf("jobs.csv starts %q", string(csv)[:min(60, len(csv))])
	}
	plain, _ := os.ReadFile(filepath.Join(dir, "easy_depth-2.plain.csv"))
	if strings.Contains(string(plain), "#") {
		t.Errorf("plain CSV holds comment lines")
	}
	// without a machine, the processors of report.Assign: job 0 (1
	// processor) gets processor 0, job 1 both
	if !strings.Contains(string(plain), ",0-1,") || !strings.Contains(string(plain), ",0,") {
		t.Errorf("plain CSV without the drawing rule's processors:\n%s", plain)
	}
	prov, _ := os.ReadFile(filepath.Join(dir, "easy_depth-2.provenance.txt"))
	if !strings.HasPrefix(string(prov), "policy: easy:depth=2\nversion: v1\nallocated_resources: ") {
		t.Errorf("provenance %q", prov)
	}
}

func TestReportResults(t *testing.T) {
	tr := trace()
	res, err := simulate.Batch(tr.Jobs, tr.Name, []string{"easy:depth=2"}, simulate.Options{Procs: 2}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	rr := simulate.ReportResults(tr, res, []string{"h"}, metrics.Options{Procs: 2, Tau: 10})
	r := rr.Runs[0]
	if rr.Kind != "simulation" || len(rr.Runs) != 1 || r.Label != "easy:depth=2" || r.Policy != "easy" || len(r.Params) != 1 || r.Params[0] != (report.KV{Name: "depth", Value: "2"}) ||
		!slices.Equal(r.Header, []string{"policy: easy:depth=2", "h"}) || len(r.Outcomes) != 3 {
		t.Fatalf("report run %+v", r)
	}
}

// Several policies on one workload, in parallel, results in spec order.
func ExampleBatch() {
	jobs := backfillable() // 3 jobs on 2 processors; job 2 can backfill
	res, err := simulate.Batch(jobs, "example", []string{"fcfs", "easy"}, simulate.Options{Procs: 2}, 2, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, r := range res {
		fmt.Printf("%s: mean wait %.0f s\n", r.Policy, r.Summary.All.MeanWait)
	}
	// Output:
	// fcfs: mean wait 69 s
	// easy: mean wait 33 s
}
