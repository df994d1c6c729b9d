package metrics

import (
	"bufio"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
)

// PredStats measure the runtime predictions a policy planned with
// (job.Outcome.Predicted > 0), over the measured jobs that have one.
type PredStats struct {
	// Jobs is the number of measured jobs with a prediction.
	Jobs int `json:"jobs"`
	// MAE is the mean absolute error Σ |Predicted − run| / Jobs in
	// seconds, where run = End − Start is the time the job held its
	// processors (for a killed job, its estimate).
	MAE float64 `json:"mae"`
	// Under is the under-prediction rate: the fraction of Jobs with
	// Predicted < run (jobs that outlived their first prediction).
	Under float64 `json:"under_rate"`
	// Corrections is the total number of corrections (Outcome.Corrections).
	Corrections int `json:"corrections"`
	// Corrected is the number of jobs with at least one correction.
	Corrected int `json:"corrected_jobs"`
}

type predAcc struct {
	n, under, corr, corrected int
	absErr                    int64
}

func (p *predAcc) add(o *job.Outcome) {
	if o.Predicted <= 0 {
		return
	}
	p.n++
	d := o.Predicted - o.Run()
	if d < 0 {
		p.under++
		d = -d
	}
	p.absErr += d
	p.corr += o.Corrections
	if o.Corrections > 0 {
		p.corrected++
	}
}

// stats returns nil when no job had a prediction.
func (p *predAcc) stats() *PredStats {
	if p.n == 0 {
		return nil
	}
	return &PredStats{Jobs: p.n, MAE: float64(p.absErr) / float64(p.n), Under: float64(p.under) / float64(p.n),
		Corrections: p.corr, Corrected: p.corrected}
}

// measured returns the indexes of the measured jobs (warm-up and drain
// applied as in Summarize, jobs rejected at submission left out) in job-ID
// order.
func measured(outcomes []job.Outcome, opt Options) []int {
	if len(outcomes) == 0 {
		return nil
	}
	first, last := outcomes[0].Submit, outcomes[0].Submit
	for i := range outcomes {
		first = min(first, outcomes[i].Submit)
		last = max(last, outcomes[i].Submit)
	}
	order := idOrder(outcomes)
	idx := make([]int, 0, len(outcomes))
	for k := range outcomes {
		i := k
		if order != nil {
			i = order[k]
		}
		o := &outcomes[i]
		if (opt.WarmUp > 0 && o.Submit < first+opt.WarmUp) || (opt.Drain > 0 && o.Submit > last-opt.Drain) {
			continue
		}
		if o.Rejected {
			continue // never ran (admission control)
		}
		idx = append(idx, i)
	}
	return idx
}

// Predictions computes the PredStats of the measured jobs, or nil when no
// measured job had a prediction.
func Predictions(outcomes []job.Outcome, opt Options) *PredStats {
	// integer sums: the order of the jobs does not matter, and a run
	// without predictions needs no list of the measured jobs
	found := false
	for i := range outcomes {
		if outcomes[i].Predicted > 0 {
			found = true
			break
		}
	}
	if !found {
		return nil
	}
	var p predAcc
	for _, i := range measured(outcomes, opt) {
		p.add(&outcomes[i])
	}
	return p.stats()
}

// ClassRule splits jobs into classes by one quantity and increasing
// bounds: with bounds b1 < b2 < … < bk, class 0 holds the jobs whose value
// is ≤ b1, class i those in (bi, bi+1], and class k those above bk. The
// default short/long split of Summary is ClassRule{By: "runtime", Bounds:
// [3600]}.
type ClassRule struct {
	// By is the quantity: "runtime" (the actual runtime, seconds), "size"
	// (processors) or "estimate" (seconds).
	By string
	// Bounds are the class boundaries, strictly increasing.
	Bounds []int64
}

var classQuantities = []string{"runtime", "size", "estimate"}

// ParseClassRule parses "by:b1,b2,…", e.g. "runtime:3600" (short/long),
// "size:1,8,64" or "estimate:900,3600,36000".
func ParseClassRule(spec string) (ClassRule, error) {
	by, list, ok := strings.Cut(strings.TrimSpace(spec), ":")
	if !ok || !slices.Contains(classQuantities, by) {
		return ClassRule{}, fmt.Errorf("class rule %q: want QUANTITY:B1,B2,… with QUANTITY one of %s", spec, strings.Join(classQuantities, ", "))
	}
	r := ClassRule{By: by}
	for _, s := range strings.Split(list, ",") {
		b, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64)
		if err != nil {
			return ClassRule{}, fmt.Errorf("class rule %q: bound %q is not an integer", spec, s)
		}
		if len(r.Bounds) > 0 && b <= r.Bounds[len(r.Bounds)-1] {
			return ClassRule{}, fmt.Errorf("class rule %q: bounds must increase", spec)
		}
		r.Bounds = append(r.Bounds, b)
	}
	return r, nil
}

// String is the rule in ParseClassRule's syntax.
func (r ClassRule) String() string {
	b := make([]string, len(r.Bounds))
	for i, x := range r.Bounds {
		b[i] = strconv.FormatInt(x, 10)
	}
	return r.By + ":" + strings.Join(b, ",")
}

// Labels names the classes, e.g. "runtime <= 3600", "runtime > 3600".
func (r ClassRule) Labels() []string {
	n := len(r.Bounds)
	out := make([]string, n+1)
	for i := 0; i <= n; i++ {
		switch {
		case n == 0:
			out[i] = "all"
		case i == 0:
			out[i] = fmt.Sprintf("%s <= %d", r.By, r.Bounds[0])
		case i == n:
			out[i] = fmt.Sprintf("%s > %d", r.By, r.Bounds[n-1])
		default:
			out[i] = fmt.Sprintf("%d < %s <= %d", r.Bounds[i-1], r.By, r.Bounds[i])
		}
	}
	return out
}

// Of is the class of o.
func (r ClassRule) Of(o *job.Outcome) int {
	var v int64
	switch r.By {
	case "size":
		v = int64(o.Procs)
	case "estimate":
		v = o.Estimate
	default:
		v = o.Runtime
	}
	i, _ := slices.BinarySearch(r.Bounds, v) // first bound ≥ v
	return i
}

// Class is the Stats of one class of jobs.
type Class struct {
	// Label names the class (ClassRule.Labels).
	Label string `json:"class"`
	// Stats are the class's metrics, as Summary.All for all jobs.
	Stats Stats `json:"stats"`
	// Prediction is nil when no job of the class had a prediction.
	Prediction *PredStats `json:"prediction,omitempty"`
}

// Classes computes the Stats of each class of rule over the measured jobs
// (warm-up and drain as in Summarize), with the same definitions as
// Summary.All. Every class is present, with zero Stats when empty.
func Classes(outcomes []job.Outcome, opt Options, rule ClassRule) []Class {
	tau := opt.Tau
	if tau <= 0 {
		tau = job.Tau
	}
	labels := rule.Labels()
	accs := make([]acc, len(labels))
	preds := make([]predAcc, len(labels))
	for _, i := range measured(outcomes, opt) {
		o := &outcomes[i]
		c := rule.Of(o)
		accs[c].add(o, tau)
		preds[c].add(o)
	}
	out := make([]Class, len(labels))
	for c := range labels {
		out[c] = Class{Label: labels[c], Stats: accs[c].stats(), Prediction: preds[c].stats()}
	}
	return out
}

// ClassRow is one policy's classes in a class table.
type ClassRow struct {
	// Label names the row, typically the policy.
	Label string
	// Classes are the row's classes, as Classes returns them.
	Classes []Class
}

// WriteClassTable prints one line per policy and class: jobs, mean wait,
// mean response, mean bounded slowdown and killed jobs, and, when any row
// has predictions, their mean absolute error, under-prediction rate (%)
// and corrections. Formats as in WriteTable.
func WriteClassTable(w io.Writer, rule ClassRule, rows []ClassRow) error {
	withPred := false
	for _, r := range rows {
		for _, c := range r.Classes {
			withPred = withPred || c.Prediction != nil
		}
	}
	head := []string{"policy", "class (" + rule.String() + ")", "jobs", "mean wait", "mean resp", "mean bsld", "killed"}
	if withPred {
		head = append(head, "pred MAE", "under %", "corrections")
	}
	cells := [][]string{head}
	for _, r := range rows {
		for _, c := range r.Classes {
			s := c.Stats
			line := []string{r.Label, c.Label, itoa(s.Jobs), secs(s.MeanWait), secs(s.MeanResponse), ratio(s.MeanBSLD), itoa(s.Killed)}
			if s.Jobs == 0 { // an empty class has no mean: "—", not 0.0 (as the report)
				line = append(line[:3], "—", "—", "—", "—")
			}
			if withPred {
				if p := c.Prediction; p != nil && s.Jobs > 0 {
					line = append(line, secs(p.MAE), pct(p.Under), itoa(p.Corrections))
				} else {
					line = append(line, "-", "-", "-")
				}
			}
			cells = append(cells, line)
		}
	}
	bw := bufio.NewWriter(w)
	writeAligned(bw, cells)
	return bw.Flush()
}
