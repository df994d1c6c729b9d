// Package report builds the self-contained HTML report of simulation results.
//
// It turns simulation results into an interactive, self-contained
// HTML report (summary table, comparison plots, wait-time CDFs, utilization
// and queue length over time, per-class breakdowns, and a canvas Gantt chart
// of each schedule), see docs/report.md.
//
// Its data model is a list of runs (Results): one schedule, or one summary,
// per policy and experiment point. Each input format is one loader that
// fills it: a `backfill simulate --out` directory, a single jobs.csv. The
// report itself (Build) reads only Results.
package report

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
)

// KV is a named value: a policy parameter or an experiment coordinate.
type KV struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Run is one schedule: a policy on a workload.
type Run struct {
	// Label names the run in tables and legends: the policy spec as
	// simulated ("easy:depth=4"), unique within Results.
	Label string
	// Policy is the policy's base name ("easy") and Params its parameters
	// as given, sorted by name.
	Policy string
	Params []KV
	// Axes are the run's experiment coordinates other than the policy
	// (trace, load, seed, …), for sweeps; empty for a single simulation.
	Axes []KV
	// Trace is the workload's name and Procs the machine size.
	Trace string
	Procs int
	// Header is the run's provenance (trace, ingestion rules, settings), as
	// written in the comment lines of simulate's outputs.
	Header []string
	// Opt are the options the summary was computed with.
	Opt metrics.Options
	// Outcomes are the per-job outcomes in job-ID order, nil when the
	// source holds summaries only.
	Outcomes []job.Outcome
	// Summary is the run's summary.
	Summary metrics.Summary
	// Alloc is each job's allocated_resources (the cores it held, Batsim's
	// interval-set syntax "0-3 8-11"), parallel to Outcomes; nil when the
	// jobs.csv has none (a simulation without --machine). The Gantt chart
	// then draws these ids instead of its own packing.
	Alloc []string
	// Source is the file the run was read from.
	Source string
	// lazy, when set, reads the per-job outcomes on demand (a sweep's
	// jobs.parquet): full = false may leave out the columns only the
	// Gantt chart and the job table show (user, bound, …). lazyJobs is
	// their number.
	lazy     func(full bool) ([]job.Outcome, error)
	lazyJobs int
}

// HasJobs reports whether the run has per-job outcomes, in memory or on
// demand.
func (r *Run) HasJobs() bool { return r.Outcomes != nil || r.lazy != nil }

// jobCount is the number of per-job outcomes.
func (r *Run) jobCount() int {
	if r.Outcomes != nil {
		return len(r.Outcomes)
	}
	return r.lazyJobs
}

// Jobs returns the run's per-job outcomes (nil when it has none): those in
// memory, or read on demand from a sweep's jobs.parquet; full = false may
// leave out the columns only a Gantt chart shows (user, bound, …).
func (r *Run) Jobs(full bool) ([]job.Outcome, error) { return r.jobs(full) }

// jobs returns the per-job outcomes: those in memory, or read on demand
// (not kept: a report over many runs holds one run's jobs at a time).
func (r *Run) jobs(full bool) ([]job.Outcome, error) {
	if r.Outcomes != nil || r.lazy == nil {
		return r.Outcomes, nil
	}
	return r.lazy(full)
}

// Results is everything a report shows.
type Results struct {
	// Kind is the input format ("simulate", "jobs.csv") and Path the input.
	Kind, Path string
	// Runs in the order of the input (the order policies were given).
	Runs []*Run
	// Warnings are problems met while loading, shown in the report.
	Warnings []string
}

// LoadOptions tune the loaders.
type LoadOptions struct {
	// Procs overrides the machine size (needed for a jobs.csv without
	// simulate's "machine:" comment).
	Procs int
	// MaxJobs bounds the per-job outcomes read from a sweep's results
	// directory (default DefaultMaxSweepJobs).
	MaxJobs int
}

// Load reads results from path: a results directory of `backfill sweep`, a
// directory written by `backfill simulate --out`, or one jobs.csv file.
func Load(path string, opt LoadOptions) (*Results, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		run, err := LoadJobsCSV(path, opt)
		if err != nil {
			return nil, err
		}
		return &Results{Kind: "jobs.csv", Path: path, Runs: []*Run{run}}, nil
	}
	if isSweepDir(path) {
		return LoadSweepDir(path, opt)
	}
	if _, err := os.Stat(filepath.Join(path, "summary.json")); err == nil {
		return LoadSimulateDir(path, opt)
	}
	if m, _ := filepath.Glob(filepath.Join(path, "*.jobs.csv")); len(m) > 0 {
		return LoadSimulateDir(path, opt)
	}
	return nil, fmt.Errorf("%s: not a results directory: expected plan.json and runs/ (backfill sweep), or summary.json or *.jobs.csv (backfill simulate --out)", path)
}

// LoadAll loads every path (Load: a results directory or a jobs.csv) and
// merges them (Merge).
func LoadAll(paths []string, opt LoadOptions) (*Results, error) {
	var list []*Results
	for _, p := range paths {
		r, err := Load(p, opt)
		if err != nil {
			return nil, err
		}
		list = append(list, r)
	}
	return Merge(list), nil
}

// Merge joins the results of several inputs into one, in order. When a
// label occurs in more than one input, every run's label is prefixed with
// its input's base name ("load0.9/easy").
func Merge(list []*Results) *Results {
	if len(list) == 1 {
		return list[0]
	}
	out := &Results{Kind: "merged"}
	count := map[string]int{}
	var paths []string
	for _, r := range list {
		paths = append(paths, r.Path)
		seen := map[string]bool{}
		for _, run := range r.Runs {
			if !seen[run.Label] {
				count[run.Label]++
				seen[run.Label] = true
			}
		}
	}
	clash := false
	for _, n := range count {
		clash = clash || n > 1
	}
	for _, r := range list {
		for _, run := range r.Runs {
			if clash {
				run.Label = filepath.Base(filepath.Clean(r.Path)) + "/" + run.Label
			}
			out.Runs = append(out.Runs, run)
		}
		out.Warnings = append(out.Warnings, r.Warnings...)
	}
	out.Path = strings.Join(paths, ", ")
	uniqueLabels(out.Runs)
	return out
}

// SetAxes gives a run read from simulate's outputs its experiment
// coordinates: "load", the offered load of its jobs, Σ size × runtime /
// (P × (last submit − first submit)), with 3 decimals, as 'backfill info'
// computes it; and, when the header names an estimate model, "estimate"
// (the model) and "seed" (its seed, the replicate axis).
func (r *Run) SetAxes() {
	if len(r.Outcomes) > 0 && r.Procs > 0 {
		first, last := r.Outcomes[0].Submit, r.Outcomes[0].Submit
		work := 0.0
		for i := range r.Outcomes {
			o := &r.Outcomes[i]
			first, last = min(first, o.Submit), max(last, o.Submit)
			work += float64(o.Procs) * float64(o.Runtime)
		}
		if last > first {
			r.Axes = append(r.Axes, KV{"load", strconv.FormatFloat(work/(float64(r.Procs)*float64(last-first)), 'f', 3, 64)})
		}
	}
	for _, h := range r.Header {
		var model string
		var seed uint64
		if _, err := fmt.Sscanf(h, "rule: estimate model %s seed %d", &model, &seed); err == nil {
			r.Axes = append(r.Axes, KV{"estimate", strings.TrimSuffix(model, ",")}, KV{ReplicateAxis, strconv.FormatUint(seed, 10)})
		}
	}
	slices.SortFunc(r.Axes, func(a, b KV) int { return strings.Compare(a.Name, b.Name) })
}

// SplitSpec splits a policy spec into its base name and its parameters
// sorted by name. A spec that does not parse is kept whole as the name.
func SplitSpec(spec string) (string, []KV) {
	name, params, err := policy.Parse(spec)
	if err != nil {
		return spec, nil
	}
	kv := make([]KV, 0, len(params))
	for k, v := range params {
		kv = append(kv, KV{k, v})
	}
	slices.SortFunc(kv, func(a, b KV) int { return strings.Compare(a.Name, b.Name) })
	return name, kv
}

// uniqueLabels makes run labels unique by appending " (2)", " (3)", …
func uniqueLabels(runs []*Run) {
	seen := map[string]int{}
	for _, r := range runs {
		seen[r.Label]++
		if n := seen[r.Label]; n > 1 {
			r.Label = fmt.Sprintf("%s (%d)", r.Label, n)
		}
	}
}
