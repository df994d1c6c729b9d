package main

import (
	"strings"
	"testing"
)

// dropTiming removes the line with the elapsed time.
func dropTiming(s string) string {
	var keep []string
	for _, l := range strings.Split(s, "\n") {
		if !strings.HasPrefix(l, "(done in") {
			keep = append(keep, l)
		}
	}
	return strings.Join(keep, "\n")
}

func TestReproduceMQLookSeed(t *testing.T) {
	out, err := run(t, "reproduce", "mqlook", "--part", "seed", "--batches", "4")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"seed-like batches (P=15, 4 × 30 jobs)", "EASY (basic aggressive)", "multiqueue:order=sjf",
		"lookahead:reserve=false:order=sjf:depth=all", "the seed paper's findings beside ours", "holds on", "no workload applies"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	again, err := run(t, "reproduce", "mqlook", "--part", "seed", "--batches", "4", "--workers", "1")
	if err != nil {
		t.Fatal(err)
	}
	if dropTiming(out) != dropTiming(again) {
		t.Fatalf("output depends on the workers:\n%s\n---\n%s", out, again)
	}
}

func TestReproduceMQLookRealAndDepth(t *testing.T) {
	if testing.Short() {
		t.Skip("simulates KTH-SP2 a dozen times")
	}
	out, err := run(t, "reproduce", "mqlook", "--part", "real,depth", "--traces", t.TempDir(), "--real", "KTH-SP2-1996-2.1-cln.swf.gz,NOPE.swf")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"using the embedded copy", "missing: NOPE.swf", "== KTH-SP2-1996-2.1-cln ==", "KTH-SP2 scaled to P=15",
		"lookahead depth", "depth all", "holds on"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	if _, err := run(t, "reproduce", "mqlook", "--part", "bogus"); err == nil {
		t.Error("an unknown part is accepted")
	}
}
