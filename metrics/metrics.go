// Package metrics summarizes the outcomes of a schedule.
//
// It aggregates the outcomes of a simulated schedule into the
// usual scheduling metrics (wait, response, bounded slowdown, utilization,
// makespan), overall and split into short and long jobs, and writes them
// as a text table, JSON or CSV, plus a per-job CSV in Batsim's jobs.csv
// layout. docs/metrics.md gives every formula.
package metrics

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/internal/radix"
	"github.com/backfill-hpc/backfill/job"
)

// DefaultShortLimit is the default class boundary in seconds: a job whose
// actual runtime is at most one hour is short, otherwise long.
const DefaultShortLimit = 3600

// Options control Summarize.
type Options struct {
	// Procs is the number of processors of the machine (for utilization).
	// When Procs ≤ 0, Utilization is reported as 0.
	Procs int
	// Tau is the bounded-slowdown threshold in seconds; ≤ 0 means job.Tau.
	Tau int64
	// WarmUp and Drain are spans in seconds at the start and the end of
	// the submit span: jobs submitted before FirstSubmit+WarmUp or after
	// LastSubmit−Drain are left out of the Stats (not out of Utilization
	// or Makespan). 0 turns either off.
	WarmUp, Drain int64
	// ShortLimit is the class boundary in seconds: a job whose actual
	// Runtime ≤ ShortLimit is short, otherwise long. ≤ 0 means
	// DefaultShortLimit.
	ShortLimit int64
}

// Stats are the per-job metrics of one set of jobs. All fields are 0 when
// Jobs is 0. Times are in seconds.
type Stats struct {
	// Jobs is the number of jobs measured.
	Jobs int `json:"jobs"`
	// MeanWait is Σ wait / Jobs, wait = Start − Submit.
	MeanWait float64 `json:"mean_wait"`
	// MedianWait, P90Wait and P99Wait are nearest-rank quantiles of the
	// waits (see NearestRank); MedianWait is the 50th percentile.
	MedianWait float64 `json:"median_wait"`
	P90Wait    float64 `json:"p90_wait"`
	P99Wait    float64 `json:"p99_wait"`
	// MaxWait is the largest wait.
	MaxWait int64 `json:"max_wait"`
	// MeanResponse is Σ response / Jobs, response = End − Submit.
	MeanResponse float64 `json:"mean_response"`
	// MeanBSLD is Σ bounded slowdown / Jobs (job.Outcome.BoundedSlowdown).
	MeanBSLD float64 `json:"mean_bsld"`
	// Killed is the number of measured jobs killed at their estimate.
	Killed int `json:"killed"`
}

// Summary is what Summarize computes for one schedule.
type Summary struct {
	// All, Short and Long are the Stats of the measured jobs (those not
	// excluded by warm-up/drain, nor rejected at submission): all of them, and those whose actual
	// Runtime is ≤ ShortLimit (Short) or above it (Long).
	All   Stats `json:"all"`
	Short Stats `json:"short"`
	Long  Stats `json:"long"`
	// Utilization is busy processor-seconds over all jobs divided by
	// Procs × Makespan, as a fraction (0.5 = 50 %).
	Utilization float64 `json:"utilization"`
	// Makespan is LastEnd − FirstSubmit.
	Makespan int64 `json:"makespan"`
	// FirstSubmit is the earliest Submit and LastEnd the latest End, both
	// over all jobs, measured or not.
	FirstSubmit int64 `json:"first_submit"`
	LastEnd     int64 `json:"last_end"`
	// Excluded is the number of jobs left out of the Stats by warm-up/drain.
	Excluded int `json:"excluded"`
	// Prediction measures the runtime predictions of the measured jobs
	// (see Predictions); nil when the policy planned with the estimates.
	Prediction *PredStats `json:"prediction,omitempty"`
	// Admission reports admission control and deadlines (see Admission);
	// nil when no job has a deadline and none was rejected.
	Admission *AdmissionStats `json:"admission,omitempty"`
}

// NearestRank returns the pct-th percentile of sorted (ascending) by the
// nearest-rank definition: the value at 1-based rank ⌈pct·n/100⌉, with the
// rank clamped to 1..n. So the median (pct 50) of an even number of values
// is the lower of the two middle ones, and pct 100 is the maximum. It
// returns 0 for an empty slice. pct is an integer so the rank is computed
// exactly, without floating-point rounding.
func NearestRank(sorted []int64, pct int) int64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	rank := (pct*n + 99) / 100 // ⌈pct·n/100⌉ for pct·n ≥ 0
	rank = max(1, min(rank, n))
	return sorted[rank-1]
}

// acc accumulates one set of measured jobs.
type acc struct {
	waits   []int64
	sorted  bool // waits are sorted already
	sumWait int64
	sumResp int64
	sumBSLD float64
	killed  int
}

func (a *acc) add(o *job.Outcome, tau int64) {
	a.waits = append(a.waits, o.Wait())
	a.sums(o, tau)
}

// sums adds o to everything but the waits.
func (a *acc) sums(o *job.Outcome, tau int64) {
	a.sumWait += o.Wait()
	a.sumResp += o.Response()
	a.sumBSLD += o.BoundedSlowdown(tau)
	if o.Killed {
		a.killed++
	}
}

func (a *acc) stats() Stats {
	n := len(a.waits)
	if n == 0 {
		return Stats{}
	}
	if !a.sorted {
		radix.SortInt64(a.waits)
	}
	return Stats{
		Jobs:         n,
		MeanWait:     float64(a.sumWait) / float64(n),
		MedianWait:   float64(NearestRank(a.waits, 50)),
		P90Wait:      float64(NearestRank(a.waits, 90)),
		P99Wait:      float64(NearestRank(a.waits, 99)),
		MaxWait:      a.waits[n-1],
		MeanResponse: float64(a.sumResp) / float64(n),
		MeanBSLD:     a.sumBSLD / float64(n),
		Killed:       a.killed,
	}
}

// idOrder returns the indexes of outcomes in job-ID order (stable for
// equal IDs), or nil when the slice is in that order already (as a
// simulator's outcomes are).
func idOrder(outcomes []job.Outcome) []int {
	if inIDOrder(outcomes) {
		return nil
	}
	order := make([]int, len(outcomes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(outcomes[x].ID, outcomes[y].ID)
	})
	return order
}

// inIDOrder reports whether the outcomes' IDs are non-decreasing.
func inIDOrder(outcomes []job.Outcome) bool {
	for i := 1; i < len(outcomes); i++ {
		if outcomes[i].ID < outcomes[i-1].ID {
			return false
		}
	}
	return true
}

// Summarize computes the Summary of outcomes. Jobs are visited in ID order,
// so the result (floating-point sums included) does not depend on the order
// of the slice, which is not modified. An empty slice gives a zero Summary.
func Summarize(outcomes []job.Outcome, opt Options) Summary {
	if len(outcomes) == 0 {
		return Summary{}
	}
	tau := opt.Tau
	if tau <= 0 {
		tau = job.Tau
	}
	shortLimit := opt.ShortLimit
	if shortLimit <= 0 {
		shortLimit = DefaultShortLimit
	}

	var s Summary
	firstSubmit, lastSubmit, lastEnd := outcomes[0].Submit, outcomes[0].Submit, outcomes[0].End
	var busy int64 // processor-seconds
	// one pass over the outcomes also finds whether they are in ID order
	// and whether predictions and admissions have anything to measure
	inOrder, anyPred, anyAdm := true, false, false
	for i := range outcomes {
		o := &outcomes[i]
		firstSubmit = min(firstSubmit, o.Submit)
		lastSubmit = max(lastSubmit, o.Submit)
		lastEnd = max(lastEnd, o.End)
		busy += int64(o.Procs) * o.Run()
		if i > 0 && o.ID < outcomes[i-1].ID {
			inOrder = false
		}
		anyPred = anyPred || o.Predicted > 0
		anyAdm = anyAdm || o.Deadline > 0 || o.Rejected
	}
	s.FirstSubmit, s.LastEnd = firstSubmit, lastEnd
	s.Makespan = lastEnd - firstSubmit
	if opt.Procs > 0 && s.Makespan > 0 {
		s.Utilization = float64(busy) / (float64(opt.Procs) * float64(s.Makespan))
	}

	var order []int // nil: in ID order already
	if !inOrder {
		order = idOrder(outcomes)
	}
	// the waits of short jobs from the front of one buffer, of long jobs
	// from its back; each class sorted, all of them is their merge
	n := len(outcomes)
	waits := make([]int64, n)
	ns, nl := 0, 0
	var all, short, long acc
	for k := range n {
		i := k
		if order != nil {
			i = order[k]
		}
		o := &outcomes[i]
		if o.Rejected {
			continue // rejected at submission: never ran (see Admission)
		}
		if (opt.WarmUp > 0 && o.Submit < firstSubmit+opt.WarmUp) ||
			(opt.Drain > 0 && o.Submit > lastSubmit-opt.Drain) {
			s.Excluded++
			continue
		}
		all.sums(o, tau)
		if o.Runtime <= shortLimit {
			waits[ns] = o.Wait()
			ns++
			short.sums(o, tau)
		} else {
			nl++
			waits[n-nl] = o.Wait()
			long.sums(o, tau)
		}
	}
	short.waits, long.waits = waits[:ns], waits[n-nl:]
	radix.SortInt64(short.waits)
	radix.SortInt64(long.waits)
	short.sorted, long.sorted = true, true
	all.waits, all.sorted = mergeSorted(short.waits, long.waits), true
	s.All, s.Short, s.Long = all.stats(), short.stats(), long.stats()
	if anyPred { // else Predictions is nil
		s.Prediction = Predictions(outcomes, opt)
	}
	if anyAdm { // else Admission is nil
		s.Admission = Admission(outcomes, opt)
	}
	return s
}

// mergeSorted returns the sorted merge of two sorted slices.
func mergeSorted(a, b []int64) []int64 {
	out := make([]int64, 0, len(a)+len(b))
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if b[j] < a[i] {
			out = append(out, b[j])
			j++
		} else {
			out = append(out, a[i])
			i++
		}
	}
	out = append(out, a[i:]...)
	return append(out, b[j:]...)
}

// CheckWindow reports an error when the averages' window of opt (WarmUp,
// Drain) leaves out every one of jobs, so that every statistic would be
// 0: with the rule of Summarize, a job counts when first+WarmUp ≤ submit
// and, with a drain, submit ≤ last−Drain. No jobs or no window is no
// error.
func CheckWindow(jobs []job.Job, opt Options) error {
	warmUp, drain := opt.WarmUp, opt.Drain
	if len(jobs) == 0 || (warmUp == 0 && drain == 0) {
		return nil
	}
	first, last := jobs[0].Submit, jobs[0].Submit
	for i := range jobs {
		first, last = min(first, jobs[i].Submit), max(last, jobs[i].Submit)
	}
	for i := range jobs {
		s := jobs[i].Submit
		if (warmUp == 0 || s >= first+warmUp) && (drain == 0 || s <= last-drain) {
			return nil
		}
	}
	return fmt.Errorf("every job is excluded from the averages (submissions span %d s)", last-first)
}
