package sim_test

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/engine/enginetest"
	"github.com/backfill-hpc/backfill/sim"
)

// TestRefusesStartBeyondCapacity: a policy that starts two jobs of 3
// processors at once on a machine of 4 makes the simulation fail (the
// service refuses the same policy: service.TestRefusesStartBeyondCapacity).
func TestRefusesStartBeyondCapacity(t *testing.T) {
	_, err := sim.Run(enginetest.Jobs(4), &enginetest.Greedy{}, sim.Options{Procs: 4})
	if err == nil || !strings.Contains(err.Error(), "started job 2 (3 processors) at 0 with only 1 free") {
		t.Fatalf("err = %v", err)
	}
}

// TestRefusesStall: a policy that never starts anything fails at the first
// pass that leaves jobs waiting on the idle machine.
func TestRefusesStall(t *testing.T) {
	_, err := sim.Run(enginetest.Jobs(4), enginetest.Sleepy{}, sim.Options{Procs: 4})
	if err == nil || !strings.Contains(err.Error(), "leaves 2 jobs waiting on an idle machine at 0") {
		t.Fatalf("err = %v", err)
	}
}
