package metrics

import "github.com/backfill-hpc/backfill/job"

// MeanQueue is the time-average number of waiting jobs (submitted, not yet
// started) over [from, to): the integral of the ready-queue length divided
// by to − from; 0 when to ≤ from. Leinberger, Karypis & Kumar calibrate
// their arrival rates on the mean ready-queue length of FCFS/FF-EASY; we
// measure it over the arrival period (first to last submission), where a
// finite workload is in its loaded regime, not over the final drain.
// Rejected jobs (Start < 0) are not counted.
func MeanQueue(outcomes []job.Outcome, from, to int64) float64 {
	if to <= from {
		return 0
	}
	var area float64
	for i := range outcomes {
		o := &outcomes[i]
		if o.Start < 0 {
			continue
		}
		a, b := max(o.Submit, from), min(o.Start, to)
		if b > a {
			area += float64(b - a)
		}
	}
	return area / float64(to-from)
}

// ArrivalSpan is the first and last submission time of the outcomes.
func ArrivalSpan(outcomes []job.Outcome) (first, last int64) {
	if len(outcomes) == 0 {
		return 0, 0
	}
	first, last = outcomes[0].Submit, outcomes[0].Submit
	for i := range outcomes {
		first = min(first, outcomes[i].Submit)
		last = max(last, outcomes[i].Submit)
	}
	return first, last
}

// KWeight is a job's weight on a K-resource machine of capacities caps
// (caps[0] processors): Σ_i Need(i)/caps[i], times the time it ran. It is
// Leinberger et al.'s "product of its resource requirement and execution
// time", with the K requirements normalized by the capacities and summed.
func KWeight(o *job.Outcome, caps []int) float64 {
	w := 0.0
	for i, c := range caps {
		w += float64(o.Need(i)) / float64(c)
	}
	return w * float64(o.Run())
}

// WeightedResponse is the weighted mean response time Σ w_j·resp_j / Σ w_j
// with w_j = KWeight. The paper averages w_j·resp_j over the jobs; ours
// divides by Σ w_j instead of N so that the result is in seconds. The two
// differ by the factor N/Σ w_j, the same for every policy on a workload,
// so figures normalized to a baseline policy are identical. Rejected jobs
// are not counted; 0 when the total weight is 0.
func WeightedResponse(outcomes []job.Outcome, caps []int) float64 {
	var num, den float64
	for i := range outcomes {
		o := &outcomes[i]
		if o.Start < 0 {
			continue
		}
		w := KWeight(o, caps)
		num += w * float64(o.Response())
		den += w
	}
	if den == 0 {
		return 0
	}
	return num / den
}
