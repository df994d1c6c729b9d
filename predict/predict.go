// Package predict holds runtime predictors and correction rules for planning.
//
// It holds the runtime predictors that a reservation-based
// policy (EASY, conservative, slack-based, …) may plan with instead of the
// users' runtime estimates, and the correction rules for predictions that
// turn out too short.
//
// Feitelson's slides (after Tsafrir, Etsion & Feitelson, "Backfilling using
// system-generated predictions rather than user runtime estimates", 2007)
// separate the two uses of an estimate: (1) information for the scheduler
// about when processors will become free, and (2) a contract with the user:
// the job is killed when it has run that long. A predictor replaces only the
// first use. The kill contract stays the user's estimate (job.Request
// .Estimate), enforced by the engine, whatever the policy predicts.
//
// A predictor sees what a policy sees: the *job.Request of each job at
// submission, and, when a job ends, the time it ran as the policy measured
// it (end − start; for a job killed at its estimate, the estimate). It never
// sees the runtime of a job that has not ended.
//
// A Plan bundles a Predictor and a Corrector with the per-job bookkeeping a
// policy needs: the duration planned for each job, the first prediction,
// and the number of corrections. A policy calls Submit when a job arrives,
// Dur wherever it used j.Estimate for planning, Ended when a running job
// ends, and Extender with policy.Running.ExtendWith when a running job
// outlived its planned duration.
package predict

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
)

// Predictor predicts how long a job will run, for planning only.
type Predictor interface {
	// Name is the predictor's parameter value, e.g. "estimate" or
	// "history-2".
	Name() string
	// Predict returns the duration to plan for j, submitted at now. Plan
	// clamps the result to [1, j.Estimate].
	Predict(now int64, j *job.Request) int64
	// Ended tells the predictor that j ended at now after running for
	// runtime seconds (end − start, as the policy measured it).
	Ended(now int64, j *job.Request, runtime int64)
}

// Corrector gives a running job that outlived its planned duration a new
// one.
type Corrector interface {
	// Name is the corrector's parameter value, e.g. "estimate" or "step".
	Name() string
	// Next returns the planned duration after the n-th correction (n ≥ 1)
	// of j, whose first prediction was first. Plan clamps the result to
	// j.Estimate, and uses j.Estimate when the result does not grow.
	Next(j *job.Request, first int64, n int) int64
}

// Estimate is the default predictor: the user's estimate itself, i.e.
// planning exactly as without predictions.
type Estimate struct{}

// Name implements Predictor.
func (Estimate) Name() string { return "estimate" }

// Predict implements Predictor: j.Estimate.
func (Estimate) Predict(_ int64, j *job.Request) int64 { return j.Estimate }

// Ended implements Predictor; the estimate predictor learns nothing.
func (Estimate) Ended(int64, *job.Request, int64) {}

// History predicts the mean runtime of the same user's last K jobs that
// ended before the prediction is made (Tsafrir, Etsion & Feitelson 2007;
// the slides: "use average of last 2 jobs by same user"). The mean is
// rounded down to whole seconds. While a user has fewer than K ended jobs,
// and for jobs whose user is unknown (User < 0), the prediction is the
// user's estimate. Plan caps every prediction at the job's estimate.
type History struct {
	// K is the number of past jobs averaged (≥ 1).
	K      int
	byUser map[int32]*ring
}

// ring keeps the last K runtimes of one user.
type ring struct {
	r    []int64
	next int
	n    int
	sum  int64
}

// NewHistory returns a History predictor over the last k jobs.
func NewHistory(k int) *History { return &History{K: k, byUser: make(map[int32]*ring)} }

// Name implements Predictor.
func (h *History) Name() string { return "history-" + strconv.Itoa(h.K) }

// Predict implements Predictor.
func (h *History) Predict(_ int64, j *job.Request) int64 {
	if j.User < 0 {
		return j.Estimate
	}
	r := h.byUser[j.User]
	if r == nil || r.n < h.K {
		return j.Estimate
	}
	return r.sum / int64(h.K)
}

// Ended implements Predictor: runtime joins the user's last K.
func (h *History) Ended(_ int64, j *job.Request, runtime int64) {
	if j.User < 0 {
		return
	}
	r := h.byUser[j.User]
	if r == nil {
		r = &ring{r: make([]int64, h.K)}
		h.byUser[j.User] = r
	}
	if r.n == h.K {
		r.sum -= r.r[r.next]
	} else {
		r.n++
	}
	r.r[r.next] = runtime
	r.sum += runtime
	r.next = (r.next + 1) % h.K
}

// ToEstimate is the default corrector, the slides' "prediction correction:
// if prediction is too short, replace with original estimate".
type ToEstimate struct{}

// Name implements Corrector.
func (ToEstimate) Name() string { return "estimate" }

// Next implements Corrector: the user's estimate.
func (ToEstimate) Next(j *job.Request, _ int64, _ int) int64 { return j.Estimate }

// StepIncrements are the amounts, in seconds, that Step adds to the first
// prediction at the 1st, 2nd, … correction: 1, 5, 15 and 30 minutes, then
// 1, 2, 5, 10, 20, 50 and 100 hours. After the last one the estimate is
// used.
var StepIncrements = []int64{60, 300, 900, 1800, 3600, 7200, 18000, 36000, 72000, 180000, 360000}

// Step is the stepwise correction rule: the n-th correction sets the
// planned duration to the first prediction plus StepIncrements[n-1]
// (capped at the estimate). This is the gradual correction of Tsafrir,
// Etsion & Feitelson (2007) as the open-source predictsim simulator
// implements it; we could not check the increments against the paper's
// text itself.
type Step struct{}

// Name implements Corrector.
func (Step) Name() string { return "step" }

// Next implements Corrector.
func (Step) Next(j *job.Request, first int64, n int) int64 {
	if n < 1 || n > len(StepIncrements) {
		return j.Estimate
	}
	return first + StepIncrements[n-1]
}

// MaxHistory is the largest K accepted by Parse for history-K.
const MaxHistory = 1000

// PredictDoc and CorrectDoc document the "predict" and "correct" policy
// parameters, for the registrations of the policies that take them.
const (
	PredictDoc = "runtime predictor used for planning (the kill limit stays the estimate): estimate, or history-K = mean runtime of the user's last K ended jobs, capped at the estimate (history = history-2)"
	CorrectDoc = "new prediction for a job still running at its predicted end: estimate (the user's estimate) or step (first prediction + 1m, 5m, 15m, 30m, 1h, 2h, 5h, 10h, 20h, 50h, 100h, then the estimate)"
)

// ParsePredictor builds a predictor from a parameter value: "" or
// "estimate"; "history" (K = 2) or "history-K" with 1 ≤ K ≤ MaxHistory.
func ParsePredictor(s string) (Predictor, error) {
	switch {
	case s == "" || s == "estimate":
		return Estimate{}, nil
	case s == "history":
		return NewHistory(2), nil
	case strings.HasPrefix(s, "history-"):
		k, err := strconv.Atoi(strings.TrimPrefix(s, "history-"))
		if err != nil || k < 1 || k > MaxHistory {
			return nil, fmt.Errorf("predictor %q: K in history-K must be an integer from 1 to %d", s, MaxHistory)
		}
		return NewHistory(k), nil
	}
	return nil, fmt.Errorf("unknown predictor %q (want estimate, history or history-K)", s)
}

// ParseCorrector builds a corrector from a parameter value: "" or
// "estimate", or "step".
func ParseCorrector(s string) (Corrector, error) {
	switch s {
	case "", "estimate":
		return ToEstimate{}, nil
	case "step":
		return Step{}, nil
	}
	return nil, fmt.Errorf("unknown correction rule %q (want estimate or step)", s)
}

// Parse builds a Plan from the values of the "predict" and "correct"
// policy parameters ("" means the default).
func Parse(predictor, corrector string) (*Plan, error) {
	p, err := ParsePredictor(predictor)
	if err != nil {
		return nil, err
	}
	c, err := ParseCorrector(corrector)
	if err != nil {
		return nil, err
	}
	return NewPlan(p, c), nil
}
