package report

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
)

// TestNoNullLists: a report of runs without any policy parameter has no
// parameter plots; its JSON must say [] (the page iterates), never null.
func TestNoNullLists(t *testing.T) {
	outs := []job.Outcome{{Job: job.Job{Request: job.Request{SWFID: 1, User: 1, Procs: 2, Submit: 0, Estimate: 100}, Runtime: 100}, Start: 0, End: 100, Bound: -1}}
	res := &Results{Kind: "simulation", Path: "x", Runs: []*Run{
		{Label: "fcfs", Policy: "fcfs", Procs: 4, Outcomes: outs, Summary: metrics.Summarize(outs, metrics.Options{Procs: 4, Tau: 10}), Opt: metrics.Options{Procs: 4, Tau: 10}},
	}}
	d, err := Build(res, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	js, err := DataJSON(d)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(js, []byte(`"params": null`)) || !bytes.Contains(js, []byte(`"params": []`)) {
		t.Errorf("params in the page's JSON: %s", js[bytes.Index(js, []byte(`"params"`)):][:40])
	}
}

// TestBestWithinGroups: ★ compares runs of one workload and load only.
// Worked by hand: at load 0.5, easy (wait 10) beats fcfs (20); at load 0.9,
// fcfs (100) beats easy (300). A global comparison would mark only easy at
// 0.5.
func TestBestWithinGroups(t *testing.T) {
	run := func(label, pol, load string, wait float64) *Run {
		r := &Run{Label: label, Policy: pol, Trace: "T", Axes: []KV{{"load", load}}}
		r.Summary.All.MeanWait = wait
		return r
	}
	res := &Results{Runs: []*Run{run("a", "fcfs", "0.5", 20), run("b", "easy", "0.5", 10), run("c", "fcfs", "0.9", 100), run("d", "easy", "0.9", 300)}}
	groups, names := Groups(res)
	if !slices.Equal(groups, []int{0, 0, 1, 1}) || names[1] != "T load=0.9" {
		t.Fatalf("groups %v %q", groups, names)
	}
	tab := summaryTable(res, groups)
	ci := slices.IndexFunc(tab.Columns, func(c Column) bool { return c.Key == "mean_wait" })
	if got := tab.Best[ci]; !slices.Equal(got, []int{1, 2}) {
		t.Errorf("best mean wait rows %v, want [1 2] (easy at 0.5, fcfs at 0.9)", got)
	}
}

// TestClassLabelsAndEmpty: class labels carry units; an empty class shows
// "—", not 0.0.
func TestClassLabelsAndEmpty(t *testing.T) {
	got := ClassLabels(metrics.ClassRule{By: "runtime", Bounds: []int64{3600}})
	if !slices.Equal(got, []string{"runtime ≤ 1 h", "runtime > 1 h"}) {
		t.Errorf("runtime labels %q", got)
	}
	got = ClassLabels(metrics.ClassRule{By: "size", Bounds: []int64{1, 4, 16}})
	if !slices.Equal(got, []string{"size 1 proc", "size 2–4 procs", "size 5–16 procs", "size > 16 procs"}) {
		t.Errorf("size labels %q", got)
	}
	// every job is 2 processors wide: the class "size 1 proc" is empty
	outs := []job.Outcome{{Job: job.Job{Request: job.Request{SWFID: 1, User: 1, Procs: 2, Submit: 0, Estimate: 100}, Runtime: 100}, Start: 50, End: 150, Bound: -1}}
	opt := metrics.Options{Procs: 64, Tau: 10}
	res := &Results{Kind: "simulation", Path: "x", Runs: []*Run{{Label: "fcfs", Policy: "fcfs", Procs: 64, Outcomes: outs, Opt: opt, Summary: metrics.Summarize(outs, opt)}}}
	d, err := Build(res, BuildOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := WriteHTML(&b, d); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	row := page[strings.Index(page, "<td>size 1 proc</td>"):]
	row = row[:strings.Index(row, "</tr>")]
	if strings.Contains(row, "0.0") || !strings.Contains(row, "—") {
		t.Errorf("empty class row: %s", row)
	}
}

// TestTimeSeriesStops: a run whose jobs end at t=1000 has no bins after
// it, though another run lasts 100,000 s.
func TestTimeSeriesStops(t *testing.T) {
	short := []job.Outcome{{Job: job.Job{Request: job.Request{SWFID: 1, Procs: 1, Submit: 0, Estimate: 1000}, Runtime: 1000}, Start: 0, End: 1000, Bound: -1}}
	long := []job.Outcome{{Job: job.Job{Request: job.Request{SWFID: 1, Procs: 1, Submit: 0, Estimate: 100000}, Runtime: 100000}, Start: 0, End: 100000, Bound: -1}}
	res := &Results{Runs: []*Run{{Label: "a", Procs: 1, Outcomes: short}, {Label: "b", Procs: 1, Outcomes: long}}}
	ts := timeSeries(res, 8192)
	if ts.Step != MinBinSeconds {
		t.Errorf("step %d, want the minimum %d", ts.Step, MinBinSeconds)
	}
	// 1000 s of 600 s bins: bins 0 and 1 (the end falls in bin 1)
	if len(ts.Runs[0].Util) != 2 || ts.Runs[0].Util[0] != 1 || len(ts.Runs[1].Util) != 167 {
		t.Errorf("short run %v (%d bins), long run %d bins", ts.Runs[0].Util, len(ts.Runs[0].Util), len(ts.Runs[1].Util))
	}
}
