package predict

import (
	"slices"

	"github.com/backfill-hpc/backfill/job"
)

// Plan is a policy's view of its jobs' planned durations: the prediction
// made at submission, then the corrected value each time a running job
// outlives it. It is indexed by job ID (dense, as the engine assigns them)
// and grows on demand.
//
// Rules, for a job j with estimate e:
//
//   - at submission the planned duration is the predictor's value clamped
//     to [1, e]; it never changes while j waits;
//   - when j is still running at start + planned (its hold in the profile
//     ended), the corrector is applied, again and again if needed, until
//     start + planned lies after now: each application is one correction,
//     so the count does not depend on when the policy happens to look
//     (only passes observe the profile, and a correction at a pass gives
//     exactly what corrections at each predicted end would have given);
//   - once planned = e, a job still running at start + e can only be
//     running past its estimate (no-kill mode): its hold is extended to
//     now+1 at each pass, the rule of policy.Running.Extend, and this is
//     not counted as a correction.
type Plan struct {
	// P predicts each job's duration at submission.
	P Predictor
	// C corrects the prediction of a job that outlives it.
	C Corrector

	dur   []int64 // planned duration by job ID
	first []int64 // prediction at submission
	corr  []int32 // corrections applied
	now   int64   // for extend
	// ends of the latest instant not yet told to the predictor: they are
	// told in job-ID order before the next prediction, so that the
	// predictor's state does not depend on the order in which the caller
	// reports the ends of one instant
	ends []ended
}

type ended struct {
	now, start int64
	j          *job.Request
}

// NewPlan returns a plan with predictor p and corrector c.
func NewPlan(p Predictor, c Corrector) *Plan { return &Plan{P: p, C: c} }

// Default returns the plan of a policy without predictions: the estimate
// predictor (planned duration = estimate, so nothing is ever corrected).
func Default() *Plan { return NewPlan(Estimate{}, ToEstimate{}) }

// Exact reports whether the plan uses the estimates themselves, i.e.
// behaves exactly as a policy without predictions.
func (pl *Plan) Exact() bool {
	_, ok := pl.P.(Estimate)
	return ok
}

// Params is the plan's parameters in policy-spec form relative to the
// defaults: "" for the default plan, else e.g. ":predict=history-2" or
// ":predict=history-2:correct=step".
func (pl *Plan) Params() string {
	s := ""
	if !pl.Exact() {
		s += ":predict=" + pl.P.Name()
	}
	if _, ok := pl.C.(ToEstimate); !ok {
		s += ":correct=" + pl.C.Name()
	}
	return s
}

func (pl *Plan) grow(id int) {
	for id >= len(pl.dur) {
		n := max(64, 2*len(pl.dur))
		pl.dur = append(pl.dur, make([]int64, n-len(pl.dur))...)
		pl.first = append(pl.first, make([]int64, n-len(pl.first))...)
		pl.corr = append(pl.corr, make([]int32, n-len(pl.corr))...)
	}
}

// Submit predicts the duration of j, submitted at now, records it and
// returns it. Call it once per job, when the policy learns of the job.
func (pl *Plan) Submit(now int64, j *job.Request) int64 {
	if _, exact := pl.P.(Estimate); exact || j.ID < 0 {
		// the estimate, never corrected (extend: a job past its estimate
		// may end at any moment): nothing to record, so that a
		// long-running service keeps no memory per job ever submitted
		return max(1, j.Estimate)
	}
	pl.grow(j.ID)
	pl.flush()
	d := pl.P.Predict(now, j)
	d = max(1, min(d, j.Estimate))
	pl.dur[j.ID], pl.first[j.ID], pl.corr[j.ID] = d, d, 0
	return d
}

// Dur is the duration currently planned for j: its prediction, corrected
// if it ran past it. For a job never submitted to the plan it is the
// estimate.
func (pl *Plan) Dur(j *job.Request) int64 {
	if j.ID < 0 || j.ID >= len(pl.dur) || pl.dur[j.ID] == 0 {
		return j.Estimate
	}
	return pl.dur[j.ID]
}

// Ended tells the predictor that running job j, started at start, ended
// at now. The ends reported together — at one instant, before the next
// prediction or pass (Flush) — reach the predictor together, in
// increasing job ID: a predictor such as History (the user's last K
// runtimes) then learns the same thing whatever the order in which the
// caller reported them.
func (pl *Plan) Ended(now, start int64, j *job.Request) {
	if _, ok := pl.P.(Estimate); ok {
		return // learns nothing
	}
	if len(pl.ends) > 0 && pl.ends[0].now != now {
		pl.flush()
	}
	pl.ends = append(pl.ends, ended{now: now, start: start, j: j})
}

// Flush tells the predictor the ends reported since the last Flush, in
// increasing job ID. A policy calls it at each pass: a job that starts
// and ends at the same instant (runtime 0) is reported after that pass,
// and must reach the predictor after the ends reported before it.
func (pl *Plan) Flush() {
	if len(pl.ends) > 0 { // inlined: most passes have nothing to flush
		pl.flush()
	}
}

func (pl *Plan) flush() {
	if len(pl.ends) == 0 {
		return
	}
	slices.SortFunc(pl.ends, func(a, b ended) int { return a.j.ID - b.j.ID })
	for _, e := range pl.ends {
		pl.P.Ended(e.now, e.j, e.now-e.start)
	}
	clear(pl.ends)
	pl.ends = pl.ends[:0]
}

// Extender returns the function to pass to policy.Running.ExtendWith at
// now: for each running job whose hold has ended, the new end of its
// hold.
func (pl *Plan) Extender(now int64) func(j *job.Request, start, end int64) int64 {
	pl.now = now
	return pl.extend
}

func (pl *Plan) extend(j *job.Request, start, _ int64) int64 {
	now := pl.now
	if start+j.Estimate <= now || j.ID < 0 || j.ID >= len(pl.dur) {
		// past its estimate (no-kill mode): it may end at any moment
		return now + 1
	}
	d, n := pl.Dur(j), pl.corr[j.ID]
	for start+d <= now {
		n++
		next := pl.C.Next(j, pl.first[j.ID], int(n))
		if next <= d || next > j.Estimate {
			next = j.Estimate
		}
		d = next
	}
	pl.dur[j.ID], pl.corr[j.ID] = d, n
	return start + d
}

// Prediction reports the duration first predicted for j and the number
// of corrections applied since; ok is false when the plan uses the
// estimates (Exact) or j is unknown. It implements the
// policy.Predicting capability for the policies that hold a Plan.
func (pl *Plan) Prediction(j *job.Request) (first int64, corrections int, ok bool) {
	if pl.Exact() || j.ID < 0 || j.ID >= len(pl.dur) || pl.dur[j.ID] == 0 {
		return 0, 0, false
	}
	return pl.first[j.ID], int(pl.corr[j.ID]), true
}
