package service

import (
	"context"
	"fmt"
	"slices"

	"github.com/backfill-hpc/backfill/internal/minheap"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// Replay drives a service that runs on the manual clock through a trace,
// as a resource manager would: it submits each job at its submit time,
// reports each job's end at start + runtime (a job that reaches its
// estimate is killed by the service itself), and moves the clock from
// event to event, running the pass of each instant after its ends and
// submissions — the simulator's order (sim.Run). admin must hold an admin
// token; the service must be fresh (its job ids are then 1..N in trace
// order). It returns one outcome per job, indexed like jobs, with the
// start and end the service decided and the guarantee it gave (Bound), or
// Rejected and its reason when admission control refused the job (jobs
// with a Deadline are submitted with it).
//
// With the same policy and machine size, the outcomes equal those of
// sim.Run in kill mode, job by job (TestServiceAgreesWithSimulator).
func Replay(ctx context.Context, admin *Client, jobs []job.Job) ([]job.Outcome, error) {
	return replay(ctx, admin, jobs, nil)
}

// replay is Replay; between, if set, is called before each instant t is
// driven (tests: it may restart the service) and returns the admin client
// to go on with.
func replay(ctx context.Context, admin *Client, jobs []job.Job, between func(t int64) *Client) ([]job.Outcome, error) {
	outs := make([]job.Outcome, len(jobs))
	for i := range jobs {
		outs[i] = job.Outcome{Job: jobs[i], Start: -1, End: -1, Bound: -1}
	}
	var ends minheap.Heap[int64, struct{}] // job ends on (time, trace index)
	started := func(r ClockResult) {
		for _, s := range r.Started {
			i := int(s.ID - 1)
			outs[i].Start = s.Start
			if j := jobs[i]; j.Runtime < j.Estimate {
				ends.Push(minheap.Item[int64, struct{}]{Key: s.Start + j.Runtime, ID: i})
			}
		}
	}
	next := 0
	if len(jobs) == 0 {
		return outs, nil
	}
	// one service user per trace user (runtime predictors group by user)
	users := map[int32]bool{}
	for _, j := range jobs {
		if !users[j.User] {
			users[j.User] = true
			if _, err := admin.CreateUser(ctx, UserRequest{Name: traceUser(j.User)}); err != nil && statusOf(err) != 409 {
				return nil, err
			}
		}
	}
	t := jobs[0].Submit
	for {
		if between != nil {
			admin = between(t)
		}
		r, err := admin.SetClock(ctx, t, false)
		if err != nil {
			return nil, err
		}
		if len(r.Started) > 0 {
			return nil, fmt.Errorf("replay: passes before %d started jobs the driver did not see", t)
		}
		for {
			// ends at t, in job order; then submissions at t; then the pass
			var batch []int
			for ends.Len() > 0 && ends.Min().Key == t {
				batch = append(batch, ends.Pop().ID)
			}
			slices.Sort(batch)
			for _, i := range batch {
				zero := 0
				if _, err := admin.End(ctx, int64(i+1), &zero); err != nil {
					return nil, fmt.Errorf("replay: end of job %d at %d: %w", i+1, t, err)
				}
			}
			for next < len(jobs) && jobs[next].Submit == t {
				j := &jobs[next]
				up, pp := j.UP, j.PP
				req := SubmitRequest{Procs: &j.Procs, Estimate: &j.Estimate, UserPriority: &up, PoliticalPriority: &pp, User: traceUser(j.User)}
				if j.Deadline != 0 {
					req.Deadline = &j.Deadline
				}
				v, err := admin.Submit(ctx, req)
				if err != nil {
					return nil, fmt.Errorf("replay: job %d: %w", j.SWFID, err)
				}
				if v.ID != int64(next+1) {
					return nil, fmt.Errorf("replay: job %d got id %d; the service was not fresh", j.SWFID, v.ID)
				}
				if v.GuaranteedStart != nil {
					outs[next].Bound = *v.GuaranteedStart
				}
				next++
			}
			r, err = admin.SetClock(ctx, t, true)
			if err != nil {
				return nil, err
			}
			started(r)
			if ends.Len() == 0 || ends.Min().Key != t {
				break // no job started at t ended at t
			}
		}
		nt := policy.NoWake
		if next < len(jobs) {
			nt = jobs[next].Submit
		}
		if ends.Len() > 0 {
			nt = min(nt, ends.Min().Key)
		}
		if r.Next != nil {
			nt = min(nt, *r.Next)
		}
		if nt == policy.NoWake {
			break
		}
		t = nt
	}
	l, err := admin.Jobs(ctx, "", "")
	if err != nil {
		return nil, err
	}
	if len(l.Jobs) != len(jobs) {
		return nil, fmt.Errorf("replay: the service has %d jobs, the trace %d", len(l.Jobs), len(jobs))
	}
	for _, v := range l.Jobs {
		i := int(v.ID - 1)
		if v.State == Rejected {
			outs[i].Rejected, outs[i].Reason = true, v.Reason
			continue
		}
		if v.Start == nil || v.End == nil {
			return nil, fmt.Errorf("replay: job %d is %s at the end", v.ID, v.State)
		}
		outs[i].Start, outs[i].End = *v.Start, *v.End
		outs[i].Killed = v.State == Timeout && jobs[i].Runtime > jobs[i].Estimate
	}
	return outs, nil
}

// traceUser is the service user standing for a trace's user number.
func traceUser(u int32) string {
	if u < 0 {
		return "trace-unknown"
	}
	return fmt.Sprintf("trace-%d", u)
}

func statusOf(err error) int {
	if e, ok := err.(*APIError); ok {
		return e.Status
	}
	return 0
}
