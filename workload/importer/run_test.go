package importer

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOutputPaths(t *testing.T) {
	for _, c := range []struct{ out, sc, nm string }{
		{"site.swf", "site.sidecar.csv", "site.names.csv"},
		{"dir/x", "dir/x.sidecar.csv", "dir/x.names.csv"},
	} {
		sc, nm := OutputPaths(c.out)
		if sc != c.sc || nm != c.nm {
			t.Errorf("OutputPaths(%q) = %q, %q; want %q, %q", c.out, sc, nm, c.sc, c.nm)
		}
	}
}

// TestRunRefuses checks the checks made before anything is read or written.
func TestRunRefuses(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "dump.txt")
	if err := os.WriteFile(in, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	sidecarIn := filepath.Join(dir, "dump.sidecar.csv")
	if err := os.WriteFile(sidecarIn, []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		cfg  RunConfig
		want string
	}{
		{"no out", RunConfig{Format: "slurm", Files: []string{in}, TZ: "UTC"}, "-o FILE.swf is required"},
		{"stdout", RunConfig{Format: "slurm", Files: []string{in}, Out: "-", TZ: "UTC"}, "-o FILE.swf is required"},
		{"out is input", RunConfig{Format: "slurm", Files: []string{in}, Out: in, TZ: "UTC"}, "is an input"},
		{"sidecar is input", RunConfig{Format: "slurm", Files: []string{sidecarIn}, Out: filepath.Join(dir, "dump.swf"), TZ: "UTC"}, "dump.sidecar.csv is an input"},
		{"bad tz", RunConfig{Format: "slurm", Files: []string{in}, Out: filepath.Join(dir, "o.swf"), TZ: "Nowhere/Atall"}, "--tz"},
		{"machine and procs", RunConfig{Format: "slurm", Files: []string{in}, Out: filepath.Join(dir, "o.swf"), TZ: "UTC", Machine: "m.yaml", Options: Options{Procs: 4}}, "leave out --procs"},
		{"format", RunConfig{Format: "lsf", Files: []string{in}, Out: filepath.Join(dir, "o.swf"), TZ: "UTC"}, `unknown format "lsf"`},
		{"two sacct", RunConfig{Format: "slurm", Files: []string{in, in}, Out: filepath.Join(dir, "o.swf"), TZ: "UTC"}, "one FILE (or -) expected, got 2"},
	} {
		var stderr bytes.Buffer
		err := Run(strings.NewReader(""), &stderr, c.cfg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want one containing %q", c.name, err, c.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "o.swf")); err == nil {
			t.Errorf("%s: o.swf written despite the error", c.name)
		}
	}
}
