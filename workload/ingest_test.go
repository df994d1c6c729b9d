package workload

import (
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func read(t *testing.T, in string, opts Options) *Trace {
	t.Helper()
	tr, err := Read(strings.NewReader(in), "t.swf", opts)
	if err != nil {
		t.Fatal(err)
	}
	if len(tr.Jobs)+tr.Skipped.Total() != tr.Records {
		t.Errorf("kept %d + skipped %d != records %d", len(tr.Jobs), tr.Skipped.Total(), tr.Records)
	}
	for i, j := range tr.Jobs {
		if j.ID != i || j.Estimate < 1 || j.Procs < 1 || j.Procs > tr.Procs {
			t.Errorf("job %d: %+v", i, j)
		}
	}
	return tr
}

func TestSkipReasons(t *testing.T) {
	in := "; MaxProcs: 8\n" +
		rec(1, 0, 10, 4, 100) + // kept
		line(2, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1) + // submit < 0
		rec(3, 5, -1, 4, 100) + // run < 0 (cancelled)
		line(4, 6, 0, 10, -1, -1, -1, -1, 100, -1, 1, 1, 1, -1, 1, 1, -1, -1) + // no procs
		line(5, 6, 0, 10, 0, -1, -1, 0, 100, -1, 1, 1, 1, -1, 1, 1, -1, -1) + // no procs
		rec(6, 7, 10, 9, 100) + // too big
		rec(7, 8, 0, 8, 100) + // runtime 0: kept
		line(8, 9, 0, 5, 3, -1, -1, -1, 50, -1, 1, 1, 1, -1, 1, 1, -1, -1) // requested -1: allocated 3
	tr := read(t, in, Options{})
	want := Counts{
		{SkipNegSubmit, 1, "t.swf:3"}, {SkipNegRuntime, 1, "t.swf:4"}, {SkipNoProcs, 2, "t.swf:5"}, {SkipTooBig, 1, "t.swf:7"},
	}
	if !slices.Equal(tr.Skipped, want) {
		t.Errorf("skipped = %+v, want %+v", tr.Skipped, want)
	}
	if len(tr.Jobs) != 3 || tr.Jobs[1].SWFID != 7 || tr.Jobs[1].Runtime != 0 || tr.Jobs[2].Procs != 3 || tr.Jobs[2].Line != 9 {
		t.Errorf("jobs = %+v", tr.Jobs)
	}
	if tr.Adjusted.Get(AdjAllocProcs) != 1 || tr.Adjusted.Total() != 1 {
		t.Errorf("adjusted = %v", tr.Adjusted)
	}
	if !strings.Contains(strings.Join(tr.Rules, "\n"), "skipped: "+tr.Skipped.String()) {
		t.Errorf("rules = %q", tr.Rules)
	}
	if tr.Skipped.String() != "submit time unknown (< 0): 1; run time unknown (< 0, typically cancelled before start): 1; "+
		"processor count unknown (requested and allocated <= 0): 2; larger than the machine (size > P): 1" {
		t.Errorf("String() = %q", tr.Skipped.String())
	}

	// Clamp keeps the oversized job with size P.
	tr = read(t, in, Options{Clamp: true})
	if len(tr.Jobs) != 4 || tr.Jobs[1].Procs != 8 || tr.Jobs[1].SWFID != 6 || tr.Adjusted.Get(AdjClamped) != 1 || tr.Skipped.Get(SkipTooBig) != 0 {
		t.Errorf("clamp: jobs %+v adjusted %v skipped %v", tr.Jobs, tr.Adjusted, tr.Skipped)
	}
}

func TestJobFields(t *testing.T) {
	tr := read(t, "; MaxProcs: 8\n"+line(42, 100, 5, 60, 2, 1.0, -1, 4, 300, -1, 1, 11, 12, 13, 14, 15, -1, -1), Options{})
	want := job.Job{
		Request: job.Request{ID: 0, SWFID: 42, Submit: 100, Procs: 4, Estimate: 300, User: 11, Group: 12, Queue: 14, Partition: 15},
		Runtime: 60, Line: 2,
	}
	if len(tr.Jobs) != 1 || !reflect.DeepEqual(tr.Jobs[0], want) || tr.Requested[0] != 300 {
		t.Errorf("job = %+v, want %+v", tr.Jobs, want)
	}
}

func TestCTCStyleProcs(t *testing.T) {
	// Requested processors -1 for every job, as in CTC-SP2: allocated used.
	var b strings.Builder
	b.WriteString("; MaxProcs: 338\n")
	for i := int64(1); i <= 5; i++ {
		b.WriteString(line(i, i, 0, 100, i*10, -1, -1, -1, 200, -1, 1, 1, 1, -1, 1, 1, -1, -1))
	}
	tr := read(t, b.String(), Options{})
	if len(tr.Jobs) != 5 || tr.Adjusted.Get(AdjAllocProcs) != 5 {
		t.Fatalf("jobs %+v adjusted %v", tr.Jobs, tr.Adjusted)
	}
	for i, j := range tr.Jobs {
		if j.Procs != (i+1)*10 {
			t.Errorf("job %d procs %d", i, j.Procs)
		}
	}
}

func TestMachineSize(t *testing.T) {
	body := rec(1, 0, 10, 4, 100) + rec(2, 1, 10, 6, 100)
	cases := []struct {
		in     string
		opts   Options
		p      int
		source string
		kept   int
	}{
		{"; MaxProcs: 16\n; MaxNodes: 4\n" + body, Options{Procs: 5}, 5, ProcsFromOption, 1},
		{"; MaxProcs: 16\n; MaxNodes: 4\n" + body, Options{}, 16, ProcsFromMaxProcs, 2},
		{"; MaxProcs: -1\n; MaxNodes: 4\n" + body, Options{}, 4, ProcsFromMaxNodes, 1},
		{"; MaxNodes: 0\n" + body, Options{}, 6, ProcsFromJobs, 2},
		{body, Options{}, 6, ProcsFromJobs, 2},
		{"; MaxProcs: 16\n", Options{}, 16, ProcsFromMaxProcs, 0},
		{"", Options{}, 1, ProcsFromJobs, 0},
	}
	for i, c := range cases {
		tr := read(t, c.in, c.opts)
		if tr.Procs != c.p || tr.ProcsSource != c.source || len(tr.Jobs) != c.kept {
			t.Errorf("case %d: P=%d (%s), %d jobs; want P=%d (%s), %d jobs", i, tr.Procs, tr.ProcsSource, len(tr.Jobs), c.p, c.source, c.kept)
		}
		if want := "machine size: P = " + itoa(int64(c.p)) + " (" + c.source + ")"; !slices.Contains(tr.Rules, want) {
			t.Errorf("case %d: rules %q lack %q", i, tr.Rules, want)
		}
	}
}

func TestEstimates(t *testing.T) {
	in := "; MaxProcs: 8\n" +
		rec(1, 0, 50, 1, 100) +
		rec(2, 1, 70, 1, -1) +
		rec(3, 2, 0, 1, 0) +
		rec(4, 3, 500, 1, 300)
	cases := []struct {
		opts     Options
		est      []int64
		adjusted Counts
	}{
		{Options{}, []int64{100, 70, 1, 300}, Counts{{AdjFallbackRuntime, 2, "t.swf:3"}, {AdjRaised, 1, "t.swf:4"}}},
		{Options{Estimate: "user", EstimateFallback: "runtime"}, []int64{100, 70, 1, 300}, Counts{{AdjFallbackRuntime, 2, "t.swf:3"}, {AdjRaised, 1, "t.swf:4"}}},
		{Options{EstimateFallback: "max"}, []int64{100, 300, 300, 300}, Counts{{AdjFallbackMax, 2, "t.swf:3"}}},
		{Options{Estimate: "exact"}, []int64{50, 70, 1, 500}, Counts{{AdjRaised, 1, "t.swf:4"}}},
		{Options{Estimate: "exact", EstimateFallback: "max"}, []int64{50, 70, 1, 500}, Counts{{AdjRaised, 1, "t.swf:4"}}},
	}
	for i, c := range cases {
		tr := read(t, in, c.opts)
		var est []int64
		for _, j := range tr.Jobs {
			est = append(est, j.Estimate)
		}
		if !slices.Equal(est, c.est) || !slices.Equal(tr.Adjusted, c.adjusted) {
			t.Errorf("case %d: estimates %v adjusted %+v; want %v %+v", i, est, tr.Adjusted, c.est, c.adjusted)
		}
		if !slices.Equal(tr.Requested, []int64{100, -1, 0, 300}) {
			t.Errorf("case %d: requested %v", i, tr.Requested)
		}
	}
	// "max" with no requested time at all: the largest runtime.
	noReq := rec(1, 0, 50, 1, -1) + rec(2, 1, 0, 1, -1) + rec(3, 2, 20, 1, -1)
	tr := read(t, noReq, Options{EstimateFallback: "max"})
	for _, j := range tr.Jobs {
		if j.Estimate != 50 {
			t.Errorf("max without requested times: job %+v", j)
		}
	}
	if tr.Adjusted.Get(AdjFallbackMaxRun) != 3 || !strings.Contains(strings.Join(tr.Rules, "\n"), "largest runtime among kept jobs (no job has a requested time) = 50 s") {
		t.Errorf("adjusted %v rules %q", tr.Adjusted, tr.Rules)
	}
	// ... and with only zero runtimes, at least 1 s.
	tr = read(t, rec(1, 0, 0, 1, -1), Options{EstimateFallback: "max"})
	if tr.Jobs[0].Estimate != 1 {
		t.Errorf("estimate %d", tr.Jobs[0].Estimate)
	}
}

func TestBadOptions(t *testing.T) {
	for _, o := range []Options{{Estimate: "oracle"}, {EstimateFallback: "min"}, {Procs: -3}} {
		if _, err := Read(strings.NewReader(""), "o.swf", o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
	if _, err := Load("/nonexistent/x.swf", Options{}); err == nil {
		t.Error("missing file accepted")
	}
}

func TestSubmitOrder(t *testing.T) {
	in := "; MaxProcs: 8\n" +
		rec(1, 200, 10, 1, 100) +
		rec(2, 100, 10, 1, 100) + // backwards
		rec(3, -1, 10, 1, 100) + // skipped: does not count as the previous job
		rec(4, 150, 10, 1, 100) +
		rec(5, 150, 10, 1, 100)
	_, err := Read(strings.NewReader(in), "s.swf", Options{})
	var pe *ParseError
	want := "s.swf:3: submit time 100 is before the previous job's 200 (SWF requires non-decreasing submit times)"
	if !errors.As(err, &pe) || err.Error() != want {
		t.Errorf("error = %v, want %s", err, want)
	}
	tr := read(t, in, Options{Lenient: true})
	var ids []int64
	for _, j := range tr.Jobs {
		ids = append(ids, j.SWFID)
	}
	if !slices.Equal(ids, []int64{2, 4, 5, 1}) || tr.Warnings.Get(WarnUnsorted) != 1 || tr.Skipped.Get(SkipNegSubmit) != 1 {
		t.Errorf("lenient: order %v warnings %v skipped %v", ids, tr.Warnings, tr.Skipped)
	}
	if tr.Warnings[0].Example != "t.swf:3: submit time 100 is before the previous job's 200" {
		t.Errorf("example %q", tr.Warnings[0].Example)
	}
	if !slices.Equal(tr.Requested, []int64{100, 100, 100, 100}) {
		t.Errorf("requested %v", tr.Requested)
	}
	// A job skipped for its size does not count either.
	in = "; MaxProcs: 8\n" + rec(1, 200, 10, 1, 100) + rec(2, 100, 10, 99, 100) + rec(3, 300, 10, 1, 100)
	if tr := read(t, in, Options{}); len(tr.Jobs) != 2 {
		t.Errorf("jobs %+v", tr.Jobs)
	}
}

func TestLenientWarningsMerged(t *testing.T) {
	in := "; MaxProcs: 8\n" + rec(1, 200, 10, 1, 100) + "garbage\n" + rec(2, 100, 10, 1, 100)
	tr := read(t, in, Options{Lenient: true})
	if len(tr.Jobs) != 2 || tr.Warnings.Total() != 2 || tr.Warnings[0].Reason != WarnFieldCount || tr.Warnings[1].Reason != WarnUnsorted {
		t.Errorf("warnings %+v", tr.Warnings)
	}
	if _, err := Read(strings.NewReader(in), "t.swf", Options{}); err == nil || err.Error() != "t.swf:3: expected 18 fields, found 1" {
		t.Errorf("strict: %v", err)
	}
}
