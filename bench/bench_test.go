package bench

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

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
	l, err := Measure("t.swf", tr, 0.5, "easy", nil)
	if err != nil {
		t.Fatal(err)
	}
	if l.Policy == LoadOnly || l.Jobs != 3 || l.Procs != 4 || l.LoadSec != 0.5 || l.Trace != "t.swf" {
		t.Errorf("line %+v", l)
	}
	if l.NoKill || l.SimCPUSec < 0 {
		t.Errorf("line %+v", l)
	}
	// a job past its estimate: killed by default; with no kill it runs on
	// and the simulation still ends every job
	tr.Jobs[0].Runtime = 500
	l, err = MeasureNoKill("t.swf", tr, 0.5, "conservative", true, nil)
	if err != nil || !l.NoKill || l.Policy != "conservative" {
		t.Errorf("no kill: %+v, %v", l, err)
	}
	l, err = Measure("t.swf", tr, 0.5, "none", nil)
	if err != nil || l.Policy != LoadOnly || l.SimSec != 0 {
		t.Errorf("none: %+v, %v", l, err)
	}
	if _, err := Measure("t.swf", tr, 0, "nosuch", nil); err == nil {
		t.Error("unknown policy accepted")
	}
}

// TestRows checks the table and CSV rows worked by hand: 1000 jobs in 2 s
// is 500 jobs/s, 8000 bytes is 8 per job, 2048 KB is 2.0 MB.
func TestRows(t *testing.T) {
	l := Line{Trace: "x.swf", Policy: "easy", Jobs: 1000, Procs: 64, LoadSec: 0.25, SimSec: 2, Alloc: 8000, MaxRSSKB: 2048}
	if got, want := l.TableRow(true), "x.swf\t1000\t64\torig\teasy\t0.250\t2.000\t\t\t500\t8\t2.0\t\t\t\t"; got != want {
		t.Errorf("row %q, want %q", got, want)
	}
	if got := strings.Join(l.CSV(), ","); got != "x.swf,easy,1000,64,0.250,2.000,8000,2048,0.000,0.000,0,,,0,0,0.00,0.000" {
		t.Errorf("csv %s", got)
	}
	// the whole process: 3 s wall, 2.5 s CPU, 3072 KB = 3.0 MB
	l.WholeSec, l.WholeCPUSec, l.WholeRSSKB = 3, 2.5, 3072
	if got, want := l.TableRow(true), "x.swf\t1000\t64\torig\teasy\t0.250\t2.000\t\t\t500\t8\t2.0\t3.000\t2.500\t3.0\t"; got != want {
		t.Errorf("row %q, want %q", got, want)
	}
	if got := strings.Join(l.CSV(), ","); got != "x.swf,easy,1000,64,0.250,2.000,8000,2048,3.000,2.500,3072,,,0,0,0.00,0.000" {
		t.Errorf("csv %s", got)
	}
	if n, m := len(strings.Split(TableHeader, "\t")), len(strings.Split(l.TableRow(true), "\t")); n != m {
		t.Errorf("header has %d cells, row %d", n, m)
	}
	// at offered load 0.95, 1.5 CPU s, × 2.00
	l.Offered, l.XEasy, l.SimCPUSec = "0.95", 2, 1.5
	if got, want := l.TableRow(true), "x.swf\t1000\t64\t0.95\teasy\t0.250\t2.000\t1.500\t2.00\t500\t8\t2.0\t3.000\t2.500\t3.0\t"; got != want {
		t.Errorf("row %q, want %q", got, want)
	}
	// stopped at a 300 s limit with 250 of 1000 jobs ended; EASY took 2 s
	s := Line{Trace: "x.swf", Policy: "slack", Jobs: 1000, Procs: 64, LoadSec: 0.25, LimitSec: 300, Done: 250, XEasy: 150}
	if got, want := s.TableRow(true), "x.swf\t1000\t\torig\tslack\t\t> 300\t\t> 150\t(25%)\t\t\t\t\t\t"; got != want {
		t.Errorf("row %q, want %q", got, want)
	}
}

// TestRunChildLimit: a child still running at the limit is killed, and its
// line says so, with its last progress.
func TestRunChildLimit(t *testing.T) {
	script := `echo "bench-progress 4 10" >&2; exec sleep 30`
	l, failed, err := RunChildLimit("sh", []string{"-c", script}, "t.swf", "slack", 300*time.Millisecond, nil)
	if err != nil || failed || l.LimitSec != 0.3 || l.Done != 4 || l.Jobs != 10 || l.Policy != "slack" {
		t.Errorf("line %+v failed %v err %v", l, failed, err)
	}
}

// TestRunChildProgress: a child's progress lines go to the callback as
// they come, not into its Line or its error; the rest of standard error is
// the error of a child that fails.
func TestRunChildProgress(t *testing.T) {
	var got []string
	progress := func(done, total int) { got = append(got, fmt.Sprintf("%d/%d", done, total)) }
	script := `echo "bench-progress 5 10" >&2; echo "bench-progress 10 10" >&2; echo '{"trace":"t.swf","jobs":10}'`
	l, failed, err := RunChild("sh", []string{"-c", script}, "t.swf", "easy", progress)
	if err != nil || failed || l.Jobs != 10 || strings.Join(got, " ") != "5/10 10/10" {
		t.Errorf("line %+v failed %v err %v progress %v", l, failed, err, got)
	}
	got = nil
	script = `echo "bench-progress 3 10" >&2; echo "t.swf: line 7: bad" >&2; exit 1`
	l, failed, err = RunChild("sh", []string{"-c", script}, "t.swf", "easy", progress)
	if err != nil || !failed || l.Error != "t.swf: line 7: bad" || strings.Join(got, " ") != "3/10" {
		t.Errorf("line %+v failed %v err %v progress %v", l, failed, err, got)
	}
}

// TestRunWhole: a whole process's wall and CPU times, and its error with
// its standard error when it fails.
func TestRunWhole(t *testing.T) {
	wall, cpu, rss, err := RunWhole("sh", []string{"-c", "echo out; i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done"})
	if err != nil || wall <= 0 || cpu <= 0 || cpu > wall*2+0.5 || rss <= 0 {
		t.Errorf("wall %v cpu %v rss %v err %v", wall, cpu, rss, err)
	}
	if _, _, _, err := RunWhole("sh", []string{"-c", "echo nope >&2; exit 2"}); err == nil || !strings.Contains(err.Error(), "nope") {
		t.Errorf("failing process: %v", err)
	}
}
