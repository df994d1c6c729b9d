package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestInvalidInputRejected: each invalid input is a clear error (a non-nil
// error is a non-zero exit in main), never silently accepted.
func TestInvalidInputRejected(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.swf")
	if err := os.WriteFile(empty, []byte("; a header, no jobs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// a port nobody listens on: listen, then close
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"simulate", "--procs", "0"}, "--procs 0: the machine size must be at least 1"},
		{[]string{"simulate", "--load", "0"}, "--load 0: the offered load must be greater than 0"},
		{[]string{"simulate", "--tau", "-1"}, "--tau -1: the bounded-slowdown threshold must be at least 1 s"},
		{[]string{"report", "--tau", "0", "-o", filepath.Join(dir, "r.html")}, "--tau 0"},
		{[]string{"simulate", "--trace", empty}, "no jobs to simulate"},
		{[]string{"simulate", "--trace", dir}, "is a directory: expected an SWF trace file"},
		{[]string{"info", dir}, "is a directory"},
		{[]string{"simulate", "-policy", "easy"}, "-policy: long flags take two dashes: --policy"},
		{[]string{"results", "../../report/testdata/sweep-small", "--where", "policy_name=easyx"}, "no run of the 8"},
		{[]string{"queue", "--server", dead, "--token", "x"}, "start one with 'backfill serve"},
	} {
		out, err := run(t, c.args...)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("backfill %s: error %v, want one saying %q\n%s", strings.Join(c.args, " "), err, c.want, out)
		}
	}
	// == is =
	out, err := run(t, "results", "../../report/testdata/sweep-small", "--where", "policy_name==easy")
	if err != nil || strings.Count(out, " easy ") != 4 {
		t.Errorf("--where policy_name==easy: %v\n%s", err, out)
	}
}

// TestPlotLogYBars: bars on a logarithmic axis once panicked inside
// gonum/plot and left a 0-byte file; now they stand on a floor below the
// smallest value, and a value a log axis cannot show is an error that
// leaves no file.
func TestPlotLogYBars(t *testing.T) {
	dir := t.TempDir()
	fig := filepath.Join(dir, "bars.png")
	if out, err := run(t, "plot", "../../report/testdata/sim-small", "--x", "policy", "--log-y", "--metric", "mean_bsld", "-o", fig); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if st, err := os.Stat(fig); err != nil || st.Size() < 1000 {
		t.Errorf("figure %v %v", st, err)
	}
	bad := filepath.Join(dir, "killed.png")
	_, err := run(t, "plot", "../../report/testdata/sim-small", "--x", "policy", "--log-y", "--metric", "killed", "-o", bad)
	if err == nil || !strings.Contains(err.Error(), "logarithmic axis cannot show") {
		t.Errorf("killed = 0 on a log axis: %v", err)
	}
	if _, err := os.Stat(bad); !os.IsNotExist(err) {
		t.Errorf("a failed figure left a file behind (%v)", err)
	}
}
