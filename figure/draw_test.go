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
