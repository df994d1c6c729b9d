package sim_test

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// predictionPolicies plan with predictions and corrections, some in a
// registered queue order (the order extension point with predictions).
var predictionPolicies = []string{
	"easy++", "easy++:correct=step", "easy:predict=history-1", "easy:order=sjf:predict=history-2:correct=step",
	"easy:depth=3:order=sjbf:predict=history-2", "easy:depth=2:predict=history-3",
	"conservative:predict=history-2", "conservative:predict=history-1:correct=step",
	"easy:order=multifactor:predict=history-2:correct=step", "conservative:order=sjf:predict=history-2",
	"conservative:order=multifactor:predict=history-1",
}

func simulate(t *testing.T, spec string, procs int, jobs []job.Job, noKill bool) *sim.Result {
	t.Helper()
	s, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(jobs, s, sim.Options{Procs: procs, NoKill: noKill})
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	return res
}

// TestEstimatePredictorIsPlainPolicy: planning with the estimate predictor
// (explicitly), or with a history predictor that never has enough history
// (so that every prediction is the estimate, but through the prediction
// machinery), gives exactly the schedule of the plain policy, job by job.
func TestEstimatePredictorIsPlainPolicy(t *testing.T) {
	pairs := [][]string{
		{"easy", "easy:predict=estimate", "easy:order=fcfs:predict=history-1000:correct=step"},
		{"easy:depth=3", "easy:depth=3:predict=history-1000"},
		{"conservative", "conservative:predict=estimate", "conservative:predict=history-1000"},
	}
	for seed := uint64(1); seed <= 150; seed++ {
		r := rand.New(rand.NewPCG(seed, 77))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		for _, noKill := range []bool{false, true} {
			for _, group := range pairs {
				want := simulate(t, group[0], spec.Procs, jobs, noKill)
				for _, other := range group[1:] {
					got := simulate(t, other, spec.Procs, jobs, noKill)
					for i := range jobs {
						w, g := want.Outcomes[i], got.Outcomes[i]
						if w.Start != g.Start || w.End != g.End {
							t.Fatalf("seed %d noKill=%v: job %d starts at %d under %s, %d under %s", seed, noKill, i, w.Start, group[0], g.Start, other)
						}
						if strings.Contains(other, "history") && (g.Predicted != jobs[i].Estimate || g.Corrections != 0) {
							t.Fatalf("seed %d %s: job %d predicted %d (%d corrections), want its estimate %d", seed, other, i, g.Predicted, g.Corrections, jobs[i].Estimate)
						}
						if !strings.Contains(other, "history") && g.Predicted != 0 {
							t.Fatalf("%s reports a prediction", other)
						}
					}
				}
			}
		}
	}
}

// recorder forwards to a policy and logs the engine's Insert and Remove
// calls in order.
type recorder struct {
	policy.Scheduler
	log []event
}

type event struct {
	insert bool
	j      *job.Request
}

func (r *recorder) Insert(now int64, j *job.Request) {
	r.log = append(r.log, event{true, j})
	r.Scheduler.Insert(now, j)
}

func (r *recorder) Remove(now int64, j *job.Request) {
	r.log = append(r.log, event{false, j})
	r.Scheduler.Remove(now, j)
}

func (r *recorder) Prediction(j *job.Request) (int64, int, bool) {
	return r.Scheduler.(policy.Predicting).Prediction(j)
}

// oracle computes the history-k prediction of every job from the engine's
// log: the mean of End−Start (from the finished schedule) over the last k
// jobs of the same user whose end the policy was told of before the job's
// submission, capped at the estimate, at least 1; the estimate when there
// are fewer than k such jobs or the user is unknown.
func oracle(log []event, outs []job.Outcome, k int) []int64 {
	want := make([]int64, len(outs))
	ended := map[int32][]int64{}
	for _, ev := range log {
		o := &outs[ev.j.ID]
		if !ev.insert {
			ended[o.User] = append(ended[o.User], o.End-o.Start)
			continue
		}
		past := ended[o.User]
		if o.User < 0 || len(past) < k {
			want[o.ID] = o.Estimate
			continue
		}
		var sum int64
		for _, r := range past[len(past)-k:] {
			sum += r
		}
		want[o.ID] = max(1, min(sum/int64(k), o.Estimate))
	}
	return want
}

// TestPredictionsAreCausal: every job's prediction equals the history-k
// mean over the jobs whose end had been reported before its submission, so
// a prediction never depends on the runtime of a job that has not ended.
// A second check changes the runtimes of every job that ends after time T
// and verifies that no job submitted before T gets a different prediction.
func TestPredictionsAreCausal(t *testing.T) {
	cases := []struct {
		spec string
		k    int
	}{{"easy++", 2}, {"easy:predict=history-3:correct=step", 3}, {"conservative:predict=history-2", 2}, {"easy:order=sjf:predict=history-1", 1}}
	n := 60
	if longtest.Short() {
		n = 15
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 5))
		spec := testgen.Random(r)
		spec.Jobs += 40
		jobs := testgen.Jobs(r, spec)
		for _, noKill := range []bool{false, true} {
			for _, c := range cases {
				s, err := policy.New(c.spec, spec.Procs)
				if err != nil {
					t.Fatal(err)
				}
				rec := &recorder{Scheduler: s}
				res, err := sim.Run(jobs, rec, sim.Options{Procs: spec.Procs, NoKill: noKill})
				if err != nil {
					t.Fatal(err)
				}
				want := oracle(rec.log, res.Outcomes, c.k)
				for i, o := range res.Outcomes {
					if o.Predicted != want[i] {
						t.Fatalf("seed %d %s noKill=%v: job %d predicted %d, the history of ended jobs gives %d", seed, c.spec, noKill, i, o.Predicted, want[i])
					}
				}
				// change the future
				T := jobs[len(jobs)/2].Submit
				alt := slices.Clone(jobs)
				for i := range alt {
					if res.Outcomes[i].End >= T {
						alt[i].Runtime = alt[i].Runtime*3 + 7
					}
				}
				res2 := simulate(t, c.spec, spec.Procs, alt, noKill)
				for i := range jobs {
					if jobs[i].Submit < T && res2.Outcomes[i].Predicted != res.Outcomes[i].Predicted {
						t.Fatalf("seed %d %s: job %d (submitted %d < %d) predicted %d, %d after changing runtimes of jobs ending from %d on", seed, c.spec, i, jobs[i].Submit, T, res.Outcomes[i].Predicted, res2.Outcomes[i].Predicted, T)
					}
				}
			}
		}
	}
}

// TestCorrectionsKeepAuditorPassing: policies planning with predictions
// and corrections produce schedules that pass the audit (capacity, start ≥
// submit, run lengths, kills at the estimate), with and without kills, and
// corrections do happen.
func TestCorrectionsKeepAuditorPassing(t *testing.T) {
	n := 250
	if longtest.Short() {
		n = 40
	}
	corrections := map[string]int{}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		for _, noKill := range []bool{false, true} {
			for _, name := range predictionPolicies {
				res := simulate(t, name, spec.Procs, jobs, noKill)
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: spec.Procs, Kill: !noKill, KnownRuntime: true, Expect: len(jobs)})
				if !rep.OK() {
					t.Fatalf("seed %d %s noKill=%v: %s", seed, name, noKill, rep.String())
				}
				for _, o := range res.Outcomes {
					if o.Bound >= 0 {
						t.Fatalf("%s promised a bound although it plans with predictions", name)
					}
					if o.Predicted < 1 || o.Predicted > o.Estimate {
						t.Fatalf("seed %d %s: job %d predicted %d (estimate %d)", seed, name, o.ID, o.Predicted, o.Estimate)
					}
					corrections[name] += o.Corrections
				}
			}
		}
	}
	for _, name := range predictionPolicies {
		if corrections[name] == 0 {
			t.Errorf("%s: no prediction was ever corrected", name)
		}
	}
}

// SJBF on a hand example. 10 processors. J1 (6 procs) runs until 100. J2
// (8 procs) waits: shadow 100, extra 2. At 2 three 4-processor jobs
// arrive: J3 (estimate 90), J4 (50), J5 (40); 4 processors are free and
// each would end by the shadow time, but only one fits at a time.
//
//   - EASY backfills J3 (first in arrival order), until 92; at 92 neither
//     J4 nor J5 ends by 100; J2 starts at 100, J4 and J5 at 200.
//   - SJBF backfills J5 (shortest) until 42, then J4 (42+50 ≤ 100) until
//     92; J3 no longer ends by 100 and waits for J2 (100..200).
//   - SJF orders the queue itself: J5, J4 and J3 start in turn (2, 42, 92)
//     without backfilling rules; J2 gets its reservation only at 100, when
//     it is the first that does not fit, behind J3 (until 182).
func TestSJBFBackfillsShortestFirst(t *testing.T) {
	jobs := number([]job.Job{
		j(0, 6, 100, 100),
		j(1, 8, 100, 100),
		j(2, 4, 90, 90),
		j(2, 4, 50, 50),
		j(2, 4, 40, 40),
	})
	for _, c := range []struct {
		spec string
		want []int64
	}{
		{"easy", []int64{0, 100, 2, 200, 200}},
		{"easy:order=sjbf", []int64{0, 100, 200, 42, 2}},
		{"easy:order=sjf", []int64{0, 182, 92, 42, 2}},
		{"easy:order=sjbf:depth=2", []int64{0, 100, 200, 42, 2}},
	} {
		expectStarts(t, c.spec, run(t, c.spec, 10, jobs), c.want)
	}
}

// EASY++ on a hand example (10 processors). User 1 ran J1 and J2 for 10 s
// each. J3 (6 procs, until 120) runs and J4 (the whole machine) waits:
// shadow 120, extra 0. At 22 user 1 submits J5 (3 procs, estimate 1000,
// actual 50 s).
//
//   - EASY: 22+1000 > 120 and 3 > extra 0, so J5 waits; so does J6 (1
//     proc, estimate 100, arriving at 40: 140 > 120). Both start at 220,
//     after J4.
//   - EASY++: J5 is predicted (10+10)/2 = 10 s and backfills at 22 (ends
//     by 120 as predicted). At 40 (J6 arrives) J5 is still running past its
//     predicted end 32: its prediction is corrected to its estimate (end
//     1022), which moves the shadow time to 1022, and J6 (ending by 140)
//     now backfills at 40. J4 still starts at 120.
//   - EASY++ with the stepwise rule: at 40 J5's prediction becomes 10+60 s
//     (end 92); the shadow time stays 120 and J6 waits for J4 (220).
func TestEASYPlusPlusPredictsAndCorrects(t *testing.T) {
	mk := func(submit int64, procs int, est, run int64, user int32) job.Job {
		x := j(submit, procs, est, run)
		x.User = user
		return x
	}
	jobs := number([]job.Job{
		mk(0, 1, 100, 10, 1),    // J1
		mk(0, 1, 100, 10, 1),    // J2
		mk(20, 6, 100, 100, 2),  // J3
		mk(21, 10, 100, 100, 2), // J4: head
		mk(22, 3, 1000, 50, 1),  // J5
		mk(40, 1, 100, 10, 3),   // J6
	})
	for _, c := range []struct {
		spec       string
		want       []int64
		corrected  int
		correction int
	}{
		{"easy", []int64{0, 0, 20, 120, 220, 220}, -1, 0},
		{"easy++", []int64{0, 0, 20, 120, 22, 40}, 4, 1},
		{"easy++:correct=step", []int64{0, 0, 20, 120, 22, 220}, 4, 1},
		{"easy:order=fcfs:predict=history-2", []int64{0, 0, 20, 120, 22, 40}, 4, 1},
	} {
		res := simulate(t, c.spec, 10, jobs, false)
		got := make([]int64, len(jobs))
		for i, o := range res.Outcomes {
			got[i] = o.Start
		}
		expectStarts(t, c.spec, got, c.want)
		if c.corrected >= 0 {
			o := res.Outcomes[c.corrected]
			if o.Predicted != 10 || o.Corrections != c.correction {
				t.Errorf("%s: J5 predicted %d with %d corrections, want 10 and %d", c.spec, o.Predicted, o.Corrections, c.correction)
			}
		}
	}
}

// FuzzPredictions decodes a workload as FuzzSimulate does (4 bytes a job:
// arrival gap, size, estimate, runtime; the low bit of the gap byte picks
// one of two users) and checks that every policy planning with
// predictions completes it with a schedule the auditor accepts, in kill
// and no-kill mode, with predictions within [1, estimate].
func FuzzPredictions(f *testing.F) {
	f.Add(uint8(8), []byte{0, 8, 10, 10, 1, 4, 5, 20, 0, 8, 3, 1, 2, 2, 100, 50})
	f.Add(uint8(4), []byte{0, 1, 100, 5, 0, 1, 100, 5, 1, 4, 10, 10, 0, 2, 200, 150, 3, 3, 50, 60})
	f.Add(uint8(64), []byte{5, 64, 255, 255, 0, 1, 1, 255, 0, 63, 9, 9})
	f.Fuzz(func(t *testing.T, procs uint8, data []byte) {
		P := int(procs%64) + 1
		var jobs []job.Job
		var now int64
		for i := 0; i+3 < len(data) && len(jobs) < 200; i += 4 {
			now += int64(data[i] % 16)
			id := len(jobs)
			jobs = append(jobs, job.Job{Request: job.Request{ID: id, SWFID: int64(id + 1), Submit: now, Procs: int(data[i+1])%P + 1,
				Estimate: int64(data[i+2]) + 1, User: int32(data[i] & 1)}, Runtime: int64(data[i+3])})
		}
		for _, noKill := range []bool{false, true} {
			for _, spec := range predictionPolicies {
				s, err := policy.New(spec, P)
				if err != nil {
					t.Fatal(err)
				}
				res, err := sim.Run(jobs, s, sim.Options{Procs: P, NoKill: noKill})
				if err != nil {
					t.Fatalf("%s: %v", spec, err)
				}
				rep := audit.Audit(res.Outcomes, audit.Options{Procs: P, Kill: !noKill, KnownRuntime: true, Expect: len(jobs)})
				if !rep.OK() {
					t.Fatalf("%s noKill=%v: %s", spec, noKill, rep.String())
				}
				for _, o := range res.Outcomes {
					if o.Predicted < 1 || o.Predicted > o.Estimate {
						t.Fatalf("%s: job %d predicted %d, estimate %d", spec, o.ID, o.Predicted, o.Estimate)
					}
				}
			}
		}
	})
}
