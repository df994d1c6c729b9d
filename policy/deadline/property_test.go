package deadline_test

import (
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/deadline"
	"github.com/backfill-hpc/backfill/sim"
)

var specs = []string{"qops", "qops:h=llf:k=0", "qops:k=20:nd=reject", "msb", "msb:h=edf:au=0.5:af=0",
	"mrt", "mrt:h=llf:backtrack=0", "mrt:backtrack=50:nd=reject"}

// randomDeadlineWorkload is a testgen workload where a random share of the
// jobs carries a deadline with a random slack, sometimes zero (the job
// must start at once).
func randomDeadlineWorkload(seed uint64) (testgen.Spec, []job.Job) {
	r := rand.New(rand.NewPCG(seed, 77))
	spec := testgen.Random(r)
	jobs := testgen.Jobs(r, spec)
	frac := []float64{1, 1, 0.8, 0.2}[r.IntN(4)]
	testgen.Deadlines(r, jobs, frac, []int{0, 50, 300, 3000}[r.IntN(4)])
	return spec, jobs
}

// TestNoAdmittedJobMisses: on random workloads with deadlines, every
// schedule of every variant passes the audit with the deadline check: in
// kill mode no admitted job misses its deadline or starts after its
// guarantee, whether estimates are exact or not; in no-kill mode the only
// misses are those the overruns explain. Rejected jobs never run, jobs
// without a deadline are never rejected under nd=admit, and the engine's
// count matches the policy's.
func TestNoAdmittedJobMisses(t *testing.T) {
	n := 150
	if longtest.Short() {
		n = 30
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		spec, jobs := randomDeadlineWorkload(seed)
		for _, noKill := range []bool{false, true} {
			for _, ps := range specs {
				s, err := policy.New(ps, spec.Procs)
				if err != nil {
					t.Fatal(err)
				}
				res, err := sim.Run(jobs, s, sim.Options{Procs: spec.Procs, NoKill: noKill})
				if err != nil {
					t.Fatalf("seed %d %s noKill=%v: %v", seed, ps, noKill, err)
				}
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: spec.Procs, Kill: !noKill, KnownRuntime: true,
					Expect: len(jobs), Deadlines: true})
				if !rep.OK() {
					t.Fatalf("seed %d %s noKill=%v (spec %+v): %s", seed, ps, noKill, spec, rep.String())
				}
				if !noKill && rep.OverrunMisses != 0 {
					t.Fatalf("seed %d %s: %d misses in kill mode", seed, ps, rep.OverrunMisses)
				}
				rejected := 0
				for _, o := range res.Outcomes {
					if o.Rejected {
						rejected++
						if o.Deadline == 0 && ps != "qops:k=20:nd=reject" && ps != "mrt:backtrack=50:nd=reject" {
							t.Fatalf("seed %d %s: job %d without a deadline rejected", seed, ps, o.ID)
						}
					} else if !noKill && (o.Bound < 0 || (o.Deadline > 0 && o.Bound != o.Deadline-o.Estimate)) {
						t.Fatalf("seed %d %s: job %d has bound %d (deadline %d, estimate %d)", seed, ps, o.ID, o.Bound, o.Deadline, o.Estimate)
					}
				}
				if rejected != res.Rejected || rejected != rep.Rejected {
					t.Fatalf("seed %d %s: rejected %d, engine %d, audit %d", seed, ps, rejected, res.Rejected, rep.Rejected)
				}
			}
		}
	}
}

// TestDecisionsAreFinal: an admission decision depends only on the past
// and never changes afterwards. Each workload is simulated in full and
// cut after a random job; the decisions on the jobs before the cut, and
// their guarantees, must be the same in both runs (the cut run then
// simply has no future).
func TestDecisionsAreFinal(t *testing.T) {
	n := 60
	if longtest.Short() {
		n = 15
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		spec, jobs := randomDeadlineWorkload(seed + 1000)
		if len(jobs) < 2 {
			continue
		}
		r := rand.New(rand.NewPCG(seed, 5))
		cut := 1 + r.IntN(len(jobs)-1)
		for _, ps := range specs {
			run := func(js []job.Job) []job.Outcome {
				s, _ := policy.New(ps, spec.Procs)
				res, err := sim.Run(js, s, sim.Options{Procs: spec.Procs})
				if err != nil {
					t.Fatal(err)
				}
				return res.Outcomes
			}
			full, part := run(jobs), run(jobs[:cut])
			for i := range part {
				if full[i].Rejected != part[i].Rejected || full[i].Reason != part[i].Reason || full[i].Bound != part[i].Bound {
					t.Fatalf("seed %d %s: job %d decided %v/%d with the future, %v/%d without", seed, ps, i,
						!full[i].Rejected, full[i].Bound, !part[i].Rejected, part[i].Bound)
				}
			}
		}
	}
}

func TestDeterministic(t *testing.T) {
	_, jobs := randomDeadlineWorkload(4242)
	for _, ps := range []string{"qops", "msb", "mrt"} {
		var prev []job.Outcome
		for k := 0; k < 3; k++ {
			s, _ := policy.New(ps, 64)
			res, err := sim.Run(jobs, s, sim.Options{Procs: 64})
			if err != nil {
				t.Fatal(err)
			}
			if prev != nil && !reflect.DeepEqual(prev, res.Outcomes) {
				t.Fatalf("%s: two runs differ", ps)
			}
			prev = res.Outcomes
		}
	}
}
