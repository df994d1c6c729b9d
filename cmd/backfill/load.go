package main

import (
	"github.com/spf13/cobra"

	"backfill/workload"
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
}

func (f *traceFlags) register(cmd *cobra.Command, withTrace bool) {
	fl := cmd.Flags()
	if withTrace {
		fl.StringVarP(&f.trace, "trace", "t", "", "SWF trace, plain or gzip (default: the embedded "+workload.BuiltinName+")")
	}
	fl.IntVarP(&f.procs, "procs", "p", 0, "machine size P (default: the header's MaxProcs, else MaxNodes, else the largest job)")
	fl.StringVar(&f.estimate, "estimate", "user", "runtime estimates: user (the trace's requested time) or exact (estimate = runtime)")
	fl.StringVar(&f.fallback, "estimate-fallback", "runtime", "estimate for jobs without a requested time: runtime or max (the largest requested time)")
	fl.BoolVar(&f.clamp, "clamp", false, "give jobs larger than the machine the whole machine instead of skipping them")
	fl.BoolVar(&f.lenient, "lenient", false, "count malformed lines as warnings instead of failing")
	fl.StringVar(&f.prio, "priorities", "none", "user/political priorities for slack-based scheduling: none, every:N (every N-th job UP=PP=1), csv:FILE (job_id,up,pp), or user|group|queue|partition:FILE (id,up,pp)")
}

func (f *traceFlags) options() workload.Options {
	return workload.Options{
		Procs:            f.procs,
		Estimate:         f.estimate,
		EstimateFallback: f.fallback,
		Clamp:            f.clamp,
		Lenient:          f.lenient,
	}
}

// load reads the trace named by path, or the embedded default when path is
// empty.
func (f *traceFlags) load(path string) (*workload.Trace, error) {
	var tr *workload.Trace
	var err error
	if path == "" {
		tr, err = workload.Builtin(f.options())
	} else {
		tr, err = workload.Load(path, f.options())
	}
	if err != nil {
		return nil, err
	}
	if f.prio != "" && f.prio != "none" {
		if err := workload.ApplyPriorities(tr.Jobs, f.prio); err != nil {
			return nil, err
		}
		tr.Rules = append(tr.Rules, "priorities: "+f.prio)
	}
	return tr, nil
}
