package audit

import (
	"encoding/json"
	"fmt"
	"io"

	"github.com/backfill-hpc/backfill/workload"
)

// FileCheck is the audit of a schedule file, as `backfill check` reports
// it: the file, its jobs and machine size, the records not checked and
// the report.
type FileCheck struct {
	File        string
	Jobs, Procs int
	Skipped     workload.Counts
	Report      Report
	// Limit is how many violations of each kind the report lists
	// (Options.Limit).
	Limit int
}

// CheckFile reads the SWF schedule in file (workload.ReadSchedule: procs
// 0 takes the machine size from its header; lenient counts malformed
// lines) and audits it with opt, whose Procs it sets.
func CheckFile(file string, procs int, lenient bool, opt Options) (*FileCheck, error) {
	outs, p, skipped, err := workload.ReadSchedule(file, procs, lenient)
	if err != nil {
		return nil, err
	}
	opt.Procs = p
	return &FileCheck{File: file, Jobs: len(outs), Procs: p, Skipped: skipped, Report: Audit(outs, opt), Limit: opt.Limit}, nil
}

// Write writes c in format: table (the file's line, the listed violations
// and, when there are any, the summary by kind), json (the counts and the
// listed violations, with the tool's version) or csv (the listed
// violations).
func (c *FileCheck) Write(w io.Writer, format, version string) error {
	rep := &c.Report
	switch format {
	case "json":
		counts := rep.Counts
		if counts == nil {
			counts = map[string]int{}
		}
		b, err := json.MarshalIndent(map[string]any{"version": version, "file": c.File, "jobs": c.Jobs, "procs": c.Procs,
			"not_checked": c.Skipped.Total(), "ok": rep.OK(), "violations_total": rep.Total(), "counts": counts,
			"listed_per_kind": c.Limit, "violations": rep.Listed()}, "", "  ")
		if err != nil {
			return err
		}
		_, err = w.Write(append(b, '\n'))
		return err
	case "csv":
		return rep.WriteCSV(w)
	}
	fmt.Fprintf(w, "%s: %d jobs on %d processors", c.File, c.Jobs, c.Procs)
	if c.Skipped.Total() > 0 {
		fmt.Fprintf(w, "; not checked: %s", c.Skipped.String())
	}
	fmt.Fprintln(w)
	if err := rep.Write(w); err != nil {
		return err
	}
	if !rep.OK() {
		_, err := fmt.Fprintf(w, "summary: %s\n", rep.Summary())
		return err
	}
	return nil
}
