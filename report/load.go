package report

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
)

// LoadJobsCSV reads one schedule from a per-job CSV: ours (written by
// metrics.WriteJobsCSV, with simulate's provenance in '#' comment lines)
// or any CSV with Batsim's jobs.csv columns. Columns are found by name:
// job_id, submission_time, requested_number_of_resources, starting_time
// and finish_time are required; requested_time (the estimate; default the
// execution time), runtime (default the execution time), user (default
// -1), killed (default: final_state is COMPLETED_KILLED) and bound
// (default none) are optional. Jobs get IDs 0, 1, … in file order.
//
// The machine size is opt.Procs if set, else the "machine: N processors"
// comment; without either, it is an error. The summary is recomputed from
// the outcomes with the τ, warm-up and drain named in the comments.
func LoadJobsCSV(path string, opt LoadOptions) (*Run, error) {
	fh, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	run, err := readJobsCSV(fh, path, opt)
	if err != nil {
		return nil, err
	}
	return run, nil
}

func readJobsCSV(r io.Reader, path string, opt LoadOptions) (*Run, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	run := &Run{Source: path, Procs: opt.Procs}
	line := 0
	// comment lines
	for {
		b, err := br.Peek(1)
		if err != nil || b[0] != '#' {
			break
		}
		s, err := br.ReadString('\n')
		line++
		c := strings.TrimSpace(strings.TrimPrefix(strings.TrimRight(s, "\r\n"), "#"))
		if c != "" {
			run.Header = append(run.Header, c)
		}
		if err != nil {
			break
		}
	}
	if err := run.readHeader(path); err != nil {
		return nil, err
	}
	if run.Procs <= 0 {
		return nil, fmt.Errorf("%s: machine size unknown: no \"# machine: N processors\" comment; give it with --procs", path)
	}
	cr := csv.NewReader(br)
	cr.ReuseRecord = true
	cr.FieldsPerRecord = -1
	head, err := cr.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:%d: expected the CSV header line, found the end of the file", path, line+1)
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	line++
	col := map[string]int{}
	for i, h := range head {
		col[strings.TrimSpace(h)] = i
	}
	need := func(name string) (int, error) {
		i, ok := col[name]
		if !ok {
			return 0, fmt.Errorf("%s:%d: expected a %q column in the header (Batsim jobs.csv columns)", path, line, name)
		}
		return i, nil
	}
	opt2 := func(name string) int {
		if i, ok := col[name]; ok {
			return i
		}
		return -1
	}
	var cID, cSub, cProcs, cStart, cEnd int
	for _, p := range []struct {
		dst  *int
		name string
	}{{&cID, "job_id"}, {&cSub, "submission_time"}, {&cProcs, "requested_number_of_resources"}, {&cStart, "starting_time"}, {&cEnd, "finish_time"}} {
		if *p.dst, err = need(p.name); err != nil {
			return nil, err
		}
	}
	cEst, cRun, cUser, cKilled, cState, cBound := opt2("requested_time"), opt2("runtime"), opt2("user"), opt2("killed"), opt2("final_state"), opt2("bound")
	cAlloc := opt2("allocated_resources")
	var alloc []string
	anyAlloc := false

	outs := make([]job.Outcome, 0, 1024)
	for {
		rec, err := cr.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		line++
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(rec) != len(head) {
			return nil, fmt.Errorf("%s:%d: expected %d fields as in the header, found %d", path, line, len(head), len(rec))
		}
		bad := func(name string, i int) error {
			return fmt.Errorf("%s:%d: %s: expected an integer, found %q", path, line, name, rec[i])
		}
		num := func(i int, name string) (int64, error) {
			v, err := strconv.ParseInt(rec[i], 10, 64)
			if err != nil {
				return 0, bad(name, i)
			}
			return v, nil
		}
		var o job.Outcome
		o.ID = len(outs)
		o.Group, o.Queue, o.Partition, o.User = -1, -1, -1, -1
		o.Bound = -1
		var procs int64
		for _, f := range []struct {
			dst  *int64
			i    int
			name string
		}{{&o.SWFID, cID, "job_id"}, {&o.Submit, cSub, "submission_time"}, {&procs, cProcs, "requested_number_of_resources"}, {&o.Start, cStart, "starting_time"}, {&o.End, cEnd, "finish_time"}} {
			if *f.dst, err = num(f.i, f.name); err != nil {
				return nil, err
			}
		}
		if procs < 1 || procs > int64(run.Procs) {
			return nil, fmt.Errorf("%s:%d: requested_number_of_resources: expected a size in 1..%d (the machine size), found %d", path, line, run.Procs, procs)
		}
		o.Procs = int(procs)
		exec := o.End - o.Start
		if o.Start < 0 {
			o.Rejected, exec = true, 0
		} else if exec < 0 {
			return nil, fmt.Errorf("%s:%d: finish_time %d is before starting_time %d", path, line, o.End, o.Start)
		}
		o.Estimate, o.Runtime = exec, exec
		if cEst >= 0 && rec[cEst] != "" {
			if o.Estimate, err = num(cEst, "requested_time"); err != nil {
				// Batsim writes walltimes as floats
				f, ferr := strconv.ParseFloat(rec[cEst], 64)
				if ferr != nil {
					return nil, err
				}
				o.Estimate = int64(f)
			}
		}
		if cRun >= 0 && rec[cRun] != "" {
			if o.Runtime, err = num(cRun, "runtime"); err != nil {
				return nil, err
			}
		}
		if cUser >= 0 && rec[cUser] != "" {
			u, err := num(cUser, "user")
			if err != nil {
				return nil, err
			}
			o.User = int32(u)
		}
		switch {
		case cKilled >= 0:
			o.Killed = rec[cKilled] == "1"
		case cState >= 0:
			o.Killed = rec[cState] == metrics.StateKilled
		}
		if cBound >= 0 && rec[cBound] != "" {
			if o.Bound, err = num(cBound, "bound"); err != nil {
				return nil, err
			}
		}
		outs = append(outs, o)
		if cAlloc >= 0 {
			a := strings.TrimSpace(rec[cAlloc])
			anyAlloc = anyAlloc || a != ""
			alloc = append(alloc, a)
		}
	}
	run.Outcomes = outs
	if anyAlloc {
		run.Alloc = alloc
	}
	run.Summary = metrics.Summarize(outs, run.Opt)
	run.SetAxes()
	return run, nil
}

// readHeader takes the run's label, trace, machine size and metric options
// from simulate's provenance comments.
func (r *Run) readHeader(path string) error {
	r.Opt.Tau = job.Tau
	for _, h := range r.Header {
		k, v, ok := strings.Cut(h, ": ")
		if !ok {
			continue
		}
		switch k {
		case "policy":
			if r.Label == "" {
				r.Label = v
			}
		case "trace":
			if r.Trace == "" {
				r.Trace = v
			}
		case "machine":
			var n int
			if _, err := fmt.Sscanf(v, "%d processors", &n); err == nil && r.Procs <= 0 {
				r.Procs = n
			}
		case "bounded slowdown tau":
			var n int64
			if _, err := fmt.Sscanf(v, "%d s", &n); err == nil {
				r.Opt.Tau = n
			}
		}
		var w, d int64
		if _, err := fmt.Sscanf(h, "averages exclude jobs submitted in the first %d s and the last %d s", &w, &d); err == nil {
			r.Opt.WarmUp, r.Opt.Drain = w, d
		}
	}
	if r.Label == "" {
		r.Label = strings.TrimSuffix(strings.TrimSuffix(filepath.Base(path), ".csv"), ".jobs")
	}
	r.Policy, r.Params = SplitSpec(r.Label)
	r.Opt.Procs = r.Procs
	return nil
}

// LoadSimulateDir reads a directory written by `backfill simulate --out`:
// every NAME.jobs.csv, in the order of the policies in summary.json (file
// name order without it). A policy listed in summary.json without its
// jobs.csv is an error.
func LoadSimulateDir(dir string, opt LoadOptions) (*Results, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.jobs.csv"))
	if err != nil {
		return nil, err
	}
	res := &Results{Kind: "simulate", Path: dir}
	byLabel := map[string]*Run{}
	for _, f := range files { // Glob sorts by name
		run, err := LoadJobsCSV(f, opt)
		if err != nil {
			return nil, err
		}
		res.Runs = append(res.Runs, run)
		byLabel[run.Label] = run
	}
	sj := filepath.Join(dir, "summary.json")
	if b, err := os.ReadFile(sj); err == nil {
		var env struct {
			Trace   string `json:"trace"`
			Procs   int    `json:"procs"`
			Results []struct {
				Policy string `json:"policy"`
			} `json:"results"`
		}
		if err := json.Unmarshal(b, &env); err != nil {
			return nil, fmt.Errorf("%s: %w", sj, err)
		}
		ordered := make([]*Run, 0, len(res.Runs))
		used := map[*Run]bool{}
		for _, p := range env.Results {
			run, ok := byLabel[p.Policy]
			if !ok {
				return nil, fmt.Errorf("%s lists policy %q but %s has no jobs.csv for it", sj, p.Policy, dir)
			}
			ordered = append(ordered, run)
			used[run] = true
		}
		for _, run := range res.Runs {
			if !used[run] {
				res.Warnings = append(res.Warnings, fmt.Sprintf("%s is not listed in %s; shown last", run.Source, sj))
				ordered = append(ordered, run)
			}
		}
		res.Runs = ordered
	}
	if len(res.Runs) == 0 {
		return nil, fmt.Errorf("%s: no *.jobs.csv files (written by backfill simulate --out)", dir)
	}
	uniqueLabels(res.Runs)
	return res, nil
}
