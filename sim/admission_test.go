package sim_test

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// gate is a test Admitter: it rejects every job whose ID is a multiple of
// three and hands the others to an inner policy; a rejected job is
// forgotten at once, as policy.Admitter requires. With leak set it starts
// rejected jobs anyway (a policy bug the engine must catch).
type gate struct {
	policy.Scheduler
	last     *job.Request
	ok       bool
	leak     bool
	rejected []*job.Request
	asked    int
}

func (g *gate) Insert(now int64, j *job.Request) {
	if g.last != nil {
		panic("Insert before Admitted of the previous job")
	}
	g.last, g.ok = j, j.ID%3 != 0
	if g.ok {
		g.Scheduler.Insert(now, j)
	} else {
		g.rejected = append(g.rejected, j)
	}
}

func (g *gate) Admitted(j *job.Request) (bool, string) {
	if j != g.last {
		panic("Admitted for another job than the one just inserted")
	}
	g.asked++
	g.last = nil
	if g.ok {
		return true, ""
	}
	return false, "multiple of three"
}

func (g *gate) Tick(now int64, start func(*job.Request)) int64 {
	if g.leak && len(g.rejected) > 0 {
		start(g.rejected[0])
	}
	return g.Scheduler.Tick(now, start)
}

func TestAdmitterRejections(t *testing.T) {
	for seed := uint64(1); seed <= 40; seed++ {
		r := rand.New(rand.NewPCG(seed, 8))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		var prev []job.Outcome
		for k := 0; k < 2; k++ {
			inner, _ := policy.New("conservative", spec.Procs)
			g := &gate{Scheduler: inner}
			res, err := sim.Run(jobs, g, sim.Options{Procs: spec.Procs})
			if err != nil {
				t.Fatalf("seed %d: %v", seed, err)
			}
			want := (len(jobs) + 2) / 3
			if res.Rejected != want || g.asked != len(jobs) {
				t.Fatalf("seed %d: Rejected = %d, want %d; Admitted asked %d times for %d jobs", seed, res.Rejected, want, g.asked, len(jobs))
			}
			for _, o := range res.Outcomes {
				rej := o.ID%3 == 0
				if o.Rejected != rej || (rej && (o.Start != -1 || o.End != -1 || o.Reason != "multiple of three" || o.Bound != -1)) ||
					(!rej && o.Start < o.Submit) {
					t.Fatalf("seed %d: outcome %+v", seed, o)
				}
			}
			rep := audit.Audit(res.Outcomes, audit.Options{Procs: spec.Procs, Kill: true, KnownRuntime: true, Expect: len(jobs), Deadlines: true})
			if !rep.OK() || rep.Rejected != want {
				t.Fatalf("seed %d: %s (rejected %d)", seed, rep.String(), rep.Rejected)
			}
			if prev != nil && !reflect.DeepEqual(prev, res.Outcomes) {
				t.Fatalf("seed %d: two runs differ", seed)
			}
			prev = res.Outcomes
		}
	}
}

func TestAdmitterStartingARejectedJob(t *testing.T) {
	jobs := []job.Job{
		{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: 1, Estimate: 10}, Runtime: 10},
		{Request: job.Request{ID: 1, SWFID: 2, Submit: 5, Procs: 1, Estimate: 10}, Runtime: 10},
	}
	inner, _ := policy.New("fcfs", 2)
	_, err := sim.Run(jobs, &gate{Scheduler: inner, leak: true}, sim.Options{Procs: 2})
	if err == nil || !strings.Contains(err.Error(), "not waiting") {
		t.Fatalf("starting a rejected job: err = %v", err)
	}
}
