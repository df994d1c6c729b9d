package main

import (
	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
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

// validate rejects flag values given explicitly that mean nothing: a
// zero or negative machine size or load (0 is also the flags' "not given"
// default, so only an explicit value is checked).
func (f *traceFlags) validate() error {
	changed := func(name string) bool { return f.flags != nil && f.flags.Changed(name) }
	return checkProcsLoad(changed, f.procs, f.loadTarget, "to take it from the trace's header", "to keep the trace's arrival times")
}

// load reads the trace named by path, or the embedded default when path is
// empty, and prepares it (simulate.LoadTrace).
func (f *traceFlags) load(path string) (*workload.Trace, error) {
	if err := f.validate(); err != nil {
		return nil, err
	}
	return simulate.LoadTrace(path, simulate.TraceOptions{
		Ingest:   workload.Options{Procs: f.procs, EstimateFallback: f.fallback, Clamp: f.clamp, Lenient: f.lenient, MemMissing: f.memMissing},
		Estimate: f.estimate, Seed: f.seed, Mem: f.mem, MemPerProc: f.memPerProc, Load: f.loadTarget, Priorities: f.prio,
	})
}
