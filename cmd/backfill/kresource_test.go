package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSimulateMem: --mem runs the K-resource policies by default, prints
// the memory rule, and refuses a processor-only policy.
func TestSimulateMem(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.swf")
	in := "; MaxProcs: 4\n" +
		"1 0 -1 100 2 -1 -1 2 100 300 1 1 1 -1 1 1 -1 -1\n" +
		"2 0 -1 100 2 -1 -1 2 100 300 1 1 1 -1 1 1 -1 -1\n" +
		"3 0 -1 100 1 -1 -1 1 100 -1 1 1 1 -1 1 1 -1 -1\n"
	if err := os.WriteFile(path, []byte(in), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "simulate", "--trace", path, "--mem", "1000")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"memory (K = 2)", "machine 1000 KB (--mem)", "ff-easy", "bb-easy", "ff-cons"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// 600 + 600 KB > 1000: the two first jobs cannot run together, so the
	// makespan is 200 s, not 100
	if !strings.Contains(out, " 200.0 ") {
		t.Errorf("memory not enforced:\n%s", out)
	}
	if _, err := run(t, "simulate", "--trace", path, "--mem", "1000", "--policy", "easy"); err == nil || !strings.Contains(err.Error(), "processors only") {
		t.Errorf("easy with memory: %v", err)
	}
	if _, err := run(t, "simulate", "--trace", path, "--mem", "lots"); err == nil {
		t.Error("bad --mem accepted")
	}
}
