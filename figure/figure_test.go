package figure

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/report"
)

// synthetic results: two policies at three loads, three seeds each, with
// mean bounded slowdown = 10·load·(1 + policy) + seed.
func synthetic() *report.Results {
	res := &report.Results{Kind: "test", Path: "synthetic"}
	for pi, pol := range []string{"easy", "conservative"} {
		for _, load := range []string{"0.5", "0.7", "0.9"} {
			for seed := 1; seed <= 3; seed++ {
				var l float64
				fmt.Sscan(load, &l)
				r := &report.Run{Label: fmt.Sprintf("%s@%s#%d", pol, load, seed), Policy: pol,
					Axes: []report.KV{{Name: "load", Value: load}, {Name: "seed", Value: fmt.Sprint(seed)}}}
				r.Summary = metrics.Summary{All: metrics.Stats{MeanBSLD: 10*l*float64(1+pi) + float64(seed)}}
				res.Runs = append(res.Runs, r)
			}
		}
	}
	return res
}

func TestPlotLines(t *testing.T) {
	res := synthetic()
	lines := report.Lines(res, "load")
	if len(lines) != 2 || len(lines[0].X) != 3 || len(lines[0].Runs[0]) != 3 {
		t.Fatalf("lines %+v: want 2 policies × 3 loads × 3 seeds", lines)
	}
	m, _ := report.MetricByKey("mean_bsld")
	a := lines[1].Points(res, m)[0] // easy at load 0.5: 5+1, 5+2, 5+3
	if a.Mean != 7 || a.Min != 6 || a.Max != 8 || a.N != 3 {
		t.Errorf("easy at 0.5: %+v", a)
	}
	var svgs []string
	for _, errs := range []string{"ci95", "none"} {
		p, err := Plot(res, Options{Metric: "mean_bsld", Errors: errs})
		if err != nil {
			t.Fatal(err)
		}
		if p.X.Label.Text != "load" {
			t.Errorf("x axis %q, want load (the default when it varies)", p.X.Label.Text)
		}
		var b bytes.Buffer
		if err := Write(&b, p, Options{}, "svg"); err != nil {
			t.Fatal(err)
		}
		s := b.String()
		for _, want := range []string{"conservative", "easy", "mean bounded slowdown", "load"} {
			if !strings.Contains(s, want) {
				t.Errorf("%s: SVG lacks %q", errs, want)
			}
		}
		svgs = append(svgs, s)
	}
	if len(svgs[0]) <= len(svgs[1]) {
		t.Error("error bars drew nothing")
	}
	for _, f := range []string{"png", "pdf", "eps"} {
		p, _ := Plot(res, Options{Metric: "mean_wait", DPI: 72})
		var b bytes.Buffer
		if err := Write(&b, p, Options{DPI: 72}, f); err != nil || b.Len() < 500 {
			t.Errorf("%s: %v, %d bytes", f, err, b.Len())
		}
	}
}

func TestPlotBarsAndErrors(t *testing.T) {
	res, err := report.Load("../report/testdata/sim-small", report.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	p, err := Plot(res, Options{Metric: "utilization", X: "policy"})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := Write(&b, p, Options{}, "svg"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"fcfs", "easy:depth=2", "conservative", "utilization (%)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("bar SVG lacks %q", want)
		}
	}
	for _, c := range []struct {
		opt  Options
		want string
	}{
		{Options{Metric: "nope"}, "unknown metric"},
		{Options{Metric: "mean_wait", X: "load"}, "no policy has two runs that differ in load"},
		{Options{Metric: "mean_wait", Errors: "sd"}, "--errors"},
	} {
		if _, err := Plot(res, c.opt); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.opt, err, c.want)
		}
	}
	if _, err := FormatOf("fig.gif"); err == nil {
		t.Error("gif accepted")
	}
	if f, err := FormatOf("Fig.PDF"); err != nil || f != "pdf" {
		t.Errorf("Fig.PDF: %q %v", f, err)
	}
}

// TestPanelsCDFGantt: runs of two workloads make two panels (never one
// panel mixing them); the CDF of a run ends at 1; the Gantt window keeps
// only the jobs that overlap it.
func TestPanelsCDFGantt(t *testing.T) {
	res := synthetic()
	for i, r := range res.Runs {
		r.Trace = []string{"A", "B"}[i%2]
		// one job per run: submitted at 0, waits 10·i s, runs 100 s
		r.Outcomes = []job.Outcome{{Job: job.Job{Request: job.Request{ID: 0, Procs: 1, Estimate: 100, User: 3}, Runtime: 100},
			Start: int64(10 * i), End: int64(10*i + 100), Bound: -1}}
		r.Procs = 4
	}
	ps, err := PlotAll(res, Options{Metric: "mean_bsld"})
	if err != nil || len(ps) != 2 || ps[0].Title.Text != "A" || ps[1].Title.Text != "B" {
		t.Fatalf("panels %d %v", len(ps), err)
	}
	var b bytes.Buffer
	if err := WritePanels(&b, ps, Options{}, "svg"); err != nil || b.Len() < 1000 {
		t.Fatalf("two panels: %v (%d bytes)", err, b.Len())
	}
	cs, err := CDF(res, Options{})
	if err != nil || len(cs) != 2 {
		t.Fatalf("cdf panels %d %v", len(cs), err)
	}
	g, err := Gantt(res.Runs[5], 20, 60, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if g.X.Min != 20.0/3600 || g.X.Max != 60.0/3600 {
		t.Errorf("window [%v, %v] h", g.X.Min, g.X.Max)
	}
	if _, err := Gantt(res.Runs[5], 60, 20, Options{}); err == nil {
		t.Error("an empty window was accepted")
	}
	for in, want := range map[string]int64{"86400": 86400, "36h": 129600, "2d": 172800, "1d12h": 129600, "90m": 5400} {
		if got, err := ParseSeconds(in); err != nil || got != want {
			t.Errorf("ParseSeconds(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
