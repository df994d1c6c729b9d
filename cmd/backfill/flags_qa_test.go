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
		{[]string{"simulate", "--trace", trace, "--warmup", "999999"}, "--warmup 999999 --drain 0: every job is excluded from the averages"},
		{[]string{"simulate", "--trace", trace, "--warmup", "1", "--drain", "1"}, "--warmup 1 --drain 1: every job is excluded"},
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
		{[]string{"plot", sim, "--cdf", "--metric", "nope", "-o", fig}, `--metric: unknown metric "nope"`},
		{[]string{"plot", sim, "--cdf", "--metric", "mean_wait", "-o", fig}, "--metric mean_wait: not used by --cdf or --gantt"},
		{[]string{"plot", sim, "--gantt", "easy", "--metric", "mean_wait", "-o", fig}, "--metric mean_wait: not used by --cdf or --gantt"},
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

// TestServeLimitFlags: a limit of 0 (or a negative other than -1) meant
// "the default" inside the service and was silently replaced; on the
// command line it is an error, before anything is opened.
func TestServeLimitFlags(t *testing.T) {
	state := filepath.Join(t.TempDir(), "st")
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--max-body", "0"}, "--max-body 0: expected at least 1 byte"},
		{[]string{"--max-body", "-1"}, "--max-body -1: expected at least 1 byte"},
		{[]string{"--max-in-flight", "0"}, "--max-in-flight 0: expected at least 1, or -1 for no limit"},
		{[]string{"--max-exec-backlog", "-5"}, "--max-exec-backlog -5: expected at least 1, or -1 for no limit"},
	} {
		args := append([]string{"serve", "--procs", "4", "--state", state, "--listen", "127.0.0.1:0"}, c.args...)
		out, err := run(t, args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("backfill %s: error %v, want one saying %q\n%s", strings.Join(args, " "), err, c.want, out)
		}
	}
	if _, err := os.Stat(state); !os.IsNotExist(err) {
		t.Errorf("a refused start created the state directory (%v)", err)
	}
}

// TestImportRefusesOverwritingInput: -o naming the input dump (or a
// sidecar path that is an input) replaced the site's accounting with its
// conversion; now it is an error and the input is unchanged.
func TestImportRefusesOverwritingInput(t *testing.T) {
	dir := t.TempDir()
	dump := filepath.Join(dir, "dump.txt")
	rec := "10|10|COMPLETED|2024-01-01T00:00:00|2024-01-01T00:00:00|2024-01-01T00:01:00|2024-01-01T00:11:00|00:10:00|01:00:00|alice|users|acct|debug|normal|1|4|cpu=4|cpu=4\n"
	if err := os.WriteFile(dump, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{dump, filepath.Join(dir, ".", "dump.txt")} {
		_, err := run(t, "import", "slurm", dump, "-o", out)
		if err == nil || !strings.Contains(err.Error(), "is an input; give -o another file") {
			t.Errorf("-o %s: %v", out, err)
		}
	}
	side := filepath.Join(dir, "x.sidecar.csv")
	if err := os.WriteFile(side, []byte(rec), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := run(t, "import", "slurm", side, "-o", filepath.Join(dir, "x.swf")); err == nil || !strings.Contains(err.Error(), "is an input") {
		t.Errorf("sidecar over its input: %v", err)
	}
	if b, err := os.ReadFile(dump); err != nil || string(b) != rec {
		t.Errorf("the input changed: %q %v", b, err)
	}
	if _, err := run(t, "import", "slurm", dump, "-o", filepath.Join(dir, "site.swf")); err != nil {
		t.Errorf("a distinct output: %v", err)
	}
}
