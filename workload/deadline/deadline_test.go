package deadline

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	_ "github.com/backfill-hpc/backfill/policy/easy"
)

func base(n int) []job.Job {
	r := rand.New(rand.NewPCG(3, 4))
	js := testgen.Jobs(r, testgen.Spec{Jobs: n, Procs: 16, MeanGap: 30, MaxRuntime: 500})
	for i := range js {
		js[i].Estimate = max(1, js[i].Runtime) // exact estimates, as the paper
		js[i].SWFID = int64(100 + i)
	}
	return js
}

func TestSubset(t *testing.T) {
	js := base(10)
	s, err := Subset(js, 3, 4)
	if err != nil || len(s) != 4 || s[0].SWFID != 103 || s[3].SWFID != 106 || s[0].ID != 0 || s[3].ID != 3 {
		t.Fatalf("Subset(3, 4) = %v, %v", s, err)
	}
	if js[3].ID != 3 {
		t.Error("Subset modified its input")
	}
	if s, _ := Subset(js, 4, 0); len(s) != 6 {
		t.Errorf("Subset(4, all) has %d jobs", len(s))
	}
	for _, c := range [][2]int{{-1, 2}, {0, -1}, {8, 3}, {11, 0}} {
		if _, err := Subset(js, c[0], c[1]); err == nil {
			t.Errorf("Subset(%d, %d) accepted", c[0], c[1])
		}
	}
}

func TestDuplicateIncremental(t *testing.T) {
	js := base(200)
	var prev []job.Job
	for _, l := range []float64{1, 1.2, 1.4, 1.6, 2.5} {
		d, err := Duplicate(js, l, 7)
		if err != nil {
			t.Fatal(err)
		}
		if want := 200 + Duplicates(200, l); len(d) != want {
			t.Fatalf("l=%v: %d jobs, want %d", l, len(d), want)
		}
		ids := map[int64]bool{}
		for i, j := range d {
			if j.ID != i || (i > 0 && j.Submit < d[i-1].Submit) || ids[j.SWFID] ||
				j.Submit < js[0].Submit || j.Submit > js[len(js)-1].Submit {
				t.Fatalf("l=%v: job %d = %+v", l, i, j)
			}
			ids[j.SWFID] = true
		}
		// every job of the lower load is here with the same arrival
		type key struct{ swf, submit int64 }
		have := map[key]bool{}
		for _, j := range d {
			have[key{j.SWFID, j.Submit}] = true
		}
		for _, j := range prev {
			if !have[key{j.SWFID, j.Submit}] {
				t.Fatalf("l=%v lacks job %d (submit %d) of the lower load", l, j.SWFID, j.Submit)
			}
		}
		prev = d
	}
	a, _ := Duplicate(js, 1.4, 7)
	b, _ := Duplicate(js, 1.4, 7)
	c, _ := Duplicate(js, 1.4, 8)
	if !reflect.DeepEqual(a, b) || reflect.DeepEqual(a, c) {
		t.Error("duplication not determined by the seed")
	}
	if _, err := Duplicate(js, 0.9, 1); err == nil {
		t.Error("load 0.9 accepted")
	}
}

func TestExpand(t *testing.T) {
	js := base(5)
	js[0].Runtime, js[0].Estimate = 0, 1
	js[1].Runtime, js[1].Estimate = 100, 150
	e, err := Expand(js, 1.5)
	if err != nil || e[0].Runtime != 0 || e[0].Estimate != 2 || e[1].Runtime != 150 || e[1].Estimate != 225 ||
		e[1].Submit != js[1].Submit || len(e) != 5 {
		t.Fatalf("Expand = %+v %v", e[:2], err)
	}
	if js[1].Runtime != 100 {
		t.Error("Expand modified its input")
	}
}

func TestAssignAndMark(t *testing.T) {
	js := []job.Job{
		{Request: job.Request{ID: 0, Submit: 10, Procs: 1, Estimate: 50}, Runtime: 50},
		{Request: job.Request{ID: 1, Submit: 20, Procs: 1, Estimate: 50}, Runtime: 50},
		{Request: job.Request{ID: 2, Submit: 0, Procs: 1, Estimate: 1}, Runtime: 0},
	}
	// EASY responses 50 (no wait), 1000, 0
	if err := Assign(js, []int64{50, 1000, 0}, 0.2); err != nil {
		t.Fatal(err)
	}
	// max(50, 40) = 50; max(50, 800) = 800; max(0, 0, 1) = 1
	if js[0].Deadline != 60 || js[1].Deadline != 820 || js[2].Deadline != 1 {
		t.Errorf("deadlines %d %d %d", js[0].Deadline, js[1].Deadline, js[2].Deadline)
	}
	if err := Assign(js, []int64{1, 2}, 0.2); err == nil {
		t.Error("wrong number of responses accepted")
	}
	if err := Assign(js, []int64{1, 2, 3}, 1); err == nil {
		t.Error("stringency 1 accepted")
	}
	big := base(101)
	for i := range big {
		big[i].Deadline = 5
	}
	if err := Mark(big, 0.2, 3); err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, j := range big {
		if j.Deadline > 0 {
			n++
		}
	}
	if n != 20 {
		t.Errorf("Mark(0.2) kept %d of 101 deadlines, want 20", n)
	}
}

func TestParseSpec(t *testing.T) {
	sp, err := ParseSpec("s=0.5:l=1.6:load=expand:frac=0.2:offset=100:n=5000:seed=9")
	want := Spec{Offset: 100, Count: 5000, Load: 1.6, Method: MethodExpand, Stringency: 0.5, Fraction: 0.2, Seed: 9}
	if err != nil || sp != want {
		t.Fatalf("ParseSpec = %+v, %v", sp, err)
	}
	if back, err := ParseSpec(sp.String()); err != nil || back != sp {
		t.Errorf("round trip of %s: %+v %v", sp, back, err)
	}
	if sp, err := ParseSpec(" s=0.2, l=1.2 "); err != nil || sp.Load != 1.2 || sp.Method != MethodDup || sp.Fraction != 1 {
		t.Errorf("comma form: %+v %v", sp, err)
	}
	if sp, err := ParseSpec(""); err != nil || sp != DefaultSpec() {
		t.Errorf("empty spec: %+v %v", sp, err)
	}
	for _, bad := range []string{"s=1", "s=-0.1", "l=0.5", "load=shrink", "frac=2", "n=-1", "offset=x", "seed=-1",
		"x=1", "s", "s=0.2:s=0.3", "=3", "l=NaN"} {
		if _, err := ParseSpec(bad); err == nil {
			t.Errorf("ParseSpec(%q) accepted", bad)
		}
	}
	// errors of package spec's shape, the first bad key in the order s, l, load, frac, offset, n, seed
	if _, err := ParseSpec("n=-1:s=1"); err == nil || err.Error() != `deadline workload "n=-1:s=1": parameter s: expected a stringency in [0, 1), found "1"` {
		t.Errorf("n=-1:s=1: %v", err)
	}
	if _, err := ParseSpec("load=shrink"); err == nil || err.Error() != `deadline workload "load=shrink": parameter load: expected dup or expand, found "shrink"` {
		t.Errorf("load=shrink: %v", err)
	}
}

// FuzzParseSpec: ParseSpec never panics, and what it accepts prints to a
// form it reads back identically.
func FuzzParseSpec(f *testing.F) {
	for _, s := range []string{"", "s=0.2", "s=0.5:l=1.6:load=expand:frac=0.2:offset=100:n=5000:seed=9",
		"l=1e2,frac=0", "seed=18446744073709551615", "s=0.99999:l=1.0000001", "load=dup:load=dup", ":,:"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		sp, err := ParseSpec(s)
		if err != nil {
			if !strings.Contains(err.Error(), "deadline workload") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		back, err := ParseSpec(sp.String())
		if err != nil || back != sp {
			t.Fatalf("%q → %+v → %q → %+v, %v", s, sp, sp.String(), back, err)
		}
	})
}
