package workload

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
)

// JobsHeader is the header of a workload written by WriteJobs.
type JobsHeader struct {
	// Computer and Installation describe the (synthetic) machine.
	Computer, Installation string
	// Procs is the machine size P, written as MaxProcs and MaxNodes.
	Procs int
	// Notes are written as "; Note:" entries (the model, its parameters,
	// the seed, the arrival process).
	Notes []string
}

// WriteJobs writes jobs that have not run yet (a workload, not a
// schedule) as SWF 2.2: "; Version: 2.2", Computer and Installation when
// given, MaxJobs, MaxRecords, MaxNodes and MaxProcs, the notes; then one
// line per job in slice order (which must be submission order): job
// number (SWFID, or ID+1 when SWFID ≤ 0), submit, wait -1, run time,
// allocated = requested processors = Procs, requested time = Estimate,
// status 1, user, group, executable (exec[i] when exec is not nil, else
// -1), queue, partition, and -1 elsewhere. Read back with the default
// options, every job comes back with the same submit, size, runtime and
// estimate (the user estimate is the requested time).
func WriteJobs(w io.Writer, h JobsHeader, jobs []job.Job, exec []int32) error {
	if exec != nil && len(exec) != len(jobs) {
		return fmt.Errorf("WriteJobs: %d executable numbers for %d jobs", len(exec), len(jobs))
	}
	bw := bufio.NewWriterSize(w, 64<<10)
	n := strconv.Itoa(len(jobs))
	writeKey(bw, "Version", "2.2")
	if h.Computer != "" {
		writeKey(bw, "Computer", h.Computer)
	}
	if h.Installation != "" {
		writeKey(bw, "Installation", h.Installation)
	}
	writeKey(bw, "MaxJobs", n)
	writeKey(bw, "MaxRecords", n)
	writeKey(bw, "MaxNodes", strconv.Itoa(h.Procs))
	writeKey(bw, "MaxProcs", strconv.Itoa(h.Procs))
	for _, c := range h.Notes {
		writeKey(bw, "Note", c)
	}
	var line []byte
	for i := range jobs {
		j := &jobs[i]
		if i > 0 && j.Submit < jobs[i-1].Submit {
			return fmt.Errorf("WriteJobs: job %d submitted at %d, before the previous job (%d)", i, j.Submit, jobs[i-1].Submit)
		}
		num := j.SWFID
		if num <= 0 {
			num = int64(j.ID) + 1
		}
		ex := int64(-1)
		if exec != nil {
			ex = int64(exec[i])
		}
		f := [18]int64{
			num, j.Submit, -1, j.Runtime, int64(j.Procs), -1, -1,
			int64(j.Procs), j.Estimate, -1, 1, int64(j.User), int64(j.Group), ex,
			int64(j.Queue), int64(j.Partition), -1, -1,
		}
		line = AppendSWFLine(line[:0], f)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// ScaleLoad changes the offered load of tr to target by scaling its
// inter-arrival times: every submit time becomes
// first + round((submit − first) · c) with c = (current load) / target,
// so the span is multiplied by c and the load divided by it; sizes,
// runtimes and estimates are unchanged, and so is the order of the jobs.
// This is the usual way to vary the load of a real trace (a smaller c
// packs the same jobs into less time). It records the transformation in
// tr.Rules and returns c. The offered load is that of Summarize:
// Σ size·runtime / (P · (last submit − first submit)).
func ScaleLoad(tr *Trace, target float64) (float64, error) {
	if !(target > 0) || math.IsInf(target, 0) {
		return 0, fmt.Errorf("target load must be a positive number, got %g", target)
	}
	in := Summarize(tr)
	if in.OfferedLoad <= 0 {
		return 0, fmt.Errorf("%s: cannot scale the load: the offered load is 0 (no span or no work)", tr.Name)
	}
	c := in.OfferedLoad / target
	ScaleArrivals(tr.Jobs, c)
	after := Summarize(tr).OfferedLoad
	tr.Rules = append(tr.Rules, fmt.Sprintf("load scaled: inter-arrival times multiplied by %.6g (offered load %.4f -> %.4f, target %g); sizes and runtimes unchanged", c, in.OfferedLoad, after, target))
	return c, nil
}

// ScaleArrivals multiplies the inter-arrival times of jobs (in submission
// order) by c > 0: submit = first + round((submit − first) · c). A
// deadline moves with its job's submit time.
func ScaleArrivals(jobs []job.Job, c float64) {
	if len(jobs) == 0 {
		return
	}
	first := jobs[0].Submit
	for i := range jobs {
		j := &jobs[i]
		s := first + int64(math.Round(float64(j.Submit-first)*c))
		if j.Deadline != 0 {
			j.Deadline += s - j.Submit // a deadline keeps its distance from the submission
		}
		j.Submit = s
	}
}
