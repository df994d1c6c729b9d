package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/workload"
	"github.com/backfill-hpc/backfill/workload/estimate"
)

// traceFlags are the ingestion flags shared by the commands that read a
// workload.
type traceFlags struct {
	trace    string
	procs    int
	estimate string
	fallback string
	clamp    bool
	lenient  bool
	prio     string
	seed     uint64
	// memory as a second resource (K = 2)
	mem, memPerProc, memMissing string
	// loadTarget, when > 0, scales the inter-arrival times to this
	// offered load (workload.ScaleLoad).
	loadTarget float64
	// flags are the command's flags, to tell a value given from the default
	flags interface{ Changed(string) bool }
}

func (f *traceFlags) register(cmd *cobra.Command, withTrace bool) {
	fl := cmd.Flags()
	f.flags = fl
	if withTrace {
		fl.StringVarP(&f.trace, "trace", "t", "", "SWF trace, plain or gzip (default: the embedded "+workload.BuiltinName+")")
	}
	fl.IntVarP(&f.procs, "procs", "p", 0, "machine size P (default: the header's MaxProcs, else MaxNodes, else the largest job)")
	fl.StringVar(&f.estimate, "estimate", "user", "runtime estimates: user (the trace's requested time), exact (= runtime), factor:F (uniform in [r, F·r]), double (user × 2), modal[:atmax=P][:max=S] (Tsafrir et al.'s model of user estimates)")
	fl.Uint64Var(&f.seed, "seed", 1, "seed of the random estimate models (factor, modal)")
	fl.StringVar(&f.fallback, "estimate-fallback", "runtime", "estimate for jobs without a requested time: runtime or max (the largest requested time)")
	fl.BoolVar(&f.clamp, "clamp", false, "give jobs larger than the machine the whole machine instead of skipping them")
	fl.BoolVar(&f.lenient, "lenient", false, "count malformed lines as warnings instead of failing")
	fl.StringVar(&f.mem, "mem", "", "schedule memory as a second resource (K = 2) from SWF field 10, with this much machine memory in KB (suffix M, G, T: binary units), or auto (the header's MaxMemory × P, the archive page of a known log, else the largest job); needs K-resource policies (ff-easy, bl-easy, bb-easy, ff-cons, fcfs)")
	fl.StringVar(&f.memPerProc, "mem-per-proc", "", "like --mem, with the machine memory given per processor (e.g. 512M)")
	fl.StringVar(&f.memMissing, "mem-missing", "mode", "memory of jobs without field 10: mode (the trace's most common per-processor request), zero, or skip")
	fl.Float64Var(&f.loadTarget, "load", 0, "scale the inter-arrival times so that the offered load is this (sizes and runtimes unchanged; see docs/workload.md)")
	fl.StringVar(&f.prio, "priorities", "none", "user/political priorities for slack-based scheduling: none, every:N (every N-th job UP=PP=1), csv:FILE (job_id,up,pp), or user|group|queue|partition:FILE (id,up,pp)")
}

// ingestEstimate is the estimate option given to package workload: user
// and exact are ingestion rules; the other models are applied afterwards
// to the user estimates (package workload/estimate).
func (f *traceFlags) ingestEstimate() string {
	if f.estimate == "exact" || f.estimate == "" {
		return f.estimate
	}
	return "user"
}

func (f *traceFlags) options() workload.Options {
	return workload.Options{
		Procs:            f.procs,
		Estimate:         f.ingestEstimate(),
		EstimateFallback: f.fallback,
		Clamp:            f.clamp,
		Lenient:          f.lenient,
		Mem:              f.mem != "" || f.memPerProc != "",
		MemMissing:       f.memMissing,
	}
}

// memOptions parses --mem and --mem-per-proc into o.
func (f *traceFlags) memOptions(o *workload.Options) error {
	if f.mem != "" && f.memPerProc != "" {
		return fmt.Errorf("--mem and --mem-per-proc: give one of them")
	}
	if f.mem != "" && f.mem != "auto" {
		v, err := workload.ParseMem(f.mem)
		if err != nil {
			return fmt.Errorf("--mem: %w (or auto)", err)
		}
		o.MemCap = v
	}
	if f.memPerProc != "" {
		v, err := workload.ParseMem(f.memPerProc)
		if err != nil {
			return fmt.Errorf("--mem-per-proc: %w", err)
		}
		o.MemPerProc = v
	}
	return nil
}

// validate rejects flag values given explicitly that mean nothing: a
// zero or negative machine size or load (0 is also the flags' "not given"
// default, so only an explicit value is checked).
func (f *traceFlags) validate() error {
	changed := func(name string) bool { return f.flags != nil && f.flags.Changed(name) }
	return checkProcsLoad(changed, f.procs, f.loadTarget, "to take it from the trace's header", "to keep the trace's arrival times")
}

// emptyWhy says why a trace has no jobs: no records at all, or every
// record skipped (the reasons are in the trace's rules).
func emptyWhy(tr *workload.Trace) string {
	for _, r := range tr.Rules {
		if strings.HasPrefix(r, "skipped:") && r != "skipped: none" {
			return "every record was skipped; " + r
		}
	}
	return "the file holds no job records"
}

// load reads the trace named by path, or the embedded default when path is
// empty.
func (f *traceFlags) load(path string) (*workload.Trace, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	if f.estimate != "user" && f.estimate != "exact" && f.estimate != "" {
		if _, err := estimate.Parse(f.estimate); err != nil {
			return nil, fmt.Errorf("--estimate: %w", err)
		}
	}
	var tr *workload.Trace
	opts := f.options()
	if err := f.memOptions(&opts); err != nil {
		return nil, err
	}
	var err error
	if path == "" {
		tr, err = workload.Builtin(opts)
	} else {
		tr, err = workload.Load(path, opts)
	}
	if err != nil {
		return nil, err
	}
	if len(tr.Jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs to simulate (%s): expected SWF records, one job per line (see docs/workload.md)", tr.Name, emptyWhy(tr))
	}
	if f.loadTarget != 0 {
		if _, err := workload.ScaleLoad(tr, f.loadTarget); err != nil {
			return nil, fmt.Errorf("--load: %w", err)
		}
	}
	if f.ingestEstimate() != f.estimate {
		notes, err := estimate.Apply(tr.Jobs, f.estimate, f.seed)
		if err != nil {
			return nil, fmt.Errorf("--estimate: %w", err)
		}
		tr.Rules = append(tr.Rules, notes...)
	}
	if f.prio != "" && f.prio != "none" {
		if err := workload.ApplyPriorities(tr.Jobs, f.prio); err != nil {
			return nil, err
		}
		tr.Rules = append(tr.Rules, "priorities: "+f.prio)
	}
	return tr, nil
}
