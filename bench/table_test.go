package bench

import (
	"bytes"
	"fmt"
	"testing"
	"time"
)

func TestTableAlignsColumns(t *testing.T) {
	tb := NewTable([]string{"/x/KTH-SP2-1996-2.1-cln.swf.gz"}, []string{"easy"})
	// the trace column as wide as the longest file name (27), the policy
	// column as "(load only)" (11), the others as their header, at least 8
	want := fmt.Sprintf("%27s  %8s  %8s  %8s  %11s  %8s  %8s  %9s  %8s  %8s  %11s  %11s  %8s  %11s  %12s",
		"trace", "jobs", "P", "offered", "policy", "load s", "sim s", "sim CPU s", "× EASY", "jobs/s", "alloc B/job", "peak RSS MB", "whole s", "whole CPU s", "whole RSS MB")
	if h := tb.Header(); h != want {
		t.Fatalf("header\n%q\nwant\n%q", h, want)
	}
	// 100 jobs in 2 s: 50 jobs/s, 10 B/job, 2 MB; no whole process: the
	// empty cells at the end are cut
	l := Line{Trace: "KTH-SP2-1996-2.1-cln.swf.gz", Policy: "easy", Jobs: 100, Procs: 10, LoadSec: 1, SimSec: 2, Alloc: 1000, MaxRSSKB: 2048}
	want = fmt.Sprintf("%27s  %8s  %8s  %8s  %11s  %8s  %8s  %9s  %8s  %8s  %11s  %11s",
		"KTH-SP2-1996-2.1-cln.swf.gz", "100", "10", "orig", "easy", "1.000", "2.000", "", "", "50", "10", "2.0")
	if row := tb.Row(l, true); row != want {
		t.Fatalf("row\n%q\nwant\n%q", row, want)
	}
	e := tb.ErrorRow(Line{Trace: "t", Error: "boom"}, "easy")
	if want := fmt.Sprintf("%27s  %8s  %8s  %8s  %11s  error: boom", "t", "", "", "", "easy"); e != want {
		t.Errorf("error row %q, want %q", e, want)
	}
}

func TestStatusOffTerminal(t *testing.T) {
	var buf bytes.Buffer
	s := NewStatus(&buf)
	s.Show("run %d", 1) // within 30 s of the start: nothing
	s.Clear()
	if buf.Len() != 0 {
		t.Errorf("status wrote %q off a terminal within 30 s", buf.String())
	}
}

// TestChildProgress: at most four lines a second, in the format RunChild
// reads back.
func TestChildProgress(t *testing.T) {
	var buf bytes.Buffer
	p := ChildProgress(&buf, 10)
	p(1) // within 250 ms of the start: nothing
	if buf.Len() != 0 {
		t.Fatalf("wrote %q at once", buf.String())
	}
	time.Sleep(260 * time.Millisecond)
	p(5)
	p(6) // within 250 ms of the last line: nothing
	if buf.String() != ProgressPrefix+"5 10\n" {
		t.Fatalf("wrote %q", buf.String())
	}
}

// TestLoadsAndBaseline: --loads parsed; × EASY worked by hand (EASY 2 s,
// conservative 5 s: 2.5; a run stopped at 30 s: at least 15), by CPU
// seconds when the lines have them.
func TestLoadsAndBaseline(t *testing.T) {
	l, err := ParseLoads([]string{"orig", "0.95"}, 0)
	if err != nil || len(l) != 2 || l[0] != 0 || l[1] != 0.95 || Offered(l[0]) != "" || Offered(l[1]) != "0.95" {
		t.Errorf("loads %v %v", l, err)
	}
	if l, err := ParseLoads(nil, 0.9); err != nil || len(l) != 1 || l[0] != 0.9 {
		t.Errorf("default %v %v", l, err)
	}
	for _, bad := range []string{"0", "-1", "x", "Inf"} {
		if _, err := ParseLoads([]string{bad}, 0); err == nil {
			t.Errorf("--loads %s accepted", bad)
		}
	}
	var b Baseline
	c := Line{SimSec: 5}
	b.Relate(&c, "conservative") // before EASY: nothing to relate to
	if c.XEasy != 0 {
		t.Errorf("× EASY %v before EASY ran", c.XEasy)
	}
	e := Line{SimSec: 2}
	b.Relate(&e, "easy")
	b.Relate(&c, "conservative")
	s := Line{LimitSec: 30}
	b.Relate(&s, "slack")
	if e.XEasy != 1 || c.XEasy != 2.5 || s.XEasy != 15 {
		t.Errorf("× EASY: easy %v conservative %v slack %v", e.XEasy, c.XEasy, s.XEasy)
	}
	// with CPU times, the ratio is of CPU seconds: EASY 2 s wall, 1 s CPU;
	// multiqueue 3 s wall, 4 s CPU: 4.00; a stopped run stays wall over
	// wall: 30 / 2
	var cb Baseline
	e = Line{SimSec: 2, SimCPUSec: 1}
	cb.Relate(&e, "easy")
	m := Line{SimSec: 3, SimCPUSec: 4}
	cb.Relate(&m, "multiqueue")
	s = Line{LimitSec: 30}
	cb.Relate(&s, "slack")
	if e.XEasy != 1 || m.XEasy != 4 || s.XEasy != 15 {
		t.Errorf("× EASY by CPU: easy %v multiqueue %v slack %v", e.XEasy, m.XEasy, s.XEasy)
	}
}
