package slack

import (
	"math/rand/v2"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/job"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/policy/conservative"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// TestSF0VersusConservative: with SF = 0 no job has slack, so insert(j)
// can delay nobody and takes conservative backfilling's slot. With
// accurate estimates (no job ends early, so remove(j) never reprices) the
// two schedules are identical job by job. With early ends they differ, as
// the paper's algorithm says they should: remove(j) picks the most
// profitable compression (TestRemoveSeeksProfit), and a job moved earlier
// regains slack that later insertions may spend. The counts are logged.
func TestSF0VersusConservative(t *testing.T) {
	for _, exact := range []bool{false, true} {
		diffJobs, diffRuns, runs := 0, 0, 0
		for seed := uint64(1); seed <= 300; seed++ {
			r := rand.New(rand.NewPCG(seed, 23))
			spec := testgen.Random(r)
			jobs := testgen.Jobs(r, spec)
			if exact {
				for i := range jobs {
					jobs[i].Estimate = max(1, jobs[i].Runtime)
					jobs[i].Runtime = jobs[i].Estimate
				}
			}
			prm := DefaultParams()
			prm.SF = 0
			a, err := sim.Run(jobs, New(spec.Procs, prm), sim.Options{Procs: spec.Procs})
			if err != nil {
				t.Fatal(err)
			}
			b, err := sim.Run(jobs, conservative.New(spec.Procs, conservative.Config{}), sim.Options{Procs: spec.Procs})
			if err != nil {
				t.Fatal(err)
			}
			runs++
			d := 0
			for i := range jobs {
				if a.Outcomes[i].Start != b.Outcomes[i].Start {
					d++
				}
			}
			if d > 0 {
				diffRuns++
				diffJobs += d
				if diffRuns <= 3 {
					t.Logf("seed %d: %d of %d jobs differ", seed, d, len(jobs))
				}
			}
		}
		t.Logf("exact=%v: %d of %d runs differ, %d jobs", exact, diffRuns, runs, diffJobs)
		if exact && diffRuns > 0 {
			t.Errorf("with accurate estimates (no early ends) SF=0 must equal conservative; %d runs differ", diffRuns)
		}
	}
}

// TestPruningKeepsSchedule: the lower-bound pruning of the search changes
// no decision, for every heuristic; on every other seed the unpruned run
// also uses the general compression (delayed jobs held), so that AST's
// compression without the delayed holds is checked against it.
func TestPruningKeepsSchedule(t *testing.T) {
	seeds, exhaustive := uint64(120), uint64(25)
	if longtest.Short() {
		seeds, exhaustive = 12, 4
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 29))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		for h := AST; h <= All; h++ {
			if h == All && seed > exhaustive {
				continue // exhaustive: fewer, it is slow
			}
			prm := DefaultParams()
			prm.AWT = float64(1 + r.IntN(300))
			prm.Heuristic = h
			a := New(spec.Procs, prm)
			b := New(spec.Procs, prm)
			b.noPrune = true
			b.noSettle = true
			b.noLazy = seed%2 == 0 // the general compression on every other seed
			ra, err := sim.Run(jobs, a, sim.Options{Procs: spec.Procs})
			if err != nil {
				t.Fatal(err)
			}
			rb, err := sim.Run(jobs, b, sim.Options{Procs: spec.Procs})
			if err != nil {
				t.Fatal(err)
			}
			for i := range jobs {
				if ra.Outcomes[i].Start != rb.Outcomes[i].Start {
					t.Fatalf("seed %d %v: job %d starts at %d with pruning, %d without", seed, h, i, ra.Outcomes[i].Start, rb.Outcomes[i].Start)
				}
			}
		}
	}
}

// TestRemoveSeeksProfit: after an early end, remove(j) prices every slot
// with the zero dummy and keeps the most profitable compression, which
// need not be conservative's in-order one. On 10 processors J0 (the whole
// machine, estimate 100) ends at 10; J1..J4 (1 processor, 60 s) wait for
// 100, and J5 (the whole machine, 20 s) waits for 160. Conservative's
// in-order compression moves J1..J4 to 10 and J5 to 70 (profit 4·90 +
// 10·90 = 1260 processor-seconds). Compressing from J5's slot instead
// moves J5 to 10 (profit 10·150 = 1500) and leaves J1..J4 at 100: the
// cheaper schedule, which slack-based backfilling picks even with SF = 0.
func TestRemoveSeeksProfit(t *testing.T) {
	var jobs []job.Job
	add := func(submit int64, n int, est, run int64) {
		id := len(jobs)
		jobs = append(jobs, job.Job{Request: job.Request{ID: id, SWFID: int64(id), Submit: submit, Procs: n, Estimate: est}, Runtime: run})
	}
	add(0, 10, 100, 10)
	for i := 0; i < 4; i++ {
		add(1, 1, 60, 60)
	}
	add(2, 10, 20, 20)
	prm := DefaultParams()
	prm.SF = 0
	a, err := sim.Run(jobs, New(10, prm), sim.Options{Procs: 10})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.Run(jobs, conservative.New(10, conservative.Config{}), sim.Options{Procs: 10})
	if err != nil {
		t.Fatal(err)
	}
	if a.Outcomes[5].Start != 10 || a.Outcomes[1].Start != 100 {
		t.Errorf("slack SF=0: J5 at %d, J1 at %d; want 10 and 100", a.Outcomes[5].Start, a.Outcomes[1].Start)
	}
	if b.Outcomes[1].Start != 10 || b.Outcomes[5].Start != 70 {
		t.Errorf("conservative: J1 at %d, J5 at %d; want 10 and 70", b.Outcomes[1].Start, b.Outcomes[5].Start)
	}
}

// checked wraps the scheduler and verifies after every event that every
// waiting job has non-negative slack and is scheduled no later than
// te0 + s0, and that the waiting list is sorted by slot.
type checked struct {
	*Policy
	t *testing.T
}

func (c checked) check(when string) {
	for i, x := range c.book.Wait() {
		if slackOf(x) < 0 {
			c.t.Fatalf("%s: job %d has slack %.1f", when, x.J.ID, slackOf(x))
		}
		if x.X.bound >= 0 && x.Start > x.X.bound {
			c.t.Fatalf("%s: job %d scheduled at %d after its bound %d", when, x.J.ID, x.Start, x.X.bound)
		}
		if i > 0 && cmpWait(c.book.Wait()[i-1], x) >= 0 {
			c.t.Fatalf("%s: waiting list out of order", when)
		}
	}
}

func (c checked) Insert(now int64, j *job.Request) { c.Policy.Insert(now, j); c.check("insert") }
func (c checked) Remove(now int64, j *job.Request) { c.Policy.Remove(now, j); c.check("remove") }
func (c checked) Tick(now int64, f func(*job.Request)) int64 {
	w := c.Policy.Tick(now, f)
	c.check("tick")
	return w
}

func TestSlackInvariants(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 31))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		for i := range jobs {
			if i%5 == 0 { // every fifth job has high priority, as §5.3
				jobs[i].UP, jobs[i].PP = 1, 1
			}
		}
		prm := DefaultParams()
		prm.AWT = float64(1 + r.IntN(500))
		prm.SF = float64(r.IntN(10))
		prm.Heuristic = Heuristic(r.IntN(5))
		if _, err := sim.Run(jobs, checked{New(spec.Procs, prm), t}, sim.Options{Procs: spec.Procs}); err != nil {
			t.Fatal(err)
		}
	}
}

// TestTickStrategyExtends (§4.7): a job that overruns its estimate while
// nobody waits is extended by 10 % of its estimate (killing it would cost
// n·t) and completes; the audit accepts the extended run.
func TestTickStrategyExtends(t *testing.T) {
	jobs := []job.Job{{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: 4, Estimate: 100}, Runtime: 105}}
	res, err := sim.Run(jobs, New(8, DefaultParams()), sim.Options{Procs: 8, Extend: true})
	if err != nil {
		t.Fatal(err)
	}
	o := res.Outcomes[0]
	if o.Killed || o.End != 105 || o.Extension != 10 || res.Saved != 1 {
		t.Fatalf("outcome %+v saved %d, want completed at 105 with a 10 s extension", o, res.Saved)
	}
	// without Extend it is killed at its estimate
	res, _ = sim.Run(jobs, New(8, DefaultParams()), sim.Options{Procs: 8})
	if !res.Outcomes[0].Killed || res.Outcomes[0].End != 100 {
		t.Fatalf("kill mode: %+v", res.Outcomes[0])
	}
}

// TestTickStrategySimultaneousOverruns: two jobs reach their estimates at
// the same instant while a waiting job is reserved on the processors they
// free. Each gets its own decision: extending the first must not lengthen
// the second's hold (an earlier version did, over capacity, and panicked).
// The schedule passes the audit.
func TestTickStrategySimultaneousOverruns(t *testing.T) {
	jobs := []job.Job{
		{Request: job.Request{ID: 0, SWFID: 1, Submit: 0, Procs: 2, Estimate: 10}, Runtime: 11},
		{Request: job.Request{ID: 1, SWFID: 2, Submit: 0, Procs: 2, Estimate: 10}, Runtime: 11},
		{Request: job.Request{ID: 2, SWFID: 3, Submit: 1, Procs: 2, Estimate: 100}, Runtime: 100},
	}
	res, err := sim.Run(jobs, New(4, DefaultParams()), sim.Options{Procs: 4, Extend: true})
	if err != nil {
		t.Fatal(err)
	}
	rep := audit.Audit(res.Outcomes, audit.Options{Procs: 4, Kill: true, KnownRuntime: true, Expect: len(jobs)})
	if !rep.OK() {
		t.Fatal(rep.String())
	}
	if res.Extensions < 1 {
		t.Fatalf("no extension granted: %+v", res.Outcomes)
	}
	for _, o := range res.Outcomes[:2] {
		if !o.Killed && o.End != 11 {
			t.Errorf("job %d: %+v", o.SWFID, o)
		}
	}
}

// TestSF0VersusConservativeRealTrace: the SF = 0 identity on a real trace,
// the embedded KTH SP2 log with exact estimates (no early ends, so
// remove(j) never reprices; see TestSF0VersusConservative for why user
// estimates differ), job by job over all 28,475 jobs.
func TestSF0VersusConservativeRealTrace(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{Estimate: "exact"})
	if err != nil {
		t.Fatal(err)
	}
	prm := DefaultParams()
	prm.SF = 0
	a, err := sim.Run(tr.Jobs, New(tr.Procs, prm), sim.Options{Procs: tr.Procs})
	if err != nil {
		t.Fatal(err)
	}
	b, err := sim.Run(tr.Jobs, conservative.New(tr.Procs, conservative.Config{}), sim.Options{Procs: tr.Procs})
	if err != nil {
		t.Fatal(err)
	}
	d := 0
	for i := range tr.Jobs {
		if a.Outcomes[i].Start != b.Outcomes[i].Start {
			if d < 3 {
				t.Errorf("job %d: slack SF=0 starts at %d, conservative at %d", tr.Jobs[i].SWFID, a.Outcomes[i].Start, b.Outcomes[i].Start)
			}
			d++
		}
	}
	if d > 0 {
		t.Errorf("%d of %d jobs differ", d, len(tr.Jobs))
	}
}

// TestSettleKeepsSchedule: the cuts that settledFrom allows the AST
// compression (the early end of a slot, the jobs left without a query, the
// queries' later start) and remove's skipped slots change no decision, on
// long queues (a few hundred jobs arriving faster than they run, early
// ends, overruns, every fifth job with a higher priority, so that the costs
// differ per job). Each run is compared with the same run without the cuts
// and, on every other seed, with the general compression (delayed jobs
// held), and its outcome is audited.
func TestSettleKeepsSchedule(t *testing.T) {
	seeds, most := uint64(40), 400
	if longtest.Short() {
		seeds, most = 4, 160
	}
	for seed := uint64(1); seed <= seeds; seed++ {
		r := rand.New(rand.NewPCG(seed, 31))
		spec, jobs, prm := longQueueCase(r, most)
		a := New(spec.Procs, prm)
		b := New(spec.Procs, prm)
		b.noSettle = true
		b.noPrune = seed%3 == 0
		b.noLazy = seed%2 == 0
		ra, err := sim.Run(jobs, a, sim.Options{Procs: spec.Procs})
		if err != nil {
			t.Fatal(err)
		}
		rb, err := sim.Run(jobs, b, sim.Options{Procs: spec.Procs})
		if err != nil {
			t.Fatal(err)
		}
		for i := range jobs {
			if ra.Outcomes[i].Start != rb.Outcomes[i].Start {
				t.Fatalf("seed %d (%d jobs, %d processors): job %d starts at %d with the cuts, %d without", seed, len(jobs), spec.Procs, i, ra.Outcomes[i].Start, rb.Outcomes[i].Start)
			}
		}
		rep := audit.Audit(ra.Outcomes, audit.Options{Procs: spec.Procs, Kill: true, KnownRuntime: true, Expect: len(jobs)})
		if !rep.OK() {
			t.Fatalf("seed %d: %s", seed, rep.String())
		}
	}
}

// longQueueCase draws the workload of the long-queue tests: between most/2
// and most jobs arriving faster than they run on 8–127 processors, every
// fifth with a higher priority (so that the costs differ per job), and
// the paper's parameters with a random AWT and slack factor 1, 3 or 9.
func longQueueCase(r *rand.Rand, most int) (testgen.Spec, []job.Job, Params) {
	spec := testgen.Random(r)
	spec.Jobs = most/2 + r.IntN(most/2)
	spec.Procs = 8 + r.IntN(120)
	spec.MeanGap = r.IntN(8)
	jobs := testgen.Jobs(r, spec)
	for i := range jobs {
		if i%5 == 0 {
			jobs[i].UP, jobs[i].PP = 1, 1
		}
	}
	prm := DefaultParams()
	prm.AWT = float64(1 + r.IntN(600))
	prm.SF = []float64{1, 3, 9}[r.IntN(3)]
	return spec, jobs, prm
}
