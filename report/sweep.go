package report

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/internal/parquet"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
)

// The loader of the experiment workbench's results directory (`backfill
// sweep`, docs/workbench.md). It reads the directory's documented files, not
// the experiment package: plan.json (the runs in plan order), for each run
// runs/ID/result.json (status, workload, summary) and runs/ID/jobs.parquet
// (one row per job).

// sweepPlan is plan.json.
type sweepPlan struct {
	Experiment string `json:"experiment"`
	Runs       []struct {
		Index  int                        `json:"index"`
		ID     string                     `json:"id"`
		Label  string                     `json:"label"`
		Config map[string]json.RawMessage `json:"config"`
	} `json:"runs"`
}

// sweepResult is the part of result.json the report reads.
type sweepResult struct {
	Status   string `json:"status"`
	Error    string `json:"error"`
	Policy   string `json:"policy"`
	Workload *struct {
		Name        string   `json:"name"`
		Procs       int      `json:"procs"`
		Jobs        int      `json:"jobs"`
		OfferedLoad float64  `json:"offered_load"`
		Rules       []string `json:"rules"`
	} `json:"workload"`
	Summary *metrics.Summary `json:"summary"`
}

// sweepJob is a row of jobs.parquet (the columns the report reads).
type sweepJob struct {
	JobID     int64 `parquet:"job_id"`
	ID        int64 `parquet:"id"`
	Submit    int64 `parquet:"submit"`
	Procs     int64 `parquet:"procs"`
	Estimate  int64 `parquet:"estimate"`
	Runtime   int64 `parquet:"runtime"`
	User      int32 `parquet:"user"`
	Group     int32 `parquet:"group"`
	Queue     int32 `parquet:"queue"`
	Partition int32 `parquet:"partition"`
	Start     int64 `parquet:"start"`
	End       int64 `parquet:"end"`
	Killed    bool  `parquet:"killed"`
	Bound     int64 `parquet:"bound"`
	Predicted int64 `parquet:"predicted"`
	Corr      int64 `parquet:"corrections"`
	Extension int64 `parquet:"extension"`
	Rejected  bool  `parquet:"rejected"`
}

// DefaultMaxSweepJobs bounds the per-job outcomes a sweep's report reads
// (one run in memory at a time, so this bounds the time, about 1 CPU-second
// per million jobs, not the memory).
const DefaultMaxSweepJobs = 5_000_000

// isSweepDir reports whether dir looks like a workbench results directory.
func isSweepDir(dir string) bool {
	if _, err := os.Stat(filepath.Join(dir, "plan.json")); err != nil {
		return false
	}
	st, err := os.Stat(filepath.Join(dir, "runs"))
	return err == nil && st.IsDir()
}

// LoadSweepDir reads a results directory of `backfill sweep`: every run of
// plan.json that finished ok, in plan order, with its summary (result.json,
// exact) and, while their jobs add up to at most opt.MaxJobs (default
// DefaultMaxSweepJobs), its per-job outcomes (jobs.parquet); later runs
// keep only their summary (no Gantt chart, CDF or curves over time), with a
// warning. Runs not done yet and failed runs are left out, with a warning.
//
// A run's coordinates (Axes) are the configuration fields that vary among
// the runs (workload label, month, subset, estimate model, load,
// priorities, seed, kill, machine size, model, …); "load" is the target
// load of the configuration, or the achieved offered load (3 decimals) for
// runs at the workload's own load. Its label is the policy spec followed by
// its coordinates.
func LoadSweepDir(dir string, opt LoadOptions) (*Results, error) {
	planPath := filepath.Join(dir, "plan.json")
	b, err := os.ReadFile(planPath)
	if err != nil {
		return nil, err
	}
	var plan sweepPlan
	if err := json.Unmarshal(b, &plan); err != nil {
		return nil, fmt.Errorf("%s: %w", planPath, err)
	}
	maxJobs := opt.MaxJobs
	if maxJobs <= 0 {
		maxJobs = DefaultMaxSweepJobs
	}
	res := &Results{Kind: "sweep", Path: dir}
	var missing, failed []string
	type item struct {
		run    *Run
		coords map[string]string
	}
	var items []item
	jobs, skippedJobs, skippedRuns := 0, 0, 0
	for _, pr := range plan.Runs {
		rdir := filepath.Join(dir, "runs", pr.ID)
		rb, err := os.ReadFile(filepath.Join(rdir, "result.json"))
		if os.IsNotExist(err) {
			missing = append(missing, pr.ID)
			continue
		}
		if err != nil {
			return nil, err
		}
		var r sweepResult
		if err := json.Unmarshal(rb, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(rdir, "result.json"), err)
		}
		if r.Status != "ok" || r.Summary == nil || r.Workload == nil {
			failed = append(failed, pr.ID+": "+r.Error)
			continue
		}
		coords, spec, opts := sweepCoords(pr.Label, pr.Config, r.Workload.OfferedLoad)
		opts.Procs = r.Workload.Procs
		run := &Run{Trace: r.Workload.Name, Procs: r.Workload.Procs, Opt: opts,
			Summary: *r.Summary, Source: rdir}
		run.Policy, run.Params = SplitSpec(spec)
		run.Label = spec
		run.Header = append([]string{"policy: " + spec, "run: " + pr.ID + " (" + plan.Experiment + ")"}, prefixed("rule: ", r.Workload.Rules)...)
		if jobs+r.Workload.Jobs <= maxJobs {
			// read on demand (Build holds one run's jobs at a time); the
			// footer now, so that a broken file fails here
			path := filepath.Join(rdir, "jobs.parquet")
			n, err := sweepJobRows(path)
			if err != nil {
				return nil, err
			}
			run.lazy = func(full bool) ([]job.Outcome, error) { return readSweepJobs(path, full) }
			run.lazyJobs = n
			jobs += n
		} else {
			skippedRuns++
			skippedJobs += r.Workload.Jobs
		}
		items = append(items, item{run, coords})
	}
	// coordinates that vary among the runs
	vary := map[string]bool{}
	for _, it := range items {
		for k, v := range it.coords {
			if v != items[0].coords[k] {
				vary[k] = true
			}
		}
		for k := range items[0].coords {
			if _, ok := it.coords[k]; !ok {
				vary[k] = true
			}
		}
	}
	// the trace file says nothing the workload's name does not, when each
	// workload has one trace: left out of the labels
	if vary["trace"] && vary["workload"] {
		traceOf, functional := map[string]string{}, true
		for _, it := range items {
			w, tr := it.coords["workload"], it.coords["trace"]
			if prev, ok := traceOf[w]; ok && prev != tr {
				functional = false
			}
			traceOf[w] = tr
		}
		if functional {
			delete(vary, "trace")
		}
	}
	for _, it := range items {
		var names []string
		for k := range vary {
			names = append(names, k)
		}
		slices.Sort(names)
		label := it.run.Label
		for _, k := range names {
			v, ok := it.coords[k]
			if !ok {
				continue
			}
			it.run.Axes = append(it.run.Axes, KV{k, v})
			label += " " + k + "=" + v
		}
		it.run.Label = label
		res.Runs = append(res.Runs, it.run)
	}
	if len(missing) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d of the %d runs of the plan have no result yet (sweep in progress or not collected), e.g. %s", len(missing), len(plan.Runs), missing[0]))
	}
	if len(failed) > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("%d runs failed and are left out, e.g. %s", len(failed), failed[0]))
	}
	if skippedRuns > 0 {
		res.Warnings = append(res.Warnings, fmt.Sprintf("per-job outcomes of %d runs (%d jobs) not read: over %d jobs in all; these runs show their summary only", skippedRuns, skippedJobs, maxJobs))
	}
	if len(res.Runs) == 0 {
		return nil, fmt.Errorf("%s: no finished run (of %d planned)", dir, len(plan.Runs))
	}
	uniqueLabels(res.Runs)
	return res, nil
}

func prefixed(p string, s []string) []string {
	out := make([]string, len(s))
	for i, x := range s {
		out[i] = p + x
	}
	return out
}

// sweepCoords turns a run's configuration into coordinates (strings), its
// policy spec and its metric options.
func sweepCoords(label string, cfg map[string]json.RawMessage, offered float64) (map[string]string, string, metrics.Options) {
	coords := map[string]string{"workload": label}
	var opts metrics.Options
	var spec string
	for k, raw := range cfg {
		var v any
		if json.Unmarshal(raw, &v) != nil {
			continue
		}
		switch k {
		case "policy":
			spec, _ = v.(string)
		case "tau", "warmup", "drain":
			f, _ := v.(float64)
			switch k {
			case "tau":
				opts.Tau = int64(f)
			case "warmup":
				opts.WarmUp = int64(f)
			default:
				opts.Drain = int64(f)
			}
		case "format", "estimate_fallback", "clamp", "lenient", "priorities_sha256":
			// not experiment coordinates
		case "trace":
			if m, ok := v.(map[string]any); ok {
				if f, ok := m["file"].(string); ok {
					coords["trace"] = f
				}
			}
		default:
			switch x := v.(type) {
			case nil:
			case string:
				if x != "" {
					coords[k] = x
				}
			case float64:
				coords[k] = strconv.FormatFloat(x, 'g', -1, 64)
			case bool:
				coords[k] = strconv.FormatBool(x)
			default:
				b, _ := json.Marshal(x)
				coords[k] = string(b)
			}
		}
	}
	if l, ok := coords["load"]; !ok || l == "0" {
		coords["load"] = strconv.FormatFloat(offered, 'f', 3, 64)
	}
	if coords["seed"] == "0" {
		delete(coords, "seed") // the run draws nothing at random
	}
	if opts.Tau <= 0 {
		opts.Tau = job.Tau
	}
	return coords, strings.TrimSpace(spec), opts
}

// sweepJobRows opens a jobs.parquet file's footer and returns its number of
// rows.
func sweepJobRows(path string) (int, error) {
	pf, closeFile, err := parquet.OpenFile(path)
	if err != nil {
		return 0, err
	}
	defer closeFile()
	return int(pf.Rows), nil
}

// readSweepJobs reads a jobs.parquet file into outcomes, in job-ID order:
// every column with full, else only those of sweepJobStats.
func readSweepJobs(path string, full bool) ([]job.Outcome, error) {
	if !full {
		outs, err := statColumns(path)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return outs, nil
	}
	rows, err := parquet.ReadFile[sweepJob](path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	outs := make([]job.Outcome, len(rows))
	for i, r := range rows {
		if r.ID != int64(i) {
			return nil, fmt.Errorf("%s: row %d: expected job id %d, found %d", path, i, i, r.ID)
		}
		if r.Procs < 1 || r.Procs > 1<<30 {
			return nil, fmt.Errorf("%s: row %d: procs %d out of range", path, i, r.Procs)
		}
		outs[i] = job.Outcome{
			Job: job.Job{Request: job.Request{ID: i, SWFID: r.JobID, Submit: r.Submit, Procs: int(r.Procs), Estimate: r.Estimate,
				User: r.User, Group: r.Group, Queue: r.Queue, Partition: r.Partition}, Runtime: r.Runtime},
			Start: r.Start, End: r.End, Killed: r.Killed, Extension: r.Extension, Bound: r.Bound,
			Predicted: r.Predicted, Corrections: int(r.Corr), Rejected: r.Rejected,
		}
	}
	return outs, nil
}

// statColumns reads the columns the statistics need (sweepJobStats) from
// the parquet file at path, column by column: much less work than
// decoding whole rows.
func statColumns(path string) ([]job.Outcome, error) {
	pf, closeFile, err := parquet.OpenFile(path)
	if err != nil {
		return nil, err
	}
	defer closeFile()
	n := int(pf.Rows)
	ints := map[string][]int64{}
	bools := map[string][]bool{}
	for _, name := range []string{"id", "submit", "procs", "estimate", "runtime", "start", "end", "killed", "rejected"} {
		i, ok := pf.Lookup(name)
		if !ok {
			return nil, fmt.Errorf("no column %q", name)
		}
		if pf.Schema[i].Optional {
			return nil, fmt.Errorf("column %q is optional, expected required", name)
		}
		isBool := name == "killed" || name == "rejected"
		want := parquet.Int64
		if isBool {
			want = parquet.Bool
		}
		if pf.Schema[i].Type != want {
			return nil, fmt.Errorf("column %s: %v, expected %v", name, pf.Schema[i].Type, want)
		}
		c, err := pf.ReadColumn(i)
		if err != nil {
			return nil, err
		}
		if c.Len() != n {
			return nil, fmt.Errorf("column %s: %d values for %d rows", name, c.Len(), n)
		}
		if isBool {
			bools[name] = c.Bools
		} else {
			ints[name] = c.Int64s
		}
	}
	outs := make([]job.Outcome, n)
	id, sub, procs, est, rt, start, end := ints["id"], ints["submit"], ints["procs"], ints["estimate"], ints["runtime"], ints["start"], ints["end"]
	killed, rej := bools["killed"], bools["rejected"]
	for i := range outs {
		if id[i] != int64(i) {
			return nil, fmt.Errorf("row %d: expected job id %d, found %d", i, i, id[i])
		}
		if procs[i] < 1 || procs[i] > 1<<30 {
			return nil, fmt.Errorf("row %d: procs %d out of range", i, procs[i])
		}
		outs[i] = job.Outcome{
			Job:   job.Job{Request: job.Request{ID: i, Submit: sub[i], Procs: int(procs[i]), Estimate: est[i]}, Runtime: rt[i]},
			Start: start[i], End: end[i], Killed: killed[i], Rejected: rej[i], Bound: -1,
		}
	}
	return outs, nil
}
