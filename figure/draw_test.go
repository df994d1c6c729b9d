package figure

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func TestDraw(t *testing.T) {
	res := synthetic()
	for i, r := range res.Runs {
		r.Outcomes = []job.Outcome{{Job: job.Job{Request: job.Request{ID: 0, Procs: 1, Estimate: 100, User: 3}, Runtime: 100},
			Start: int64(10 * i), End: int64(10*i + 100), Bound: -1}}
		r.Procs = 4
	}
	label := res.Runs[5].Label
	if _, what, err := Draw(res, Request{CDF: true}, Options{}); err != nil || what != "wait CDF" {
		t.Errorf("cdf: %q %v", what, err)
	}
	if ps, what, err := Draw(res, Request{Gantt: label, From: "20", To: "60"}, Options{}); err != nil || what != "Gantt chart of "+label || len(ps) != 1 || ps[0].X.Min != 20.0/3600 {
		t.Errorf("gantt: %q %v", what, err)
	}
	if _, what, err := Draw(res, Request{Metric: "mean_bsld"}, Options{Metric: "mean_bsld"}); err != nil || what != "mean_bsld" {
		t.Errorf("metric: %q %v", what, err)
	}
	for _, c := range []struct {
		q    Request
		want string
	}{
		{Request{CDF: true, Gantt: label}, "--cdf and --gantt"},
		{Request{Gantt: "nosuch", From: "0"}, `--gantt "nosuch": no such run`},
		{Request{Gantt: label, From: "x"}, "--from:"},
		{Request{Gantt: label, From: "0", To: "y"}, "--to:"},
	} {
		if _, _, err := Draw(res, c.q, Options{}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want %q", c.q, err, c.want)
		}
	}
}

func TestCheckSize(t *testing.T) {
	for _, c := range []struct {
		w, h   float64
		dpi    int
		format string
		ok     bool
	}{
		{12, 8, 300, "png", true},
		{500, 500, 2400, "pdf", true}, // vector: no pixel bound
		{100, 100, 300, "png", true},  // 139.5 million pixels
		{120, 120, 300, "png", false}, // 200.9 million pixels
		{12, 8, 0, "png", false},
		{12, 8, 2401, "svg", false},
		{0, 8, 300, "svg", false},
		{12, 501, 300, "svg", false},
	} {
		if err := CheckSize(c.w, c.h, c.dpi, c.format); (err == nil) != c.ok {
			t.Errorf("CheckSize(%g, %g, %d, %s) = %v, want ok %v", c.w, c.h, c.dpi, c.format, err, c.ok)
		}
	}
}
