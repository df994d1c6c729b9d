package all_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/sim"
)

// arrival is arrival order disguised as a general, time-dependent order
// (neither policy.KeyOrder nor policy.FCFS), so policies take their
// general-order route; it must give the schedules of their default order.
type arrival struct{ advanced int }

func (*arrival) Name() string                             { return "test-arrival" }
func (*arrival) Less(_ int64, a, b *job.Request) bool     { return a.ID < b.ID }
func (*arrival) Submitted(int64, *job.Request)            {}
func (*arrival) Started(int64, *job.Request)              {}
func (*arrival) Ended(int64, *job.Request)                {}
func (o *arrival) Advance(int64)                          { o.advanced++ }
func (lifo) Name() string                                 { return "test-lifo" }
func (lifo) Less(_ int64, a, b *job.Request) bool         { return a.ID > b.ID }
func newArrival(int, policy.Params) (policy.Order, error) { return &arrival{}, nil }
func newLIFO(int, policy.Params) (policy.Order, error)    { return lifo{}, nil }
func outcomeKey(o job.Outcome) [3]int64                   { return [3]int64{o.Start, o.End, int64(o.ID)} }
func specs(base string) (string, string)                  { return base, base + sep(base) + "order=test-arrival" }
func sep(s string) string                                 { return map[bool]string{true: ":", false: ":"}[true] }

// lifo is newest first, a general order.
type lifo struct{}

func init() {
	policy.RegisterOrder(policy.OrderInfo{Name: "test-arrival", Doc: "arrival order through the general route (tests)", New: newArrival})
	policy.RegisterOrder(policy.OrderInfo{Name: "test-lifo", Doc: "newest first (tests)", New: newLIFO})
}

// TestGeneralOrderArrivalIsDefault: every queue-based policy run with
// arrival order given as a general order schedules exactly as with its
// default order, on random workloads (ties, overruns, full-machine jobs).
func TestGeneralOrderArrivalIsDefault(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 16))
	n := 60
	if longtest.Short() {
		n = 20
	}
	for i := 0; i < n; i++ {
		s := testgen.Random(r)
		jobs := testgen.Jobs(r, s)
		for _, base := range []string{"easy", "easy:depth=3", "easy:depth=all", "lookahead", "lookahead:reserve=false", "multiqueue:bounds=20/100/1000"} {
			if base == "multiqueue:bounds=20/100/1000" && s.Procs < 4 {
				continue
			}
			a, b := specs(base)
			ra := run(t, a, s.Procs, jobs)
			rb := run(t, b, s.Procs, jobs)
			for k := range ra.Outcomes {
				if outcomeKey(ra.Outcomes[k]) != outcomeKey(rb.Outcomes[k]) {
					t.Fatalf("workload %d (%+v): %s and %s differ at job %d: %v vs %v", i, s, a, b, k, outcomeKey(ra.Outcomes[k]), outcomeKey(rb.Outcomes[k]))
				}
			}
		}
	}
}

func run(t *testing.T, spec string, procs int, jobs []job.Job) *sim.Result {
	t.Helper()
	p, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(jobs, p, sim.Options{Procs: procs})
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return res
}

// TestGeneralOrderLIFO, worked by hand: one processor; A (t=0), B (t=1),
// C (t=2), each 1 processor, estimate = runtime = 10. A starts at 0. In
// arrival order B starts at 10 and C at 20; newest first, C starts at 10
// (it is the first in the order when A ends) and B at 20.
func TestGeneralOrderLIFO(t *testing.T) {
	jobs := []job.Job{}
	for i := 0; i < 3; i++ {
		jobs = append(jobs, job.Job{Request: job.Request{ID: i, SWFID: int64(i + 1), Submit: int64(i), Procs: 1, Estimate: 10, User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: 10})
	}
	for _, spec := range []string{"easy:order=test-lifo", "easy:depth=2:order=test-lifo", "lookahead:order=test-lifo", "lookahead:reserve=false:order=test-lifo"} {
		res := run(t, spec, 1, jobs)
		got := fmt.Sprint(res.Outcomes[0].Start, res.Outcomes[1].Start, res.Outcomes[2].Start)
		if got != "0 20 10" {
			t.Errorf("%s: starts A B C = %s, want 0 20 10", spec, got)
		}
		if res.Policy != spec {
			t.Errorf("policy name %q, want %q", res.Policy, spec)
		}
	}
	base := run(t, "easy", 1, jobs)
	if got := fmt.Sprint(base.Outcomes[0].Start, base.Outcomes[1].Start, base.Outcomes[2].Start); got != "0 10 20" {
		t.Errorf("easy: starts %s, want 0 10 20", got)
	}
}

// TestOrderParamErrors: unknown orders and parameters of another order are
// errors naming what was expected.
func TestOrderParamErrors(t *testing.T) {
	for _, spec := range []string{"easy:order=nosuch", "lookahead:order=bogus", "multiqueue:order=nosuch"} {
		if _, err := policy.New(spec, 16); err == nil {
			t.Errorf("%s: no error", spec)
		}
	}
}

// TestConservativeOrder, worked by hand: one processor; A (t=0, estimate
// 100, runtime 10), B (t=1) and C (t=2), estimate = runtime = 10.
// Conservative reserves B at 100 and C at 110; A ends at 10 and the
// compression re-places them: in reservation order B at 10, C at 20;
// with newest first, C at 10 and B at 20 (and no guarantee is reported).
func TestConservativeOrder(t *testing.T) {
	jobs := []job.Job{
		{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: 1, Estimate: 100, User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: 10},
		{Request: job.Request{ID: 1, SWFID: 2, Submit: 1, Procs: 1, Estimate: 10, User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: 10},
		{Request: job.Request{ID: 2, SWFID: 3, Submit: 2, Procs: 1, Estimate: 10, User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: 10},
	}
	for spec, want := range map[string]string{"conservative": "0 10 20", "conservative:order=test-lifo": "0 20 10"} {
		res := run(t, spec, 1, jobs)
		if got := fmt.Sprint(res.Outcomes[0].Start, res.Outcomes[1].Start, res.Outcomes[2].Start); got != want {
			t.Errorf("%s: starts %s, want %s", spec, got, want)
		}
		if res.Policy != spec {
			t.Errorf("name %q, want %q", res.Policy, spec)
		}
	}
	if res := run(t, "conservative:order=test-lifo", 1, jobs); res.Outcomes[1].Bound != -1 {
		t.Errorf("a priority order reports no guarantee, got %d", res.Outcomes[1].Bound)
	}
}
