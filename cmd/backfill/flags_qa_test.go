package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestOutOfRangeFlagsRejected: flags an outside check found silently
// ignored (a value meaning "the default" although given) or crashing the
// process (an out-of-memory fatal error is not an error message): each is
// a clear error now, and no figure file is left behind.
func TestOutOfRangeFlagsRejected(t *testing.T) {
	dir := t.TempDir()
	trace := filepath.Join(dir, "t.swf")
	swf := "; MaxProcs: 10\n1 0 -1 5 6 -1 -1 6 5 -1 1 1 1 -1 -1 -1 -1 -1\n2 0 -1 5 1 -1 -1 1 10 -1 1 1 1 -1 -1 -1 -1 -1\n"
	if err := os.WriteFile(trace, []byte(swf), 0o644); err != nil {
		t.Fatal(err)
	}
	fig := filepath.Join(dir, "f.png")
	sim := "../../report/testdata/sim-small"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--trace", trace, "--cores-per-node", "0"}, "--cores-per-node 0: expected at least 1 core per node"},
		{[]string{"simulate", "--trace", trace, "--cores-per-node", "-2"}, "--cores-per-node -2: expected at least 1 core per node"},
		{[]string{"simulate", "--trace", trace, "--workers", "0"}, "--workers 0: expected at least 1"},
		{[]string{"simulate", "--trace", trace, "--policy", "easy,fcfs,easy"}, `--policy: "easy" given twice`},
		{[]string{"check", trace, "--procs", "0"}, "--procs 0: the machine size must be at least 1"},
		{[]string{"check", trace, "--procs", "-3"}, "--procs -3: the machine size must be at least 1"},
		{[]string{"generate", "lublin", "--procs", "0", "-o", filepath.Join(dir, "g.swf")}, "--procs 0: the machine size must be at least 1"},
		{[]string{"generate", "lublin", "--load", "0", "-o", filepath.Join(dir, "g.swf")}, "--load 0: the offered load must be greater than 0"},
		{[]string{"generate", "lublin", "--jobs", "100000000000", "-o", filepath.Join(dir, "g.swf")}, "number of jobs must be from 1 to 10000000, got 100000000000"},
		{[]string{"plot", sim, "--width", "500", "--height", "500", "-o", fig}, "million pixels, expected at most 200 million"},
		{[]string{"plot", sim, "--dpi", "100000", "-o", fig}, "--dpi 100000: expected 1 to 2400"},
		{[]string{"plot", sim, "--dpi", "0", "-o", fig}, "--dpi 0: expected 1 to 2400"},
		{[]string{"plot", sim, "--width", "-3", "-o", fig}, "--width -3 --height 8: expected sizes above 0 and up to 500 cm"},
		{[]string{"plot", sim, "--height", "1e9", "-o", fig}, "--width 12 --height 1e+09: expected sizes above 0 and up to 500 cm"},
		{[]string{"plot", sim, "--gantt", "easy", "--from", "1000000", "-o", fig}, "--from 1000000 --to"},
	} {
		out, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("backfill %s: error %v, want one saying %q\n%s", strings.Join(c.args, " "), err, c.want, out)
		}
	}
	if _, err := os.Stat(fig); !os.IsNotExist(err) {
		t.Errorf("a refused figure left a file behind (%v)", err)
	}
}
