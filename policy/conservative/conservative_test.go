package conservative

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/sim"
)

// TestFastCompressionEqualsLiteral: the filtered compression gives exactly
// the schedule of the paper's literal one (remove every reservation and
// re-insert in reservation order), job by job, on random workloads.
func TestFastCompressionEqualsLiteral(t *testing.T) {
	n := 500
	if longtest.Short() {
		n = 100
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		spec := testgen.Random(r)
		spec.Jobs *= 2
		jobs := testgen.Jobs(r, spec)
		fast := New(spec.Procs, Config{})
		lit := New(spec.Procs, Config{})
		lit.book.Literal = true
		a, err := sim.Run(jobs, fast, sim.Options{Procs: spec.Procs})
		if err != nil {
			t.Fatal(err)
		}
		b, err := sim.Run(jobs, lit, sim.Options{Procs: spec.Procs})
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			if a.Outcomes[i].Start != b.Outcomes[i].Start {
				t.Fatalf("seed %d: job %d starts at %d (fast) vs %d (literal)", seed, i, a.Outcomes[i].Start, b.Outcomes[i].Start)
			}
		}
	}
}
