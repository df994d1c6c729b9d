package metrics

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
)

// Batsim final states written in the final_state column.
const (
	StateCompleted = "COMPLETED_SUCCESSFULLY"
	StateKilled    = "COMPLETED_KILLED"
	// StateRejected is the final state of a job refused at submission by
	// admission control (Batsim's REJECTED).
	StateRejected = "REJECTED"
)

// JobsCSVHeader returns the columns of WriteJobsCSV: Batsim's jobs.csv
// columns (job_id, workload_name, submission_time,
// requested_number_of_resources, requested_time, success, final_state,
// starting_time, execution_time, finish_time, waiting_time,
// turnaround_time, stretch, allocated_resources) followed by ours
// (runtime, estimate, bounded_slowdown, user, killed, bound).
func JobsCSVHeader() []string {
	return []string{
		"job_id", "workload_name", "submission_time", "requested_number_of_resources",
		"requested_time", "success", "final_state", "starting_time", "execution_time",
		"finish_time", "waiting_time", "turnaround_time", "stretch", "allocated_resources",
		"runtime", "estimate", "bounded_slowdown", "user", "killed", "bound",
	}
}

// WriteJobsCSV writes one line per outcome, in job-ID order, under the
// header JobsCSVHeader, in the layout of Batsim's jobs.csv so that evalys
// and other Batsim tools can read it:
//
//   - job_id is the SWF job number (Outcome.SWFID), workload_name is
//     workloadName;
//   - submission_time, starting_time and finish_time are Submit, Start and
//     End; requested_number_of_resources is Procs and requested_time the
//     Estimate;
//   - execution_time = End−Start, waiting_time = Start−Submit,
//     turnaround_time = End−Submit;
//   - success is 1 and final_state COMPLETED_SUCCESSFULLY for completed
//     jobs, 0 and COMPLETED_KILLED for jobs killed at their estimate;
//   - stretch = turnaround_time / execution_time with six decimals, empty
//     when execution_time is 0;
//   - allocated_resources is empty: the simulator counts processors; with
//     a machine (WriteJobsCSVAlloc) it holds the job's core ids in
//     Batsim's interval-set syntax, "0-3 8-11 15";
//   - runtime is the actual runtime, estimate the estimate again,
//     bounded_slowdown the bounded slowdown with threshold tau (≤ 0 means
//     job.Tau; six decimals), user the SWF user id (-1 if unknown),
//     killed 1 or 0, and bound the start-time bound the policy promised at
//     submission (Outcome.Bound: conservative backfilling's reservation),
//     empty when it promised none.
//
// A job rejected at submission (admission control) has success 0,
// final_state REJECTED and empty starting, execution, finish, waiting and
// turnaround times, stretch and bounded slowdown. When some job has a
// deadline or was rejected, two columns follow: deadline (the absolute
// deadline, empty when none) and reason (why the job was rejected).
//
// Each comment line (comments are split at newlines) is written first,
// prefixed by "# ": readers must skip lines starting with '#' (pandas:
// read_csv(..., comment='#')). Because such readers also cut lines at a
// '#' anywhere, a workloadName containing '#' is rejected.
func WriteJobsCSV(w io.Writer, outcomes []job.Outcome, workloadName string, tau int64, comments []string) error {
	return WriteJobsCSVAlloc(w, outcomes, workloadName, tau, comments, nil)
}

// WriteJobsCSVAlloc is WriteJobsCSV with allocated_resources filled by
// alloc(job ID) (package machine's Allocator.String) for every job that
// started; alloc nil leaves the column empty.
func WriteJobsCSVAlloc(w io.Writer, outcomes []job.Outcome, workloadName string, tau int64, comments []string, alloc func(id int) string) error {
	if strings.ContainsRune(workloadName, '#') {
		return fmt.Errorf("metrics: workload name %q contains '#', which comment-skipping CSV readers would cut", workloadName)
	}
	if tau <= 0 {
		tau = job.Tau
	}
	bw := bufio.NewWriter(w)
	for _, c := range comments {
		for _, line := range strings.Split(strings.ReplaceAll(c, "\r\n", "\n"), "\n") {
			bw.WriteString(strings.TrimRight("# "+line, " \r") + "\n")
		}
	}

	order := make([]int, len(outcomes))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(x, y int) int {
		return cmp.Compare(outcomes[x].ID, outcomes[y].ID)
	})

	cw := csv.NewWriter(bw)
	dl := false
	for i := range outcomes {
		dl = dl || outcomes[i].Deadline > 0 || outcomes[i].Rejected
	}
	head := JobsCSVHeader()
	if dl {
		head = append(head, "deadline", "reason")
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	b01 := func(b bool) string {
		if b {
			return "1"
		}
		return "0"
	}
	six := func(x float64) string { return strconv.FormatFloat(x, 'f', 6, 64) }
	for _, i := range order {
		o := &outcomes[i]
		state := StateCompleted
		if o.Killed {
			state = StateKilled
		}
		exec := o.Run()
		stretch := ""
		if exec != 0 {
			stretch = six(float64(o.Response()) / float64(exec))
		}
		bound := ""
		if o.Bound >= 0 {
			bound = i64(o.Bound)
		}
		rec := []string{
			i64(o.SWFID), workloadName, i64(o.Submit), itoa(o.Procs),
			i64(o.Estimate), b01(!o.Killed), state, i64(o.Start), i64(exec),
			i64(o.End), i64(o.Wait()), i64(o.Response()), stretch, "",
			i64(o.Runtime), i64(o.Estimate), six(o.BoundedSlowdown(tau)),
			i64(int64(o.User)), b01(o.Killed), bound,
		}
		if alloc != nil && o.Start >= 0 && !o.Rejected {
			rec[13] = alloc(o.ID)
		}
		if o.Rejected {
			rec[5], rec[6] = "0", StateRejected
			for _, k := range []int{7, 8, 9, 10, 11, 12, 16} {
				rec[k] = ""
			}
		}
		if dl {
			d := ""
			if o.Deadline > 0 {
				d = i64(o.Deadline)
			}
			rec = append(rec, d, o.Reason)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	if err := cw.Error(); err != nil {
		return err
	}
	return bw.Flush()
}
