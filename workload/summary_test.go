package workload

import (
	"math"
	"strings"
	"testing"
)

func TestSummarize(t *testing.T) {
	in := "; Computer: Toy\n; MaxProcs: 10\n" +
		rec(1, 0, 100, 2, 200) + //    work 200, accuracy 0.5
		rec(2, 50, 300, 5, 100) + //   work 1500, accuracy 3, overrun
		rec(3, 100, 40, 10, -1) + //   work 400, no user estimate (estimate = 40)
		rec(4, 200, -1, 1, 100) + //   skipped: cancelled
		rec(5, 1000, 0, 1, 50) //      work 0, accuracy 0
	in1 := Summarize(read(t, in, Options{}))
	want := Info{
		Name: "t.swf", Computer: "Toy", Records: 5, Jobs: 4, Procs: 10, ProcsSource: ProcsFromMaxProcs,
		FirstSubmit: 0, LastSubmit: 1000, Span: 1000, Work: 2100, OfferedLoad: 0.21,
		UserEstimates: 3, NoUserEstimate: 1, Accuracy: 3.5 / 3, UserOverruns: 1, UserOverrunFraction: 1.0 / 3,
		Overruns: 1, OverrunFraction: 0.25,
	}
	got := in1
	got.Skipped, got.Adjusted, got.Warnings, got.Rules = nil, nil, nil, nil
	if !approxEqual(got, want) {
		t.Errorf("Summarize =\n%+v\nwant\n%+v", got, want)
	}
	if in1.Skipped.Get(SkipNegRuntime) != 1 || in1.Adjusted.Get(AdjFallbackRuntime) != 1 || len(in1.Rules) == 0 {
		t.Errorf("counts: %v / %v / %q", in1.Skipped, in1.Adjusted, in1.Rules)
	}

	var b strings.Builder
	if err := in1.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		"trace               t.swf\n",
		"machine             Toy\n",
		"jobs                4 kept, 1 skipped\n",
		"machine size P      10 (MaxProcs header)\n",
		"span                1000 s (0.0 days)\n",
		"offered load        0.210 ",
		"user estimates      3 jobs (75.0%); 1 jobs without\n",
		"estimate accuracy   1.167 ",
		"user overruns       1 jobs (33.3%)",
		"estimate overruns   1 jobs (25.0%)",
		"         1  run time unknown (< 0, typically cancelled before start) (first: t.swf:6)\n",
		"  machine size: P = 10 (MaxProcs header)\n",
	} {
		if !strings.Contains(b.String(), s) {
			t.Errorf("WriteText lacks %q:\n%s", s, b.String())
		}
	}

	// Degenerate: no jobs, no span.
	empty := Summarize(read(t, "", Options{}))
	b.Reset()
	empty.WriteText(&b)
	if empty.Jobs != 0 || empty.OfferedLoad != 0 || !strings.Contains(b.String(), "offered load        n/a") {
		t.Errorf("empty: %+v\n%s", empty, b.String())
	}
}

func approxEqual(a, b Info) bool {
	eq := func(x, y float64) bool { return math.Abs(x-y) < 1e-12 }
	if !eq(a.OfferedLoad, b.OfferedLoad) || !eq(a.Accuracy, b.Accuracy) || !eq(a.UserOverrunFraction, b.UserOverrunFraction) ||
		!eq(a.OverrunFraction, b.OverrunFraction) || !eq(a.Work, b.Work) {
		return false
	}
	a.OfferedLoad, a.Accuracy, a.UserOverrunFraction, a.OverrunFraction, a.Work = 0, 0, 0, 0, 0
	b.OfferedLoad, b.Accuracy, b.UserOverrunFraction, b.OverrunFraction, b.Work = 0, 0, 0, 0, 0
	return a.Name == b.Name && a.Computer == b.Computer && a.Installation == b.Installation && a.Records == b.Records &&
		a.Jobs == b.Jobs && a.Procs == b.Procs && a.ProcsSource == b.ProcsSource && a.FirstSubmit == b.FirstSubmit &&
		a.LastSubmit == b.LastSubmit && a.Span == b.Span && a.UserEstimates == b.UserEstimates &&
		a.NoUserEstimate == b.NoUserEstimate && a.UserOverruns == b.UserOverruns && a.Overruns == b.Overruns
}
