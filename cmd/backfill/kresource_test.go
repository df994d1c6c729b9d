package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestReproduceKresourceSmall runs the synthetic part on a small setting
// (one K, one distribution, one queue target, two seeds) and the real part
// on a tiny trace with memory; the tables, the CI and every statement are
// printed.
func TestReproduceKresourceSmall(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("; MaxProcs: 8\n")
	for i := 1; i <= 60; i++ {
		procs, mem := 1+i%8, 100*(1+i%5)
		fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 %d %d %d 1 1 1 -1 1 1 -1 -1\n", i, 10*i, 50+i%7*40, procs, procs, 400, mem)
	}
	if err := os.WriteFile(filepath.Join(dir, "MEM-test.swf"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := run(t, "reproduce", "kresource", "--jobs", "400", "--seeds", "2", "--k", "2", "--dist", "exponential",
		"--queue", "4", "--tol", "0.2", "--traces", dir, "--mem-scale", "1,0.5", "--real", "MEM-test.swf,NOPE.swf", "--workers", "2")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"Figure 2: mean response time", "Figure 3: weighted mean response time", "mean ± 95 % CI over 2 seeds",
		"exponential", "bb-easy:fullness=off", "rate search: 2 searches",
		"paper: BB outperforms", "ours: BB is best", "BB's gain", "uniform) vs",
		"MEM-test.swf, memory × 1: 60 jobs (0 skipped", "MEM-test.swf, memory × 0.5: 47 jobs (13 skipped", "mem peak", "FF-EASY, processors only", "NOPE.swf: not found",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := run(t, "reproduce", "kresource", "--no-real", "--dist", "normal"); err == nil {
		t.Error("unknown distribution accepted")
	}
	if _, err := run(t, "reproduce", "kresource", "--no-real", "--variants", "easy"); err == nil {
		t.Error("a processor-only variant accepted")
	}
}

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
