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
	if path == "" {
		return workload.Builtin(f.options())
	}
	return workload.Load(path, f.options())
}
