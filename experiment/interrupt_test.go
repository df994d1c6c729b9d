package experiment

import (
	"bytes"
	"os"
	"syscall"
	"testing"
)

// TestExecuteUntilSignal sends the process a SIGINT when the second run
// ends: the sweep stops starting runs, keeps those finished, and the
// process lives on.
func TestExecuteUntilSignal(t *testing.T) {
	s, p := mustPlan(t, smallSweep)
	done := 0
	var stderr bytes.Buffer
	rep, err := ExecuteUntilSignal(&stderr, s, p, Options{Out: t.TempDir(), Workers: 1, Version: "test", OnEvent: func(e Event) {
		if e.Kind == RunDone {
			done++
			if done == 2 {
				syscall.Kill(os.Getpid(), syscall.SIGINT)
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.Ran < 2 || rep.Ran >= len(p.Runs) {
		t.Fatalf("report %+v", rep)
	}
}
