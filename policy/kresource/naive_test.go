package kresource_test

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/policy/policytest"
	"github.com/backfill-hpc/backfill/sim"
)

// naiveCons is conservative backfilling on K resources written out from
// its documented rules (docs/policies.md, "conservative"; docs/simulator.md,
// "Kills and overruns"), sharing no code with the policies but the job
// types: no availability profile, no reservation book, no running-jobs
// tracker. It is the independent check of conservative and ff-cons, whose
// own tests compare the fast book with the literal one (the same book
// with a switch).
//
//   - Insert: the job reserves its earliest start ≥ now at which its whole
//     requirement vector fits for its estimate beside the running jobs
//     (held to their planned ends) and every reservation, which it does
//     not move.
//   - A re-plan removes every reservation and places the jobs again in
//     the order of their old reservations (ties by job ID), each at its
//     earliest fit beside the running jobs and the jobs placed before it
//     (the paper's literal compression). After an early end or a
//     cancellation no job may move later (the documented "never later",
//     checked here too).
//   - Overruns (no kills): the hold of a running job that reached its end
//     gets the end of the overrun rule at now (limit: now + estimate;
//     double: now + (now − start); second: now + 1) and the reservations are re-placed. At
//     the first call of an instant (Remove, Insert, Tick) the holds that
//     ended before now (no pass at their end) are lengthened; a hold that
//     ends at now is lengthened by the reaction to the instant's early
//     ends (at the next Insert or Tick, when every end of the instant is
//     known) or by the pass — two re-plans in one instant when both kinds
//     meet, as the book does.
//   - The reaction to early ends and cancellations (compression) comes at
//     the next Insert or Tick, once for the instant. With the queue order
//     sjf it is a re-plan in that order (estimate, then arrival; a job may
//     then move later); the re-plans after overruns stay in reservation
//     order (docs/policies.md: "with any order but fcfs, a compression
//     removes every reservation and re-places the waiting jobs in that
//     order").
//   - Tick: the jobs reserved at now start; the wake-up is the next
//     reservation, but under the rule second (an overrunning job's hold
//     ends at now+1, at every pass) not one at now+1 while such a hold
//     ends there (docs/simulator.md: "Overruns cost per event").
//
// The profile is a sorted list of breakpoints rebuilt for each search.
type naiveCons struct {
	caps []int
	rule policy.OverrunRule
	sjf  bool // the compressions re-place in sjf order (estimate, then arrival)
	// predictions (conservative's predict and correct): predK > 0 plans
	// with history-predK (the mean runtime of the user's last predK ended
	// jobs), step corrects by correct=step
	predK   int
	step    bool
	hist    map[int32][]int64
	pred    map[int]*naivePred // by job ID, with predK > 0
	running map[int]*naiveRun
	wait    []*naiveWait
	changed bool // a job ended early, or a waiting one was cancelled, since the last compression
	err     error
}

type naiveRun struct {
	j          *job.Request
	start, end int64
	over       bool // end was set by the overrun rule
}

type naiveWait struct {
	j   *job.Request
	res int64
	dur int64 // planned duration: the estimate, or the prediction
}

// naivePred is a job's first prediction, its current planned duration
// and the corrections made.
type naivePred struct {
	first, dur int64
	corr       int
}

// stepIncrements are correct=step's (docs/policies.md, "Corrections"):
// 1, 5, 15, 30 min, 1, 2, 5, 10, 20, 50, 100 h.
var stepIncrements = []int64{60, 300, 900, 1800, 3600, 7200, 18000, 36000, 72000, 180000, 360000}

// predict is j's planned duration at its submission.
func (p *naiveCons) predict(j *job.Request) int64 {
	if p.predK == 0 {
		return j.Estimate
	}
	d := j.Estimate
	if h := p.hist[j.User]; j.User >= 0 && len(h) >= p.predK {
		var sum int64
		for _, x := range h[len(h)-p.predK:] {
			sum += x
		}
		d = min(j.Estimate, max(1, sum/int64(p.predK)))
	}
	p.pred[j.ID] = &naivePred{first: d, dur: d}
	return d
}

// Prediction implements policy.Predicting.
func (p *naiveCons) Prediction(j *job.Request) (int64, int, bool) {
	x, ok := p.pred[j.ID]
	if !ok {
		return 0, 0, false
	}
	return x.first, x.corr, true
}

// need is j's requirement vector.
func need(j *job.Request) []int {
	return append([]int{j.Procs}, j.Res...)
}

func (p *naiveCons) Name() string { return "naive-cons" }

// step is the free amounts from t to the next step.
type step struct {
	t    int64
	free []int
}

// profile is the free amounts from now on beside the running jobs and
// the reservations but skip's.
func (p *naiveCons) profile(now int64, skip *naiveWait) []step {
	type ev struct {
		t int64
		v []int
		s int
	}
	var evs []ev
	add := func(s, e int64, v []int) {
		s = max(s, now)
		if e > s {
			evs = append(evs, ev{s, v, -1}, ev{e, v, +1})
		}
	}
	for _, r := range p.running {
		add(now, r.end, need(r.j))
	}
	for _, w := range p.wait {
		if w != skip && w.res >= 0 {
			add(w.res, w.res+w.dur, need(w.j))
		}
	}
	slices.SortFunc(evs, func(a, b ev) int { return int(a.t - b.t) })
	free := slices.Clone(p.caps)
	steps := []step{{now, slices.Clone(free)}}
	for _, e := range evs {
		for k := range free {
			free[k] += e.s * e.v[k]
		}
		if steps[len(steps)-1].t == e.t {
			copy(steps[len(steps)-1].free, free)
		} else {
			steps = append(steps, step{e.t, slices.Clone(free)})
		}
	}
	return steps
}

// fit is the earliest start ≥ now of a window of d seconds with v free
// throughout, in steps (every candidate is now or a step).
func fit(steps []step, d int64, v []int) int64 {
	ok := func(f []int) bool {
		for k := range v {
			if f[k] < v[k] {
				return false
			}
		}
		return true
	}
	for i := range steps {
		good := true
		for k := i; k < len(steps) && steps[k].t < steps[i].t+d; k++ {
			if !ok(steps[k].free) {
				good = false
				break
			}
		}
		if good {
			return steps[i].t
		}
	}
	panic("unreachable: the last step is the empty machine")
}

// extend lengthens the holds of the running jobs that ended before now
// (stale: no pass at their end; only those of jobs past their estimates
// without atNow) or, with atNow, at now, and reports whether it lengthened
// one: a job within its estimate gets corrected predictions until its
// planned end is after now, one past it the overrun rule.
func (p *naiveCons) extend(now int64, atNow bool) bool {
	extended := false
	for _, r := range p.running {
		if !atNow && r.start+r.j.Estimate > r.end {
			continue // a prediction that ran out: corrected at a pass
		}
		if r.end < now || (atNow && r.end == now) {
			if x := p.pred[r.j.ID]; x != nil && r.start+r.j.Estimate > now {
				// within its estimate: corrected until it ends after now
				for r.start+x.dur <= now {
					x.corr++
					next := r.j.Estimate
					if p.step && x.corr <= len(stepIncrements) {
						next = min(r.j.Estimate, x.first+stepIncrements[x.corr-1])
					}
					if next <= x.dur {
						next = r.j.Estimate // a correction only lengthens
					}
					x.dur = next
				}
				r.end, extended = r.start+x.dur, true
				continue
			}
			switch p.rule {
			case policy.OverrunDouble:
				r.end = now + max(now-r.start, 1)
			case policy.OverrunSecond:
				r.end = now + 1
			default:
				r.end = now + max(r.j.Estimate, 1)
			}
			r.over, extended = true, true
		}
	}
	return extended
}

// replan removes every reservation and places the jobs again in the
// order of their old reservations (ties by job ID), or with queue in sjf
// order, each at its earliest fit beside the running jobs and the jobs
// placed before it; later is whether a job may move later (a hold was
// lengthened, or the order is not the reservations').
func (p *naiveCons) replan(now int64, later, queue bool) {
	slices.SortFunc(p.wait, func(a, b *naiveWait) int {
		if queue && a.j.Estimate != b.j.Estimate {
			return int(a.j.Estimate - b.j.Estimate)
		}
		if !queue && a.res != b.res {
			return int(a.res - b.res)
		}
		return a.j.ID - b.j.ID
	})
	old := make([]int64, len(p.wait))
	for i, w := range p.wait {
		old[i] = w.res
		w.res = -1
	}
	for i, w := range p.wait {
		w.res = fit(p.profile(now, w), w.dur, need(w.j))
		if !later && w.res > old[i] && p.err == nil {
			p.err = fmt.Errorf("at %d: compression after an early end moves job %d later, from %d to %d", now, w.j.ID, old[i], w.res)
		}
	}
}

// catchUp is the first thing of every call: the holds of jobs that ran
// past their end before now, with no pass since, are lengthened at the
// first call of the instant (a hold ending at now is not: its job may
// still end at now), and the reservations re-placed.
func (p *naiveCons) catchUp(now int64) {
	if p.extend(now, false) {
		p.replan(now, true, false)
	}
}

// settle reacts to the ends recorded (an early end, or a cancellation):
// the compression, written as the literal re-plan; when a hold ends at
// now (its job is still running: every end of the instant is known by
// then), the re-plan lengthens it first.
func (p *naiveCons) settle(now int64) {
	if p.changed {
		p.changed = false
		ext := p.extend(now, true)
		p.replan(now, ext || p.sjf, p.sjf)
	}
}

func (p *naiveCons) Insert(now int64, j *job.Request) {
	p.catchUp(now)
	p.settle(now)
	w := &naiveWait{j, -1, p.predict(j)}
	p.wait = append(p.wait, w)
	w.res = fit(p.profile(now, w), w.dur, need(j))
}

func (p *naiveCons) Remove(now int64, j *job.Request) {
	p.catchUp(now)
	if r, ok := p.running[j.ID]; ok {
		delete(p.running, j.ID)
		if p.predK > 0 && j.User >= 0 {
			p.hist[j.User] = append(p.hist[j.User], now-r.start) // what it ran
		}
		if now < r.end {
			p.changed = true // an early end
		}
		return
	}
	p.wait = slices.DeleteFunc(p.wait, func(w *naiveWait) bool { return w.j == j })
	p.changed = true
}

func (p *naiveCons) Tick(now int64, start func(*job.Request)) int64 {
	p.catchUp(now)
	p.settle(now)
	if p.extend(now, true) {
		p.replan(now, true, false)
	}
	slices.SortFunc(p.wait, func(a, b *naiveWait) int {
		if a.res != b.res {
			return int(a.res - b.res)
		}
		return a.j.ID - b.j.ID
	})
	k := 0
	for _, w := range p.wait {
		if w.res <= now {
			p.running[w.j.ID] = &naiveRun{j: w.j, start: now, end: now + w.dur}
			start(w.j)
			continue
		}
		p.wait[k] = w
		k++
	}
	p.wait = p.wait[:k]
	// under the rule second, no pass at now+1 for reservations that only
	// wait for a job past its estimate held until now+1: the next one
	// after it (an event wakes the engine anyway)
	skip := false
	for _, r := range p.running {
		skip = skip || p.rule == policy.OverrunSecond && r.over && r.end == now+1
	}
	wake := policy.NoWake
	for _, w := range p.wait {
		if !skip || w.res >= now+2 {
			wake = min(wake, w.res)
		}
	}
	return wake
}

// TestConsEqualsNaive compares conservative (one resource) and ff-cons (1
// to 3 resources) with naiveCons, job by job, on testgen.Adversarial
// workloads (ends and submissions in one second, identical jobs, runtime
// = estimate or 0, estimates of 1 s, whole-machine jobs, queues of
// hundreds), in kill mode and in no-kill mode under the rules limit,
// double and second, in arrival order and (one run in three) with the order sjf.
func TestConsEqualsNaive(t *testing.T) {
	n := 4
	if !longtest.Short() {
		n = 6 // (60 pass: 6 min on the shared machine, 2026-11-25)
	}
	checked := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6e616976))
		base, procs := testgen.Adversarial(r, false)
		for longtest.Short() && len(base) > 100 {
			base, procs = testgen.Adversarial(r, false) // the quick run: no queue of hundreds
		}
		for k := 1; k <= 3; k++ {
			jobs := slices.Clone(base)
			caps := append([]int{procs}, testgen.AddResources(r, jobs, k)...)
			names := []string{"ff-cons"}
			if k == 1 {
				names = append(names, "conservative")
			}
			for _, name := range names {
				for _, mode := range []string{"kill", "limit", "double", "second"} {
					sjf := (seed+uint64(k))%3 == 0
					spec := name
					if sjf {
						spec += ":order=sjf"
					}
					suffix, rule := overrunMode(mode)
					spec += suffix
					s, err := policy.NewK(spec, caps)
					if err != nil {
						t.Fatal(err)
					}
					opt := sim.Options{Procs: procs, Res: caps[1:], NoKill: mode != "kill"}
					what := fmt.Sprintf("seed %d %s (%d jobs, caps %v, %s)", seed, spec, len(jobs), caps, mode)
					a, err := sim.Run(jobs, s, opt)
					if err != nil {
						t.Fatalf("%s: %v", what, err)
					}
					nv := &naiveCons{caps: caps, rule: rule, sjf: sjf, running: map[int]*naiveRun{}}
					b, err := sim.Run(jobs, nv, opt)
					if err != nil {
						t.Fatalf("%s: naive: %v", what, err)
					}
					if nv.err != nil {
						t.Fatalf("%s: %v", what, nv.err)
					}
					for i := range jobs {
						if a.Outcomes[i].Start != b.Outcomes[i].Start {
							j := jobs[i]
							t.Fatalf("%s: job %d (submit %d, needs %v, estimate %d, runtime %d) starts at %d, the naive policy starts it at %d",
								what, i, j.Submit, need(&j.Request), j.Estimate, j.Runtime, a.Outcomes[i].Start, b.Outcomes[i].Start)
						}
					}
					checked += len(jobs)
				}
			}
		}
	}
	t.Logf("%d starts checked", checked)
}

// TestConsDrivenEqualsNaive: conservative and ff-cons against naiveCons
// (overrun rule limit) on policytest.DriveK's event streams, which also
// cancel waiting jobs anywhere in the queue, run jobs past their
// estimates, and compare every pass: starts and wake-ups.
func TestConsDrivenEqualsNaive(t *testing.T) {
	n, steps := 3, 60
	if !longtest.Short() {
		n, steps = 20, 200 // (60 pass: 5 min on the shared machine, 2026-11-25)
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6e64))
		caps := []int{[]int{1, 4, 16, 64}[r.IntN(4)]}
		for k := r.IntN(3); k > 0; k-- {
			caps = append(caps, 1+r.IntN(32))
		}
		name := "ff-cons"
		if len(caps) == 1 && seed%2 == 0 {
			name = "conservative"
		}
		s, err := policy.NewK(name, caps)
		if err != nil {
			t.Fatal(err)
		}
		nv := &naiveCons{caps: caps, rule: policy.OverrunLimit, running: map[int]*naiveRun{}}
		if err := policytest.DriveK(r, s, nv, caps, steps); err != nil {
			t.Fatalf("seed %d %s caps %v: %v", seed, name, caps, err)
		}
		if nv.err != nil {
			t.Fatalf("seed %d %s caps %v: %v", seed, name, caps, nv.err)
		}
	}
}

// TestConservativePredictionsEqualNaive: conservative with runtime
// predictions (predict=history-K, correct=estimate or step) against
// naiveCons planning with the same predictions written out from
// docs/policies.md ("Runtime predictions"), job by job — starts, first
// predictions and corrections — on testgen.Adversarial workloads with a
// few users (every other one in minutes, so that the step corrections
// fall within the estimates), in kill mode and in no-kill mode under
// each overrun rule;
// the compression after an early end still never moves a job later.
func TestConservativePredictionsEqualNaive(t *testing.T) {
	n := 4
	if !longtest.Short() {
		n = 20 // (60 pass: 3 min on the shared machine, 2026-11-25)
	}
	checked, shorter, corrected := 0, 0, 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x70726564))
		jobs, procs := testgen.Adversarial(r, false)
		for longtest.Short() && len(jobs) > 100 {
			jobs, procs = testgen.Adversarial(r, false)
		}
		if seed%2 == 0 {
			// minutes for seconds: estimates long enough for the step
			// corrections (1 min to 100 h) to fall short of them
			for i := range jobs {
				jobs[i].Submit *= 60
				jobs[i].Estimate *= 60
				jobs[i].Runtime *= 60
			}
		}
		k := 1 + r.IntN(3)
		step := r.IntN(2) == 0
		for _, mode := range []string{"kill", "limit", "double", "second"} {
			spec := fmt.Sprintf("conservative:predict=history-%d", k)
			if step {
				spec += ":correct=step"
			}
			suffix, rule := overrunMode(mode)
			spec += suffix
			s, err := policy.New(spec, procs)
			if err != nil {
				t.Fatal(err)
			}
			opt := sim.Options{Procs: procs, NoKill: mode != "kill"}
			what := fmt.Sprintf("seed %d %s (%d jobs, %d procs)", seed, spec, len(jobs), procs)
			a, err := sim.Run(jobs, s, opt)
			if err != nil {
				t.Fatalf("%s: %v", what, err)
			}
			nv := &naiveCons{caps: []int{procs}, rule: rule, predK: k, step: step, hist: map[int32][]int64{}, pred: map[int]*naivePred{}, running: map[int]*naiveRun{}}
			b, err := sim.Run(jobs, nv, opt)
			if err != nil {
				t.Fatalf("%s: naive: %v", what, err)
			}
			if nv.err != nil {
				t.Fatalf("%s: %v", what, nv.err)
			}
			for i := range jobs {
				oa, ob := a.Outcomes[i], b.Outcomes[i]
				if oa.Start != ob.Start || oa.Predicted != ob.Predicted || oa.Corrections != ob.Corrections {
					j := jobs[i]
					t.Fatalf("%s: job %d (user %d, submit %d, %d procs, estimate %d, runtime %d) starts at %d (prediction %d, %d corrections), the naive policy at %d (%d, %d)",
						what, i, j.User, j.Submit, j.Procs, j.Estimate, j.Runtime, oa.Start, oa.Predicted, oa.Corrections, ob.Start, ob.Predicted, ob.Corrections)
				}
			}
			checked += len(jobs)
			for _, o := range a.Outcomes {
				if o.Corrections > 0 {
					corrected++
				}
				if o.Predicted > 0 && o.Predicted < o.Estimate {
					shorter++
				}
			}
		}
	}
	t.Logf("%d jobs checked, %d predicted shorter than their estimate, %d corrected", checked, shorter, corrected)
}

// ahead is a policy driven as the live service drives it: after every
// request that changes its state (a submission, an end, a cancellation),
// the compression of the instant's releases so far is made at once
// (policy.SettlerAhead), to be undone by a later release of the same
// instant.
type ahead struct {
	policy.Scheduler
	made int // compressions made ahead
}

func (a *ahead) settle(now int64) {
	if s, ok := a.Scheduler.(policy.SettlerAhead); ok && s.SettleAhead(now) {
		a.made++
	}
}

func (a *ahead) Insert(now int64, j *job.Request) { a.Scheduler.Insert(now, j); a.settle(now) }
func (a *ahead) Remove(now int64, j *job.Request) { a.Scheduler.Remove(now, j); a.settle(now) }

// TestConsAheadEqualsNaive: conservative driven as the live service
// drives it (the compression made ahead after every request, ahead)
// against naiveCons on policytest.Drive's streams: the compressions made
// ahead and undone change nothing.
func TestConsAheadEqualsNaive(t *testing.T) {
	n, steps := 4, 60
	if !longtest.Short() {
		n, steps = 15, 200 // (40 pass: 2.5 min on the shared machine, 2026-11-25)
	}
	made := 0
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 0x6168))
		procs := []int{1, 4, 16, 64}[r.IntN(4)]
		s, err := policy.New("conservative", procs)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := s.(policy.SettlerAhead); !ok {
			t.Fatal("conservative is not a policy.SettlerAhead")
		}
		nv := &naiveCons{caps: []int{procs}, rule: policy.OverrunLimit, running: map[int]*naiveRun{}}
		a := &ahead{Scheduler: s}
		if err := policytest.Drive(r, a, nv, procs, steps); err != nil {
			t.Fatalf("seed %d, %d procs: %v", seed, procs, err)
		}
		if nv.err != nil {
			t.Fatalf("seed %d, %d procs: %v", seed, procs, nv.err)
		}
		made += a.made
	}
	t.Logf("%d compressions made ahead", made)
	if made == 0 {
		t.Error("no compression was made ahead: the test checked nothing of it")
	}
}

// overrunMode is the policy-spec suffix and the overrun rule of a test
// mode: "kill" (no suffix; the rule is unused, runs are killed at their
// estimates), or "limit", "double", "second" under --no-kill.
func overrunMode(mode string) (string, policy.OverrunRule) {
	switch mode {
	case "kill":
		return "", policy.OverrunLimit
	case "double":
		return ":overrun=double", policy.OverrunDouble
	case "second":
		return ":overrun=second", policy.OverrunSecond
	}
	return ":overrun=" + mode, policy.OverrunLimit
}
