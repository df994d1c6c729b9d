// Package job defines the jobs that flow through backfill.
//
// It defines the jobs that flow through backfill: the Request a
// scheduler sees, the Job the simulator knows (the Request plus its actual
// runtime), and the Outcome of running it.
//
// The split is deliberate: policies receive *Request only, so a policy
// cannot read a job's actual runtime before the job ends. The same policy
// code therefore runs unchanged in the simulator and in a live service.
package job

// Request is everything a real scheduler knows about a job at submission.
type Request struct {
	// ID is a dense index 0..N-1 in submission order, assigned at ingestion.
	// Ties between otherwise equal jobs are always broken by ID.
	ID int
	// SWFID is the job number in the source trace (field 1 of SWF).
	SWFID int64
	// Submit is the submission time in seconds.
	Submit int64
	// Procs is the number of processors requested (≥ 1).
	Procs int
	// Estimate is the user's runtime estimate in seconds (≥ 1). In kill
	// mode the job is killed when it has run this long.
	Estimate int64
	// User, Group, Queue and Partition are the trace's identifiers (SWF
	// fields 12, 13, 15, 16); -1 when unknown.
	User, Group, Queue, Partition int32
	// UP and PP are the user and political priorities of Talby &
	// Feitelson §2.3, in [0, 1]; PP is -Inf when the user exceeded a quota.
	// Both are 0 unless a priority source sets them (workload.Priorities).
	UP, PP float64
	// Deadline is the absolute time (seconds, same clock as Submit) by which
	// the job must complete, for deadline scheduling with admission control
	// (Islam et al., QoPS); 0 means the job has no deadline.
	Deadline int64
	// Res is the job's total requirement of each resource beyond the
	// processors, for K-resource scheduling (Leinberger, Karypis & Kumar):
	// the job holds Procs processors and Res[i] units of resource i+1 for
	// its whole run. nil for ordinary single-resource jobs. Units are the
	// machine's (sim.Options.Res): for memory from an SWF trace, KB in
	// total (field 10, KB per processor, times Procs).
	Res []int
}

// Need is the job's requirement of resource i: Procs for i = 0, Res[i-1]
// beyond, 0 for a resource the job does not mention.
func (r *Request) Need(i int) int {
	if i == 0 {
		return r.Procs
	}
	if i-1 < len(r.Res) {
		return r.Res[i-1]
	}
	return 0
}

// Job is a Request together with what only the simulator knows.
type Job struct {
	Request
	// Runtime is the actual run time in seconds (≥ 0). Hidden from policies.
	Runtime int64
	// Line is the line of the source file the job came from (0 if generated).
	Line int
}

// Outcome is what happened to one job in a schedule.
type Outcome struct {
	Job
	// Start and End are the simulated start and end times.
	Start, End int64
	// Killed is true when the job was killed at its estimate before its
	// runtime was reached.
	Killed bool
	// Extension is the total run time granted beyond the estimate by the
	// policy (the tick strategy of Talby & Feitelson §4.7); 0 otherwise.
	// The job is killed at Start + Estimate + Extension.
	Extension int64
	// Bound is the upper bound on the start time that the policy promised
	// at submission (conservative backfilling's first reservation), or -1
	// when the policy promises none.
	Bound int64
	// Predicted is the runtime the policy first predicted for the job and
	// planned with instead of the estimate (package predict), or 0 when it
	// planned with the estimate. Corrections is the number of times that
	// prediction was corrected because the job was still running at its
	// predicted end.
	Predicted   int64
	Corrections int
	// Rejected is true when a policy with admission control (a
	// policy.Admitter) refused the job at submission; it never ran, and
	// Start and End are -1. Reason says why.
	Rejected bool
	Reason   string
	// NodeWait is the time between the policy's start of the job and its
	// launch on nodes: on a machine with node-level requests (package
	// machine, docs/simulator.md) a job the policy starts on counts may
	// have to wait until its nodes are free; Start is the launch. 0
	// otherwise.
	NodeWait int64
}

// Wait is the time from submission to start.
func (o *Outcome) Wait() int64 { return o.Start - o.Submit }

// Run is the time the job actually held its processors.
func (o *Outcome) Run() int64 { return o.End - o.Start }

// Response is the time from submission to end (wait + run).
func (o *Outcome) Response() int64 { return o.End - o.Submit }

// Tau is the bounded-slowdown threshold in seconds (Feitelson's slides: 10 s).
const Tau = 10

// BoundedSlowdown is max(1, (wait+run)/max(run, tau)).
func (o *Outcome) BoundedSlowdown(tau int64) float64 {
	run := o.Run()
	den := run
	if den < tau {
		den = tau
	}
	if den <= 0 {
		return 1
	}
	s := float64(o.Wait()+run) / float64(den)
	if s < 1 {
		return 1
	}
	return s
}
