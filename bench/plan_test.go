package bench

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"testing"
)

// TestPlanRun: loads outermost, then traces, then "none" and the
// policies; each child's line gets its offered load and × EASY (worked by
// hand: EASY 2 s, conservative 5 s: 2.5); a failing child gives an error
// row and the run goes on; a failing whole process marks its line failed;
// no whole process for "none".
func TestPlanRun(t *testing.T) {
	sim := map[string]string{"none": "0", "easy": "2", "conservative": "5"}
	var calls []string
	p := &Plan{
		Exe:      "sh",
		Files:    []string{"dir/a.swf", "dir/b.swf"},
		Policies: []string{"easy", "conservative"},
		Loads:    []float64{0, 0.9},
		Whole:    true,
		ChildArgs: func(file, pol string, load float64) []string {
			calls = append(calls, fmt.Sprintf("child %s %s %g", file, pol, load))
			if file == "dir/b.swf" && pol == "conservative" {
				return []string{"-c", "echo 'b.swf: line 3: bad' >&2; exit 1"}
			}
			return []string{"-c", fmt.Sprintf(`echo '{"trace":"%s","policy":"%s","jobs":4,"sim_s":%s}'`, file[4:], pol, sim[pol])}
		},
		WholeArgs: func(file, pol string, load float64, out string) []string {
			if _, err := os.Stat(out); err != nil {
				t.Errorf("whole process's output directory: %v", err)
			}
			calls = append(calls, fmt.Sprintf("whole %s %s %g", file, pol, load))
			if file == "dir/a.swf" && pol == "easy" && load == 0.9 {
				return []string{"-c", "echo 'out of memory' >&2; exit 2"}
			}
			return []string{"-c", "true"}
		},
	}
	var out bytes.Buffer
	tb := NewTable(p.Files, p.Policies)
	lines, err := p.Run(&out, tb, NewStatus(io.Discard))
	if err != nil {
		t.Fatal(err)
	}
	if len(lines) != 12 {
		t.Fatalf("%d lines, want 2 loads × 2 traces × 3 runs", len(lines))
	}
	if calls[0] != "child dir/a.swf none 0" || calls[1] != "child dir/a.swf easy 0" || calls[2] != "whole dir/a.swf easy 0" {
		t.Errorf("calls begin %v", calls[:3])
	}
	if n := strings.Count(strings.Join(calls, "\n"), "whole"); n != 6 {
		t.Errorf("%d whole processes, want 6 (8 simulating runs, 2 children failed)", n)
	}
	c := lines[2]
	if c.Policy != "conservative" || c.XEasy != 2.5 || c.Offered != "" || c.WholeSec <= 0 {
		t.Errorf("conservative on a.swf: %+v", c)
	}
	if f := lines[5]; f.Error != "b.swf: line 3: bad" || f.Policy != "conservative" {
		t.Errorf("failed child: %+v", f)
	}
	if w := lines[7]; w.Offered != "0.9" || !strings.HasPrefix(w.Error, "whole process: ") || !strings.Contains(w.Error, "out of memory") {
		t.Errorf("failed whole process: %+v", w)
	}
	rows := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if len(rows) != 12 || !strings.Contains(rows[5], "error: b.swf: line 3: bad") || !strings.Contains(rows[7], "error: whole process: ") {
		t.Errorf("rows:\n%s", out.String())
	}
	out.Reset()
	p.Whole, p.Loads = false, []float64{0}
	if _, err := p.Run(&out, nil, NewStatus(io.Discard)); err != nil || out.Len() != 0 {
		t.Errorf("no table: printed %q, err %v", out.String(), err)
	}
}
