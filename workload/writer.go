package workload

import (
	"bufio"
	"io"
	"sort"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
)

// WriteSchedule writes a simulated schedule as a valid SWF 2.2 file.
//
// The header has "; Version: 2.2", Computer and Installation copied from
// the trace header when known, "; MaxProcs: P", "; MaxJobs" and
// "; MaxRecords" (the number of outcomes), UnixStartTime copied when known,
// then each comment as "; Note: ...". A multi-line value continues on
// indented comment lines, which the Reader joins back with "\n"; blank
// lines within a value are dropped and surrounding spaces trimmed.
//
// Then comes one line per outcome, in job-ID order: job number = SWFID
// (ID+1 when SWFID ≤ 0), submit, wait = Start−Submit, run = End−Start,
// allocated = requested processors = Procs, requested time = Estimate,
// status 1 (completed) or 0 (killed; SWF's "failed"), user, group, queue
// and partition copied, requested memory (field 10) = the job's memory
// Res[0] per processor, rounded up, when it has one (Options.Mem), every
// other field -1. A job rejected at submission (admission control) has
// wait and run -1 and status 5 (SWF's "cancelled"). outcomes is not
// modified.
func WriteSchedule(w io.Writer, tr *Trace, outcomes []job.Outcome, comments []string) error {
	bw := bufio.NewWriterSize(w, 64<<10)
	hdr := emptyHeader()
	procs := 0
	if tr != nil {
		hdr, procs = tr.Header, tr.Procs
	}
	n := strconv.Itoa(len(outcomes))
	writeKey(bw, "Version", "2.2")
	if hdr.Computer != "" {
		writeKey(bw, "Computer", hdr.Computer)
	}
	if hdr.Installation != "" {
		writeKey(bw, "Installation", hdr.Installation)
	}
	writeKey(bw, "MaxProcs", strconv.Itoa(procs))
	writeKey(bw, "MaxJobs", n)
	writeKey(bw, "MaxRecords", n)
	if hdr.UnixStartTime >= 0 {
		writeKey(bw, "UnixStartTime", strconv.FormatInt(hdr.UnixStartTime, 10))
	}
	for _, c := range comments {
		writeKey(bw, "Note", c)
	}

	order := make([]int, len(outcomes))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return outcomes[order[a]].ID < outcomes[order[b]].ID })
	var line []byte
	for _, i := range order {
		o := &outcomes[i]
		num := o.SWFID
		if num <= 0 {
			num = int64(o.ID) + 1
		}
		status := int64(1)
		if o.Killed {
			status = 0
		}
		wait, run := o.Start-o.Submit, o.End-o.Start
		if o.Rejected {
			status, wait, run = 5, -1, -1
		}
		f := [18]int64{
			num, o.Submit, wait, run, int64(o.Procs), -1, -1,
			int64(o.Procs), o.Estimate, -1, status, int64(o.User), int64(o.Group), -1,
			int64(o.Queue), int64(o.Partition), -1, -1,
		}
		if len(o.Res) > 0 && o.Procs > 0 {
			// memory (Options.Mem): back to KB per processor, rounded up
			f[9] = (int64(o.Res[0]) + int64(o.Procs) - 1) / int64(o.Procs)
		}
		line = AppendSWFLine(line[:0], f)
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}

// writeKey writes "; Key: value", continuing a multi-line value on
// indented comment lines. Errors surface at Flush.
func writeKey(w *bufio.Writer, key, value string) {
	lines := strings.Split(value, "\n")
	w.WriteString("; " + key + ":")
	if first := strings.TrimRight(lines[0], "\r"); first != "" {
		w.WriteString(" " + first)
	}
	w.WriteByte('\n')
	for _, l := range lines[1:] {
		l = strings.TrimSpace(l)
		if l == "" {
			continue // a blank comment line would end the continuation
		}
		w.WriteString(";       " + l + "\n")
	}
}

// AppendSWFLine appends to dst the SWF data line of the 18 fields f:
// the numbers separated by one space, then a newline (the one line format
// of every SWF this tool writes).
func AppendSWFLine(dst []byte, f [18]int64) []byte {
	for k, v := range f {
		if k > 0 {
			dst = append(dst, ' ')
		}
		dst = strconv.AppendInt(dst, v, 10)
	}
	return append(dst, '\n')
}
