package metrics

import (
	"math"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func out(id int, submit, start, end int64, procs int, runtime, estimate int64, killed bool) job.Outcome {
	return job.Outcome{
		Job: job.Job{
			Request: job.Request{ID: id, SWFID: int64(1000 + id), Submit: submit, Procs: procs,
				Estimate: estimate, User: int32(id % 2), Group: -1, Queue: -1, Partition: -1},
			Runtime: runtime,
		},
		Start: start, End: end, Killed: killed, Bound: -1,
	}
}

// sample is a small schedule on 4 processors, computed by hand:
//
//	id submit start   end procs runtime  class  wait  resp  run  bsld
//	 0      0     0   100     2     100  short     0   100  100  100/100 = 1
//	 1     10    20    25     1       5  short    10    15    5  15/max(5,10) = 1.5
//	 2     20   100  4100     4    4000  long     80  4080 4000  4080/4000 = 1.02
//	 3     30  4100 11300     3    9000  long   4070 11270 7200  11270/7200 (killed at estimate 7200)
//	 4     40  4100  4100     1       0  short  4060  4060    0  4060/10 = 406
//
// It is returned in reverse order: Summarize must not depend on it.
func sample() []job.Outcome {
	return []job.Outcome{
		out(4, 40, 4100, 4100, 1, 0, 60, false),
		out(3, 30, 4100, 11300, 3, 9000, 7200, true),
		out(2, 20, 100, 4100, 4, 4000, 5000, false),
		out(1, 10, 20, 25, 1, 5, 60, false),
		out(0, 0, 0, 100, 2, 100, 100, false),
	}
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func checkStats(t *testing.T, name string, got, want Stats) {
	t.Helper()
	if got.Jobs != want.Jobs || got.MaxWait != want.MaxWait || got.Killed != want.Killed ||
		!near(got.MeanWait, want.MeanWait) || !near(got.MedianWait, want.MedianWait) ||
		!near(got.P90Wait, want.P90Wait) || !near(got.P99Wait, want.P99Wait) ||
		!near(got.MeanResponse, want.MeanResponse) || !near(got.MeanBSLD, want.MeanBSLD) {
		t.Errorf("%s:\n got %+v\nwant %+v", name, got, want)
	}
}

var (
	// waits 0 10 80 4060 4070; n=5: median rank ⌈2.5⌉=3, p90 ⌈4.5⌉=5, p99 ⌈4.95⌉=5.
	wantAll = Stats{Jobs: 5, MeanWait: 8220.0 / 5, MedianWait: 80, P90Wait: 4070, P99Wait: 4070,
		MaxWait: 4070, MeanResponse: 19525.0 / 5,
		MeanBSLD: (1 + 1.5 + 1.02 + 11270.0/7200 + 406) / 5, Killed: 1}
	// waits 0 10 4060; n=3: median rank ⌈1.5⌉=2, p90 ⌈2.7⌉=3, p99 ⌈2.97⌉=3.
	wantShort = Stats{Jobs: 3, MeanWait: 4070.0 / 3, MedianWait: 10, P90Wait: 4060, P99Wait: 4060,
		MaxWait: 4060, MeanResponse: 4175.0 / 3, MeanBSLD: 408.5 / 3}
	// waits 80 4070; n=2: median rank 1, p90 ⌈1.8⌉=2, p99 2.
	wantLong = Stats{Jobs: 2, MeanWait: 2075, MedianWait: 80, P90Wait: 4070, P99Wait: 4070,
		MaxWait: 4070, MeanResponse: 7675, MeanBSLD: (1.02 + 11270.0/7200) / 2, Killed: 1}
)

func TestSummarize(t *testing.T) {
	in := sample()
	s := Summarize(in, Options{Procs: 4})
	checkStats(t, "all", s.All, wantAll)
	checkStats(t, "short", s.Short, wantShort)
	checkStats(t, "long", s.Long, wantLong)
	// busy = 2·100 + 1·5 + 4·4000 + 3·7200 + 1·0 = 37805 processor-seconds
	// over 4 × (11300 − 0).
	if !near(s.Utilization, 37805.0/45200) {
		t.Errorf("utilization = %v, want %v", s.Utilization, 37805.0/45200)
	}
	if s.Makespan != 11300 || s.FirstSubmit != 0 || s.LastEnd != 11300 || s.Excluded != 0 {
		t.Errorf("makespan %d first %d last %d excluded %d", s.Makespan, s.FirstSubmit, s.LastEnd, s.Excluded)
	}
	if in[0].ID != 4 {
		t.Error("input reordered")
	}
	// The result does not depend on the input order, to the last bit.
	rev := sample()
	slices.Reverse(rev)
	if s2 := Summarize(rev, Options{Procs: 4}); s2 != s {
		t.Errorf("order dependence:\n%+v\n%+v", s, s2)
	}
}

func TestWarmUpDrain(t *testing.T) {
	// Warm-up 15 drops submits < 15 (jobs 0, 1); drain 5 drops submits
	// > 40−5 = 35 (job 4). Left: jobs 2 and 3, both long.
	s := Summarize(sample(), Options{Procs: 4, WarmUp: 15, Drain: 5})
	if s.Excluded != 3 {
		t.Errorf("excluded = %d, want 3", s.Excluded)
	}
	checkStats(t, "all", s.All, wantLong)
	checkStats(t, "short", s.Short, Stats{})
	checkStats(t, "long", s.Long, wantLong)
	if !near(s.Utilization, 37805.0/45200) || s.Makespan != 11300 {
		t.Errorf("utilization/makespan must use all jobs: %v %d", s.Utilization, s.Makespan)
	}

	// Boundaries are kept: warm-up 10 keeps job 1 (submit 10 = 0+10),
	// drain 10 keeps job 3 (submit 30 = 40−10) and drops job 4 (40 > 30).
	s = Summarize(sample(), Options{Procs: 4, WarmUp: 10, Drain: 10})
	if s.Excluded != 2 || s.All.Jobs != 3 {
		t.Errorf("excluded = %d, jobs = %d, want 2 and 3", s.Excluded, s.All.Jobs)
	}
	// waits 10 80 4070
	checkStats(t, "all", s.All, Stats{Jobs: 3, MeanWait: 4160.0 / 3, MedianWait: 80, P90Wait: 4070,
		P99Wait: 4070, MaxWait: 4070, MeanResponse: (15 + 4080 + 11270.0) / 3,
		MeanBSLD: (1.5 + 1.02 + 11270.0/7200) / 3, Killed: 1})
}

func TestOptionsTauAndShortLimit(t *testing.T) {
	// With τ = 100, job 1 has bsld max(1, 15/100) = 1 and job 4 has
	// 4060/100 = 40.6.
	s := Summarize(sample(), Options{Procs: 4, Tau: 100})
	if want := (1 + 1 + 40.6) / 3; !near(s.Short.MeanBSLD, want) {
		t.Errorf("short bsld τ=100: %v, want %v", s.Short.MeanBSLD, want)
	}
	// The boundary belongs to the short class.
	o := []job.Outcome{out(0, 0, 0, 3600, 1, 3600, 4000, false), out(1, 0, 0, 3601, 1, 3601, 4000, false)}
	s = Summarize(o, Options{Procs: 2})
	if s.Short.Jobs != 1 || s.Long.Jobs != 1 {
		t.Errorf("default limit: short %d long %d", s.Short.Jobs, s.Long.Jobs)
	}
	s = Summarize(o, Options{Procs: 2, ShortLimit: 3601})
	if s.Short.Jobs != 2 || s.Long.Jobs != 0 {
		t.Errorf("limit 3601: short %d long %d", s.Short.Jobs, s.Long.Jobs)
	}
	// Class is by actual runtime, not by the time the job ran: a job
	// killed after 60 s whose runtime was 5000 s is long.
	k := []job.Outcome{out(0, 0, 0, 60, 1, 5000, 60, true)}
	if s := Summarize(k, Options{Procs: 1}); s.Long.Jobs != 1 || s.Long.Killed != 1 {
		t.Errorf("killed job class: %+v", s)
	}
}

func TestTinyUtilization(t *testing.T) {
	// 2 processors; one 1-proc job submitted at 10 runs [20,30). Busy 10
	// processor-seconds over 2 × (30 − 10) = 40: 25 %.
	s := Summarize([]job.Outcome{out(0, 10, 20, 30, 1, 10, 10, false)}, Options{Procs: 2})
	if s.Utilization != 0.25 || s.Makespan != 20 {
		t.Errorf("utilization %v makespan %d", s.Utilization, s.Makespan)
	}
	if s := Summarize(nil, Options{Procs: 2}); s != (Summary{}) {
		t.Errorf("empty: %+v", s)
	}
	if s := Summarize([]job.Outcome{out(0, 10, 20, 30, 1, 10, 10, false)}, Options{}); s.Utilization != 0 {
		t.Errorf("unknown machine size: utilization %v", s.Utilization)
	}
}

func TestNearestRank(t *testing.T) {
	a := []int64{15, 20, 35, 40, 50}
	for _, c := range []struct {
		pct  int
		want int64
	}{{0, 15}, {5, 15}, {20, 15}, {21, 20}, {30, 20}, {40, 20}, {50, 35}, {90, 50}, {100, 50}} {
		if got := NearestRank(a, c.pct); got != c.want {
			t.Errorf("p%d of %v = %d, want %d", c.pct, a, got, c.want)
		}
	}
	ten := []int64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	for _, c := range []struct {
		pct  int
		want int64
	}{{50, 5}, {90, 9}, {91, 10}, {99, 10}} {
		if got := NearestRank(ten, c.pct); got != c.want {
			t.Errorf("p%d of 1..10 = %d, want %d", c.pct, got, c.want)
		}
	}
	if NearestRank(nil, 50) != 0 {
		t.Error("empty")
	}
}

// Submissions at 0, 10 and 20: a job counts when 0+WarmUp ≤ submit and
// submit ≤ 20−Drain.
func TestCheckWindow(t *testing.T) {
	jobs := []job.Job{{Request: job.Request{Submit: 0}}, {Request: job.Request{Submit: 10}}, {Request: job.Request{Submit: 20}}}
	for _, c := range []struct {
		warm, drain int64
		ok          bool
	}{{0, 0, true}, {20, 0, true}, {21, 0, false}, {0, 20, true}, {0, 21, false}, {11, 9, false}, {10, 10, true}} {
		err := CheckWindow(jobs, Options{WarmUp: c.warm, Drain: c.drain})
		if (err == nil) != c.ok {
			t.Errorf("warmup %d drain %d: err %v, want ok=%v", c.warm, c.drain, err, c.ok)
		}
		if err != nil && err.Error() != "every job is excluded from the averages (submissions span 20 s)" {
			t.Errorf("message %q", err)
		}
	}
	if err := CheckWindow(nil, Options{WarmUp: 5}); err != nil {
		t.Errorf("no jobs: %v", err)
	}
}

// TestSummarizeInAnyOrder: outcomes in ID order (a simulator's, which
// skip the sort) and in any other order give the same Summary, floating-
// point sums included, and quantiles as a sort of all waits would.
func TestSummarizeInAnyOrder(t *testing.T) {
	var o []job.Outcome
	for i := range 500 {
		submit := int64(i * 7)
		start := submit + int64(i*i%977)
		run := int64(i * 131 % 9000)
		o = append(o, out(i, submit, start, start+run, 1+i%4, run, run+10, false))
	}
	opt := Options{Procs: 8, WarmUp: 50, Drain: 70}
	want := Summarize(o, opt)
	rev := slices.Clone(o)
	slices.Reverse(rev)
	if got := Summarize(rev, opt); got != want {
		t.Fatalf("reversed outcomes: %+v, want %+v", got, want)
	}
	var waits []int64
	for i := range o {
		if o[i].Submit >= 50 && o[i].Submit <= o[len(o)-1].Submit-70 {
			waits = append(waits, o[i].Wait())
		}
	}
	slices.Sort(waits)
	if want.All.Jobs != len(waits) || want.All.MedianWait != float64(NearestRank(waits, 50)) ||
		want.All.P99Wait != float64(NearestRank(waits, 99)) || want.All.MaxWait != waits[len(waits)-1] {
		t.Fatalf("all: %+v, waits %d, median %d", want.All, len(waits), NearestRank(waits, 50))
	}
}
