package metrics

import (
	"github.com/backfill-hpc/backfill/job"
)

// AdmissionStats report admission control and deadlines (deadline
// scheduling with QoPS, MSB or MRT; Islam et al. §5), for the metrics the
// paper uses: unadmitted jobs and processor-seconds, achieved utilization
// (Summary.Utilization, which counts admitted jobs only since rejected
// ones never run), and the response and slowdown of the jobs without a
// deadline. A job "has a deadline" when its Request.Deadline > 0; jobs
// without one are the non-deadline jobs (a deadline policy gives them an
// artificial deadline internally, which the outcomes do not show).
//
// The admission counts cover every job offered (warm-up and drain do not
// apply: a rejected job has no wait to measure); the Stats cover the
// measured admitted jobs, like Summary.All.
type AdmissionStats struct {
	// Jobs is the number of jobs offered (all outcomes) and DeadlineJobs
	// those with a deadline.
	Jobs         int `json:"jobs"`
	DeadlineJobs int `json:"deadline_jobs"`
	// Rejected is the number of jobs rejected at submission, and
	// RejectedDeadline those of them with a deadline.
	Rejected         int `json:"rejected"`
	RejectedDeadline int `json:"rejected_deadline"`
	// Unadmitted is Rejected / Jobs and UnadmittedWork the rejected share
	// of the offered processor-seconds, Σ Procs·Runtime over rejected jobs
	// / the same sum over all jobs (fractions: 0.1 = 10 %).
	Unadmitted     float64 `json:"unadmitted"`
	UnadmittedWork float64 `json:"unadmitted_work"`
	// UnadmittedDeadline and UnadmittedDeadlineWork are the same over the
	// jobs with a deadline only (the paper's "unadmitted jobs" in its mixed
	// experiments); 0 when there is none.
	UnadmittedDeadline     float64 `json:"unadmitted_deadline"`
	UnadmittedDeadlineWork float64 `json:"unadmitted_deadline_work"`
	// Misses is the number of admitted jobs with a deadline that ended
	// after it (whatever the cause; the auditor tells policy bugs from
	// overruns).
	Misses int `json:"misses"`
	// Deadline and NonDeadline are the Stats of the measured admitted jobs
	// with and without a deadline.
	Deadline    Stats `json:"deadline"`
	NonDeadline Stats `json:"non_deadline"`
}

// Admission computes the AdmissionStats of outcomes, or nil when no job
// has a deadline and none was rejected.
func Admission(outcomes []job.Outcome, opt Options) *AdmissionStats {
	var a AdmissionStats
	var work, rejWork, dlWork, dlRejWork float64
	for i := range outcomes {
		o := &outcomes[i]
		w := float64(o.Procs) * float64(o.Runtime)
		a.Jobs++
		work += w
		dl := o.Deadline > 0
		if dl {
			a.DeadlineJobs++
			dlWork += w
		}
		if o.Rejected {
			a.Rejected++
			rejWork += w
			if dl {
				a.RejectedDeadline++
				dlRejWork += w
			}
			continue
		}
		if dl && o.End > o.Deadline {
			a.Misses++
		}
	}
	if a.DeadlineJobs == 0 && a.Rejected == 0 {
		return nil
	}
	frac := func(x, y float64) float64 {
		if y == 0 {
			return 0
		}
		return x / y
	}
	a.Unadmitted = frac(float64(a.Rejected), float64(a.Jobs))
	a.UnadmittedWork = frac(rejWork, work)
	a.UnadmittedDeadline = frac(float64(a.RejectedDeadline), float64(a.DeadlineJobs))
	a.UnadmittedDeadlineWork = frac(dlRejWork, dlWork)
	tau := opt.Tau
	if tau <= 0 {
		tau = job.Tau
	}
	var dl, nd acc
	for _, i := range measured(outcomes, opt) {
		o := &outcomes[i]
		if o.Deadline > 0 {
			dl.add(o, tau)
		} else {
			nd.add(o, tau)
		}
	}
	a.Deadline, a.NonDeadline = dl.stats(), nd.stats()
	return &a
}
