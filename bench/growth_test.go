package bench

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestFit: worked by hand. 1 s at 10 jobs and 100 s at 100 jobs is slope
// 2; three points on t = n^1.5 give 1.5; with a capped point, the bound is
// the slope from the last measured point to the limit: from 4 s at 100 to
// > 40 s at 1,000 is ≥ 1.
func TestFit(t *testing.T) {
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if e, b := fit([]Point{{Jobs: 10, Sec: 1}, {Jobs: 100, Sec: 100}}); !near(e, 2) || !math.IsNaN(b) {
		t.Errorf("two points: %g, %g; want 2, NaN", e, b)
	}
	pts := []Point{{Jobs: 100, Sec: 1}, {Jobs: 10000, Sec: 1e3}, {Jobs: 1000000, Sec: 1e6}}
	if e, _ := fit(pts); !near(e, 1.5) {
		t.Errorf("t = n^1.5: %g", e)
	}
	// not on a line: log10 points (1, 0), (2, 1), (3, 1): slope 0.5
	if e, _ := fit([]Point{{Jobs: 10, Sec: 1}, {Jobs: 100, Sec: 10}, {Jobs: 1000, Sec: 10}}); !near(e, 0.5) {
		t.Errorf("least squares: %g, want 0.5", e)
	}
	e, b := fit([]Point{{Jobs: 10, Sec: 0.4}, {Jobs: 100, Sec: 4}, {Jobs: 1000, Sec: 40, Capped: true}, {Jobs: 10000, Sec: 40, Capped: true, NotRun: true}})
	if !near(e, 1) || !near(b, 1) {
		t.Errorf("capped: %g, %g; want 1, 1", e, b)
	}
	if e, b := fit([]Point{{Jobs: 10, Sec: 40, Capped: true}}); !math.IsNaN(e) || !math.IsNaN(b) {
		t.Errorf("nothing measured: %g, %g", e, b)
	}
}

// TestGrowthWorkloadsEnsure: workloads by load then jobs, increasing,
// whatever the order asked; generated once (a second Ensure generates
// nothing); a failing generation leaves no file.
func TestGrowthWorkloadsEnsure(t *testing.T) {
	dir := t.TempDir()
	var made []string
	g := &Growth{Jobs: []int{100, 10}, Loads: []float64{1, 0.7}, Model: "lublin", Procs: 64, Seed: 3, Estimate: "modal:atmax=2", Dir: dir,
		Generate: func(w io.Writer, jobs int, load float64) error {
			made = append(made, fmt.Sprint(jobs, load))
			_, err := fmt.Fprintf(w, "; %d jobs at %g\n", jobs, load)
			return err
		}}
	ws := g.Workloads()
	var got []string
	for _, w := range ws {
		got = append(got, fmt.Sprint(filepath.Base(w.Path), " ", w.Jobs, " ", w.Load))
	}
	want := []string{"lublin-P64-n10-load0.7-modal_atmax=2-seed3.swf 10 0.7", "lublin-P64-n100-load0.7-modal_atmax=2-seed3.swf 100 0.7",
		"lublin-P64-n10-load1-modal_atmax=2-seed3.swf 10 1", "lublin-P64-n100-load1-modal_atmax=2-seed3.swf 100 1"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("workloads:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if err := g.Ensure(io.Discard); err != nil {
		t.Fatal(err)
	}
	if len(made) != 4 {
		t.Fatalf("generated %v", made)
	}
	if b, err := os.ReadFile(ws[1].Path); err != nil || string(b) != "; 100 jobs at 0.7\n" {
		t.Fatalf("%s: %q, %v", ws[1].Path, b, err)
	}
	if err := g.Ensure(io.Discard); err != nil || len(made) != 4 {
		t.Fatalf("second Ensure generated again: %v, %v", made, err)
	}
	g.Jobs = []int{5}
	g.Generate = func(w io.Writer, _ int, _ float64) error {
		fmt.Fprint(w, "partial")
		return errors.New("disk full")
	}
	if err := g.Ensure(io.Discard); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("failing generation: %v", err)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 4 {
		var names []string
		for _, e := range entries {
			names = append(names, e.Name())
		}
		t.Fatalf("after a failed generation the directory holds %v", names)
	}
}

// TestGrowthPlan: a plan over growth workloads with a skip key per load
// and policy: once conservative is over the limit at 100 jobs, it is not
// run at 1,000 of the same load, but is run again at the next load; the
// curves and their table say so.
func TestGrowthPlan(t *testing.T) {
	g := &Growth{Jobs: []int{10, 100, 1000}, Loads: []float64{0.7, 1}, Model: "m", Procs: 8, Estimate: "exact", Dir: "d"}
	ws := g.Workloads()
	loadOf := map[string]float64{}
	jobsOf := map[string]int{}
	var files []string
	for _, w := range ws {
		loadOf[w.Path], jobsOf[w.Path] = w.Load, w.Jobs
		files = append(files, w.Path)
	}
	var calls []string
	p := &Plan{Exe: "sh", Files: files, Policies: []string{"easy", "conservative"}, Loads: []float64{0}, Limit: 5e8, // 0.5 s
		SkipKey:   func(file, pol string, _ float64) string { return fmt.Sprintf("%g %s", loadOf[file], pol) },
		OfferedOf: func(file string, _ float64) string { return Offered(loadOf[file]) },
		ChildArgs: func(file, pol string, _ float64) []string {
			calls = append(calls, fmt.Sprint(pol, " ", jobsOf[file], " ", loadOf[file]))
			n := jobsOf[file]
			sec := float64(n) / 1000 // easy: linear
			if pol == "conservative" {
				if n >= 100 && loadOf[file] == 0.7 {
					return []string{"-c", "exec sleep 5"}
				}
				sec = float64(n*n) / 1e5
			}
			if pol == "none" {
				sec = 0
			}
			return []string{"-c", fmt.Sprintf(`echo '{"trace":"%s","policy":"%s","jobs":%d,"sim_s":%g}'`, filepath.Base(file), pol, n, sec)}
		},
	}
	var out bytes.Buffer
	lines, err := p.Run(&out, NewTable(files, p.Policies), NewStatus(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range calls {
		if c == "conservative 1000 0.7" {
			t.Errorf("conservative run at 1,000 jobs after it was over the limit at 100: %v", calls)
		}
	}
	if !strings.Contains(strings.Join(calls, "\n"), "conservative 1000 1") {
		t.Errorf("conservative not run at the next load: %v", calls)
	}
	if !strings.Contains(out.String(), "(not run)") || !strings.Contains(out.String(), "  0.7  ") {
		t.Errorf("table:\n%s", out.String())
	}
	curves := Curves(ws, p.Policies, lines)
	if len(curves) != 4 {
		t.Fatalf("%d curves", len(curves))
	}
	near := func(a, b float64) bool { return math.Abs(a-b) < 1e-9 }
	if c := curves[0]; c.Policy != "easy" || c.Load != 0.7 || len(c.Points) != 3 || !near(c.Exponent, 1) || !math.IsNaN(c.AtLeast) {
		t.Errorf("easy at 0.7: %+v", c)
	}
	// conservative at 0.7: one point measured (0.001 s at 10), then over 0.5 s
	// at 100: no fit, bound log(0.5/0.001)/log(10)
	if c := curves[1]; !math.IsNaN(c.Exponent) || !near(c.AtLeast, math.Log10(500)) || !c.Points[1].Capped || !c.Points[2].NotRun {
		t.Errorf("conservative at 0.7: %+v", c)
	}
	if c := curves[3]; c.Load != 1 || !near(c.Exponent, 2) {
		t.Errorf("conservative at 1: %+v", c)
	}
	var tb bytes.Buffer
	GrowthTable(&tb, g.Jobs, curves)
	rows := strings.Split(strings.TrimSuffix(tb.String(), "\n"), "\n")
	if len(rows) != 5 || !strings.Contains(rows[0], "exponent") || !strings.Contains(rows[2], "> 0.5 (not run)") || !strings.HasSuffix(rows[2], "2.70") {
		t.Errorf("growth table:\n%s", tb.String())
	}
	js, err := json.Marshal(curves[1])
	if err != nil || !strings.Contains(string(js), `"exponent":null`) || !strings.Contains(string(js), `"at_least":2.69`) {
		t.Errorf("json: %s, %v", js, err)
	}
}
