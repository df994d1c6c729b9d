package workload

import (
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/backfill-hpc/backfill/job"
)

// ErrNoMachineSize is ReadSchedule's error when neither the caller nor the
// schedule's header gives the machine size.
var ErrNoMachineSize = errors.New("no MaxProcs or MaxNodes in the header")

// ReadSchedule reads the SWF schedule in the file at path (plain or gzip;
// ours or another simulator's) into outcomes, for an audit: start =
// submit + wait, end = start + run time, size = allocated processors,
// else requested; a job without a requested time gets an estimate that
// nothing exceeds; status 0 (failed) counts as killed. Records whose
// submit, wait, run time or size is unknown cannot be placed in time:
// they are counted in skipped, not returned. procs ≤ 0 takes the machine
// size from the header's MaxProcs, else MaxNodes (else an error wrapping
// ErrNoMachineSize); lenient counts malformed lines instead of failing
// (NewReader).
func ReadSchedule(path string, procs int, lenient bool) (outs []job.Outcome, P int, skipped Counts, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, skipped, err
	}
	defer fh.Close()
	rd, err := NewReader(fh, path, lenient)
	if err != nil {
		return nil, 0, skipped, err
	}
	for {
		rec, err := rd.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, 0, skipped, err
		}
		if why := unplaceable(rec); why != "" {
			skipped.Add(why, 1)
			continue
		}
		outs = append(outs, scheduledOutcome(rec, len(outs)))
	}
	if procs <= 0 {
		h := rd.Header()
		switch {
		case h.MaxProcs > 0:
			procs = int(h.MaxProcs)
		case h.MaxNodes > 0:
			procs = int(h.MaxNodes)
		default:
			return nil, 0, skipped, fmt.Errorf("%s: %w", path, ErrNoMachineSize)
		}
	}
	return outs, procs, skipped, nil
}

// scheduleSize is a schedule record's size: allocated, else requested
// processors.
func scheduleSize(rec Record) int64 {
	if rec.AllocProcs > 0 {
		return rec.AllocProcs
	}
	return rec.ReqProcs
}

// unplaceable is why a schedule record cannot be placed in time, "" when
// it can.
func unplaceable(rec Record) string {
	switch {
	case rec.Submit < 0:
		return "submit time unknown"
	case rec.Wait < 0:
		return "wait time unknown"
	case rec.Run < 0:
		return "run time unknown"
	case scheduleSize(rec) <= 0:
		return "size unknown"
	}
	return ""
}

// scheduledOutcome is the outcome of a placeable schedule record, with
// job ID id.
func scheduledOutcome(rec Record, id int) job.Outcome {
	est := rec.ReqTime
	if est <= 0 {
		est = 1<<62 - 1 // no requested time: nothing to check against
	}
	start := rec.Submit + rec.Wait
	return job.Outcome{
		Job: job.Job{Request: job.Request{ID: id, SWFID: rec.JobNumber, Submit: rec.Submit,
			Procs: int(scheduleSize(rec)), Estimate: est}, Runtime: rec.Run, Line: rec.Line},
		Start: start, End: start + rec.Run, Killed: rec.Status == 0, Bound: -1,
	}
}
