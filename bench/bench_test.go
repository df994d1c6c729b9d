package bench

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/workload"
)

// TestTraces finds SWF files at the top and one level down, sorted, and
// filters by name.
func TestTraces(t *testing.T) {
	dir := t.TempDir()
	for _, p := range []string{"b.swf", "a.swf.gz", "sub/c.swf", "notes.txt"} {
		os.MkdirAll(filepath.Dir(filepath.Join(dir, p)), 0o755)
		os.WriteFile(filepath.Join(dir, p), nil, 0o644)
	}
	got, err := Traces(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, g := range got {
		names = append(names, strings.TrimPrefix(g, dir+"/"))
	}
	if strings.Join(names, " ") != "a.swf.gz b.swf sub/c.swf" {
		t.Errorf("traces %v", names)
	}
	if got, _ := Traces(dir, "c."); len(got) != 1 {
		t.Errorf("only c.: %v", got)
	}
	if _, err := Traces(dir, "zzz"); err == nil {
		t.Error("no trace: no error")
	}
}

// TestMeasure simulates three jobs and reports them; none only loads.
func TestMeasure(t *testing.T) {
	tr := &workload.Trace{Procs: 4}
	for i := range 3 {
		tr.Jobs = append(tr.Jobs, job.Job{Request: job.Request{ID: i, Submit: int64(10 * i), Procs: 2, Estimate: 100}, Runtime: 50})
	}
	l, err := Measure("t.swf", tr, 0.5, "easy")
	if err != nil {
		t.Fatal(err)
	}
	if l.Policy == LoadOnly || l.Jobs != 3 || l.Procs != 4 || l.LoadSec != 0.5 || l.Trace != "t.swf" {
		t.Errorf("line %+v", l)
	}
	l, err = Measure("t.swf", tr, 0.5, "none")
	if err != nil || l.Policy != LoadOnly || l.SimSec != 0 {
		t.Errorf("none: %+v, %v", l, err)
	}
	if _, err := Measure("t.swf", tr, 0, "nosuch"); err == nil {
		t.Error("unknown policy accepted")
	}
}

// TestRows checks the table and CSV rows worked by hand: 1000 jobs in 2 s
// is 500 jobs/s, 8000 bytes is 8 per job, 2048 KB is 2.0 MB.
func TestRows(t *testing.T) {
	l := Line{Trace: "x.swf", Policy: "easy", Jobs: 1000, Procs: 64, LoadSec: 0.25, SimSec: 2, Alloc: 8000, MaxRSSKB: 2048}
	if got, want := l.TableRow(true), "x.swf\t1000\t64\teasy\t0.250\t2.000\t500\t8\t2.0\t"; got != want {
		t.Errorf("row %q, want %q", got, want)
	}
	if got := strings.Join(l.CSV(), ","); got != "x.swf,easy,1000,64,0.250,2.000,8000,2048," {
		t.Errorf("csv %s", got)
	}
}
