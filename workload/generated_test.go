package workload

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func genJobs() []job.Job {
	var jobs []job.Job
	for i := 0; i < 50; i++ {
		jobs = append(jobs, job.Job{Request: job.Request{ID: i, Submit: int64(i * i * 7), Procs: 1 + i%16,
			Estimate: int64(100 + i), User: int32(i % 3), Group: -1, Queue: int32(i % 2), Partition: -1}, Runtime: int64(50 + 3*i)})
	}
	return jobs
}

// TestWriteJobsRoundTrip: a written workload reads back strictly with the
// same submit times, sizes, runtimes, estimates and identifiers.
func TestWriteJobsRoundTrip(t *testing.T) {
	jobs := genJobs()
	exec := make([]int32, len(jobs))
	for i := range exec {
		exec[i] = int32(i/2 + 1)
	}
	var buf bytes.Buffer
	if err := WriteJobs(&buf, JobsHeader{Computer: "synthetic", Procs: 16, Notes: []string{"model x\nparam a = 1"}}, jobs, exec); err != nil {
		t.Fatal(err)
	}
	tr, err := Read(bytes.NewReader(buf.Bytes()), "gen.swf", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Procs != 16 || len(tr.Jobs) != len(jobs) || tr.Warnings.Total() != 0 || tr.Adjusted.Total() != 0 {
		t.Fatalf("P %d, %d jobs, warnings %v, adjusted %v", tr.Procs, len(tr.Jobs), tr.Warnings, tr.Adjusted)
	}
	for i, j := range tr.Jobs {
		w := jobs[i]
		if j.Submit != w.Submit || j.Procs != w.Procs || j.Runtime != w.Runtime || j.Estimate != w.Estimate || j.User != w.User || j.Queue != w.Queue {
			t.Fatalf("job %d: read %+v, wrote %+v", i, j, w)
		}
	}
	if !strings.Contains(buf.String(), "; Note: model x\n;       param a = 1\n") {
		t.Errorf("header:\n%s", buf.String()[:300])
	}
	if err := WriteJobs(&buf, JobsHeader{}, jobs, exec[:3]); err == nil {
		t.Error("executable numbers of the wrong length accepted")
	}
	bad := genJobs()
	bad[3].Submit = 0
	if err := WriteJobs(&buf, JobsHeader{}, bad, nil); err == nil {
		t.Error("unsorted jobs accepted")
	}
}

// TestScaleLoad: scaling the inter-arrival times reaches the target load
// on the embedded KTH trace, keeps order, sizes and runtimes.
func TestScaleLoad(t *testing.T) {
	for _, target := range []float64{0.5, 0.9, 1.2} {
		tr, err := Builtin(Options{})
		if err != nil {
			t.Fatal(err)
		}
		before := append([]job.Job(nil), tr.Jobs...)
		c, err := ScaleLoad(tr, target)
		if err != nil {
			t.Fatal(err)
		}
		got := Summarize(tr).OfferedLoad
		if math.Abs(got/target-1) > 0.001 {
			t.Errorf("target %g: load %.5f", target, got)
		}
		for i := range tr.Jobs {
			a, b := tr.Jobs[i], before[i]
			if a.Procs != b.Procs || a.Runtime != b.Runtime || (i > 0 && a.Submit < tr.Jobs[i-1].Submit) {
				t.Fatalf("job %d changed: %+v from %+v", i, a, b)
			}
		}
		if !strings.HasPrefix(tr.Rules[len(tr.Rules)-1], "load scaled") {
			t.Errorf("no rule recorded: %v", tr.Rules)
		}
		t.Logf("target %g: factor %.4f, load %.5f", target, c, got)
	}
	tr := &Trace{Procs: 4, Jobs: []job.Job{{Request: job.Request{Procs: 1}, Runtime: 5}}}
	if _, err := ScaleLoad(tr, 0.5); err == nil {
		t.Error("a trace with no span accepted")
	}
	if _, err := ScaleLoad(tr, -1); err == nil {
		t.Error("a negative load accepted")
	}
}

func TestDistribute(t *testing.T) {
	tr := &Trace{Name: "x", Procs: 16, Jobs: genJobs()}
	d := Distribute(tr)
	if len(d.Sizes) != 5 || d.Sizes[4].Lo != 9 || d.Sizes[4].Hi != 16 {
		t.Fatalf("bins %+v", d.Sizes)
	}
	total := 0
	for _, b := range d.Sizes {
		total += b.Jobs
	}
	// sizes 1..16 cycle: 1 of 16 serial, 5 of 16 powers of two
	if total != 50 || math.Abs(d.Serial-4.0/50) > 1e-12 || d.Sizes[0].Jobs != 4 {
		t.Errorf("%+v", d)
	}
	if d.RuntimeQ[2] != 50+3*24 { // nearest-rank median of 50 values: the 25th
		t.Errorf("median runtime %d", d.RuntimeQ[2])
	}
	var buf bytes.Buffer
	if err := WriteDistributions(&buf, []Distribution{d, Distribute(&Trace{Name: "empty", Procs: 4})}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"size 9-16", "runtime p50", "inter-arrival CV", "power-of-two sizes"} {
		if !strings.Contains(buf.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, buf.String())
		}
	}
}
