package sim_test

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// greedy starts every waiting job at once, whatever the machine has free.
type greedy struct{ q []*job.Request }

func (g *greedy) Name() string                   { return "greedy" }
func (g *greedy) Insert(_ int64, j *job.Request) { g.q = append(g.q, j) }
func (g *greedy) Remove(_ int64, _ *job.Request) {}
func (g *greedy) Tick(_ int64, start func(*job.Request)) int64 {
	for _, j := range g.q {
		start(j)
	}
	g.q = g.q[:0]
	return policy.NoWake
}

func resJobs(mem ...int) []job.Job {
	jobs := make([]job.Job, len(mem))
	for i, m := range mem {
		jobs[i] = job.Job{Request: job.Request{ID: i, SWFID: int64(i + 1), Procs: 1, Estimate: 10}, Runtime: 10}
		if m >= 0 {
			jobs[i].Res = []int{m}
		}
	}
	return jobs
}

// TestEngineChecksResources: a start that puts a resource beyond the
// processors over capacity is an error naming the resource; starts within
// capacity pass; bad requirements are rejected before the run.
func TestEngineChecksResources(t *testing.T) {
	if _, err := sim.Run(resJobs(6, 4, -1), &greedy{}, sim.Options{Procs: 4, Res: []int{10}}); err != nil {
		t.Fatalf("within capacity: %v", err)
	}
	_, err := sim.Run(resJobs(6, 5), &greedy{}, sim.Options{Procs: 4, Res: []int{10}})
	if err == nil || !strings.Contains(err.Error(), "units of resource 1") {
		t.Fatalf("over capacity: %v", err)
	}
	for _, c := range []struct {
		jobs []job.Job
		res  []int
		want string
	}{
		{resJobs(11), []int{10}, "needs 11 units of resource 1"},
		{resJobs(1), nil, "the machine has 0"},
		{resJobs(-1), []int{0}, "capacity 0"},
	} {
		_, err := sim.Run(c.jobs, &greedy{}, sim.Options{Procs: 4, Res: c.res})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("want error %q, got %v", c.want, err)
		}
	}
	res, _ := sim.Run(resJobs(3), &greedy{}, sim.Options{Procs: 4, Res: []int{10}})
	if len(res.Res) != 1 || res.Res[0] != 10 {
		t.Errorf("Result.Res = %v", res.Res)
	}
}
