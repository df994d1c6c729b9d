// Package longtest tells tests whether to run their long variants.
//
// `go test ./...` runs the quick variants, so that the whole suite takes
// about a minute; the long property runs, real-trace regressions and
// golden replays run when the environment has BACKFILL_LONG=1, which CI
// (.ci/run) sets. -short always means the quick variants.
package longtest

import (
	"os"
	"testing"
)

// Env is the environment variable that turns the long variants on.
const Env = "BACKFILL_LONG"

// Short reports whether tests should run their quick variants: under
// -short, or when BACKFILL_LONG is not set to 1.
func Short() bool {
	return testing.Short() || os.Getenv(Env) != "1"
}

// Skip skips t unless the long variants are on.
func Skip(t testing.TB, why string) {
	t.Helper()
	if Short() {
		t.Skipf("%s (long test: set %s=1)", why, Env)
	}
}
