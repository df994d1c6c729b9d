package main

import (
	"strings"
	"testing"
)

// The reproduce command's wiring: an unknown reproduction and a traces
// directory that holds nothing fail with a clear message; a small run
// prints the verdicts.
func TestReproduceCLI(t *testing.T) {
	if _, err := run(t, "reproduce", "sluck"); err == nil || !strings.Contains(err.Error(), `unknown reproduction "sluck"`) {
		t.Errorf("reproduce sluck: %v", err)
	}
	empty := t.TempDir()
	for _, args := range [][]string{
		{"reproduce", "qops", "--traces", empty},
		{"reproduce", "kresource", "--no-synthetic", "--traces", empty},
	} {
		if _, err := run(t, args...); err == nil || !strings.Contains(err.Error(), "nothing to run") || !strings.Contains(err.Error(), "--traces") {
			t.Errorf("%v: %v", args, err)
		}
	}
	out, err := run(t, "reproduce", "mqlook", "--part", "seed", "--batches", "2", "--traces", empty)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"== Verdicts ==", "mql.easy-least", "verdict: "} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	for _, bad := range [][]string{{"reproduce", "qops", "--part", "nope"}, {"reproduce", "kresource", "--no-real", "--dist", "normal"},
		{"reproduce", "kresource", "--no-real", "--variants", "easy"}, {"reproduce", "estimates", "--part", "nope"}, {"reproduce", "mqlook", "--part", "bogus"}} {
		if _, err := run(t, bad...); err == nil {
			t.Errorf("%v accepted", bad)
		}
	}
}
