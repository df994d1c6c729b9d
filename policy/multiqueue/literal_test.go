package multiqueue_test

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// TestOneQueueIsLiteralEASY is TestOneQueueIsEASY against EASY written
// out literally (policytest.LiteralEASY) on testgen.Adversarial workloads
// (many ends and submissions in one second, identical jobs, runtime =
// estimate or 0, estimates of 1 s, whole-machine jobs, queues of
// hundreds), with and without kills.
func TestOneQueueIsLiteralEASY(t *testing.T) {
	n := 25
	if !longtest.Short() {
		n = 300
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6d71))
		jobs, procs := testgen.Adversarial(r, !longtest.Short())
		for _, noKill := range []bool{false, true} {
			s, err := policy.New("multiqueue:bounds=1000000000:procs="+strconv.Itoa(procs)+"/0", procs)
			if err != nil {
				t.Fatal(err)
			}
			if err := policytest.SameStarts(jobs, sim.Options{Procs: procs, NoKill: noKill}, &policytest.LiteralEASY{Caps: []int{procs}}, s); err != nil {
				t.Fatalf("seed %d (%d jobs, %d procs) noKill=%v: %v", seed, len(jobs), procs, noKill, err)
			}
		}
	}
}

// TestOneQueueIsLiteralEASYDriven: the same on policytest.Drive's event
// streams, which also cancel waiting jobs anywhere in the queue.
func TestOneQueueIsLiteralEASYDriven(t *testing.T) {
	n := 8
	if !longtest.Short() {
		n = 200
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6d64))
		procs := []int{1, 4, 16, 64}[r.IntN(4)]
		a, err := policy.New("multiqueue:bounds=1000000000:procs="+strconv.Itoa(procs)+"/0", procs)
		if err != nil {
			t.Fatal(err)
		}
		if err := policytest.Drive(r, a, &policytest.LiteralEASY{Caps: []int{procs}}, procs, 200); err != nil {
			t.Fatalf("seed %d, %d processors: %v", seed, procs, err)
		}
	}
}
