package policytest_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/engine/enginetest"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/policy/policytest"
	_ "github.com/backfill-hpc/backfill/policy/policytest/trivial" // a new policy: its package, nothing else
)

// TestConformance runs the suite on every registered policy.
func TestConformance(t *testing.T) { policytest.Run(t) }

// TestNewPolicyIsCovered: the trivial policy, whose package only registers
// itself, is among the policies the suite checks (and passes it, in
// TestConformance), as is every policy of policy/all.
func TestNewPolicyIsCovered(t *testing.T) {
	specs := policytest.Specs()
	for _, want := range []string{"test-trivial", "fcfs", "easy", "conservative", "slack", "qops", "ff-cons", "lookahead", "multiqueue"} {
		if !slices.Contains(specs, want) {
			t.Errorf("the suite does not check %s (it checks %v)", want, specs)
		}
	}
}

// TestCatchesBrokenPolicies: the suite fails a policy that starts jobs
// beyond capacity, and one that leaves jobs waiting on an idle machine.
func TestCatchesBrokenPolicies(t *testing.T) {
	greedy := func([]int) (policy.Scheduler, error) { return &enginetest.Greedy{}, nil }
	if err := policytest.Properties(greedy, 5); err == nil || !strings.Contains(err.Error(), "free") {
		t.Errorf("greedy: %v", err)
	}
	sleepy := func([]int) (policy.Scheduler, error) { return enginetest.Sleepy{}, nil }
	if err := policytest.Properties(sleepy, 5); err == nil || !strings.Contains(err.Error(), "idle machine") {
		t.Errorf("sleepy: %v", err)
	}
}

// TestDefaultsCatchesDrift: a policy whose documented default is not its
// typed default fails DefaultsOf: easy's reservation depth documented as
// 2 while the policy's default is 1 (the documented value builds
// easy:depth=2).
func TestDefaultsCatchesDrift(t *testing.T) {
	var easy policy.Info
	for _, i := range policy.List() {
		if i.Name == "easy" {
			easy = i
		}
	}
	drift := policy.Info{Name: "drift", New: easy.New, Params: []policy.Param{{Name: "depth", Default: "2"}}}
	if err := policytest.DefaultsOf(drift, 2); err == nil || !strings.Contains(err.Error(), "documented default depth=2 builds") {
		t.Errorf("drifted default: %v", err)
	}
	if err := policytest.DefaultsOf(easy, 2); err != nil {
		t.Errorf("easy: %v", err)
	}
}
