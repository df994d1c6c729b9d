package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/bench"
)

type benchFlags struct {
	traceFlags
	dir      string
	policies []string
	child    bool
	only     string
	format   string
	whole    bool
	limit    time.Duration
	loads    []string
	skip     bool
	noKill   bool
	growth   bool
	gJobs    []int
	gLoads   []float64
	gProcs   int
	gModel   string
	gEst     string
	gDir     string
}

func newBench() *cobra.Command {
	f := &benchFlags{}
	cmd := &cobra.Command{
		Use:   "bench",
		Short: "Measure simulation speed (jobs/s) and memory per policy on every trace of a directory",
		Long: `bench runs each policy on each trace (*.swf, *.swf.gz, also one level down) in
its own child process, so that the peak memory of each run is measured alone.
It prints the trace load time, the simulation time, simulated jobs per second
of wall time, the bytes the simulation allocated per job, and the peak
resident memory of the process (trace loading included), beside the same for
loading alone. Beside them (--whole, the default) are the wall and CPU
seconds and peak memory of a whole 'backfill simulate' process on the same
trace and policy (--workers 1 --out into a temporary directory: start-up,
loading, simulation, audit and the output files), run after the measuring
child. While a run lasts, its progress (jobs
ended) is shown on standard error: on one line rewritten in place when
standard error is a terminal, else a line every 30 s. The machine is shared:
compare figures from one run as ratios.

--policy all measures every registered policy, EASY first. sim CPU s is the
child's CPU time during the simulation, steadier than the wall time (sim s)
on a shared machine; × EASY is it over EASY's on the same trace and load.
With --limit, a child still running after that long (wall time) is stopped
and its sim s shown as "> N"; with --skip-capped, a policy stopped on a trace is not run on it at
the loads listed after (list them in increasing order: orig first for
traces whose own load is below the next), shown as "> N (not run)".

--growth measures growth curves instead of traces: synthetic workloads
(--growth-model, generated as 'backfill generate MODEL --jobs N --procs
--growth-procs --load L --estimate --growth-estimate --seed --seed' for each N
of --growth-jobs and L of --growth-loads) are generated once into
--growth-dir and kept; each policy runs on each, smallest first, and a
policy over --limit on one is not run on the larger ones of the same load.
After the rows comes the table of the curves: sim CPU s against jobs per
policy and load, the exponent fitted by least squares to log(sim CPU s)
against log(jobs), and, when a larger workload was over the limit, a lower
bound of the exponent from the last measured point to the limit (both wall
times).`,
		Example: `  backfill bench --traces ../shared/traces --policy easy,conservative
  backfill bench --traces ../shared/traces --only KTH
  # every policy at the original load and at offered load 0.95, 5 minutes a run at most
  backfill bench --policy easy,fcfs,conservative,slack --loads orig,0.95 --limit 5m --whole=false
  # every registered policy, EASY first; a policy over the limit at the original load is not run at 0.95
  backfill bench --policy all --loads orig,0.95 --limit 30s --skip-capped --whole=false
  # growth curves: Lublin workloads of 10k, 100k, 1M jobs at loads 0.7, 0.9, 0.95, 1.0 on 1,024 processors
  backfill bench --growth --policy easy,conservative --limit 60s --whole=false`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.child {
				return benchChild(cmd, f)
			}
			return benchParent(cmd, f)
		},
	}
	f.register(cmd, true)
	registerBenchFlags(cmd, f)
	return cmd
}

// registerBenchFlags adds bench's own flags to cmd.
func registerBenchFlags(cmd *cobra.Command, f *benchFlags) {
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "traces", filepath.Join("..", "shared", "traces"), "directory of SWF traces")
	fl.StringSliceVar(&f.policies, "policy", []string{"fcfs", "easy", "conservative"}, "policies to measure")
	fl.StringVar(&f.only, "only", "", "only traces whose file name contains this")
	fl.StringVarP(&f.format, "format", "f", "table", "output: table (printed as each run finishes), json or csv (printed at the end)")
	fl.BoolVar(&f.whole, "whole", true, "also time a whole 'backfill simulate' process per trace and policy (whole s, whole CPU s, whole RSS MB)")
	fl.DurationVar(&f.limit, "limit", 0, "stop a measuring child still running after this long (e.g. 5m; 0: no limit) and report its sim s as \"> limit\"")
	fl.StringSliceVar(&f.loads, "loads", nil, "offered loads to measure, each orig (the trace's arrival times) or a number for --load, e.g. orig,0.95 (default: --load's value, else orig)")
	fl.BoolVar(&f.noKill, "no-kill", false, "jobs run past their estimate to their full runtime (simulate --no-kill), in the child and the whole process")
	fl.BoolVar(&f.skip, "skip-capped", false, "with --limit: a policy over the limit on a trace is not run on that trace at the later loads of --loads")
	fl.BoolVar(&f.growth, "growth", false, "measure growth curves on generated workloads (--growth-*) instead of the traces")
	fl.IntSliceVar(&f.gJobs, "growth-jobs", []int{10000, 100000, 1000000}, "numbers of jobs of the growth workloads")
	fl.Float64SliceVar(&f.gLoads, "growth-loads", []float64{0.7, 0.9, 0.95, 1.0}, "offered loads of the growth workloads (0.95: the load up to which issue 22 asks for an exponent ≤ 1.2)")
	fl.IntVar(&f.gProcs, "growth-procs", 1024, "machine size of the growth workloads")
	fl.StringVar(&f.gModel, "growth-model", "lublin", "workload model of the growth workloads (backfill generate)")
	fl.StringVar(&f.gEst, "growth-estimate", "modal", "runtime estimates of the growth workloads (backfill generate --estimate)")
	fl.StringVar(&f.gDir, "growth-dir", bench.DefaultGrowthDir(), "directory where the growth workloads are generated once and kept (empty it after a change to the generator)")
	fl.BoolVar(&f.child, "child", false, "internal: run one measurement and print it as JSON")
	_ = fl.MarkHidden("child")
}

// benchChild loads one trace and measures one policy on it, printing the
// measurement as JSON for the parent.
func benchChild(cmd *cobra.Command, f *benchFlags) error {
	t0 := time.Now()
	tr, err := f.load(f.trace)
	if err != nil {
		return err
	}
	spec := "none"
	if len(f.policies) == 1 {
		spec = f.policies[0]
	}
	progress := bench.ChildProgress(cmd.ErrOrStderr(), len(tr.Jobs)) // for the parent
	line, err := bench.MeasureNoKill(filepath.Base(f.trace), tr, time.Since(t0).Seconds(), spec, f.noKill, progress)
	if err != nil {
		return err
	}
	return json.NewEncoder(cmd.OutOrStdout()).Encode(line)
}

// benchParent runs a child per trace and policy (none first: loading
// alone), and a whole simulate process per trace and policy with --whole,
// and prints the measurements.
func benchParent(cmd *cobra.Command, f *benchFlags) error {
	if err := checkFormat(f.format); err != nil {
		return err
	}
	plan, growth, err := benchPlan(cmd, f)
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	var tb *bench.Table
	if f.format == "table" { // else the lines are printed at the end
		tb = bench.NewTable(plan.Files, plan.Policies)
		fmt.Fprintf(out, "# version: %s\n", toolVersion())
		if f.noKill {
			fmt.Fprintln(out, "# --no-kill: jobs run past their estimate to their full runtime")
		}
		fmt.Fprintln(out, tb.Header())
	}
	all, err := plan.Run(out, tb, bench.NewStatus(cmd.ErrOrStderr()))
	if err != nil {
		return err
	}
	var curves []bench.Curve
	var extra map[string]any
	if growth != nil {
		w := io.Discard
		if f.format == "table" {
			w = out
		}
		curves = growth.WriteTable(w, plan, all)
		extra = map[string]any{"growth": curves}
	}
	return bench.WriteLines(out, f.format, toolVersion(), all, extra)
}

// benchPlan is the plan of f: the traces of --traces, or with --growth the
// growth workloads (generated if not kept yet).
func benchPlan(cmd *cobra.Command, f *benchFlags) (*bench.Plan, *bench.Growth, error) {
	policies := f.policies
	if len(policies) == 1 && policies[0] == "all" {
		policies = bench.AllPolicies()
	}
	loads, err := bench.ParseLoads(f.loads, f.loadTarget)
	if err != nil {
		return nil, nil, err
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, nil, err
	}
	plan := &bench.Plan{Exe: exe, Policies: policies, Loads: loads, Whole: f.whole, Limit: f.limit}
	tf := bench.TraceFlags{Estimate: f.estimate, Fallback: f.fallback, Seed: f.seed, Procs: f.procs, Clamp: f.clamp, Lenient: f.lenient,
		Mem: f.mem, MemPerProc: f.memPerProc, MemMissing: f.memMissing, NoKill: f.noKill}
	plan.ChildArgs, plan.WholeArgs = tf.ChildArgs, tf.WholeArgs
	if !f.growth {
		if f.skip {
			plan.SkipKey = bench.SkipAtLaterLoads
		}
		plan.Files, err = bench.Traces(f.dir, f.only)
		return plan, nil, err
	}
	growth, err := benchGrowth(f)
	if err != nil {
		return nil, nil, err
	}
	if err := growth.Ensure(cmd.ErrOrStderr()); err != nil {
		return nil, nil, err
	}
	growth.Apply(plan)
	return plan, growth, nil
}

// benchGrowth is the growth workloads of f, generated as 'backfill
// generate' would.
func benchGrowth(f *benchFlags) (*bench.Growth, error) {
	g := &bench.Growth{Jobs: f.gJobs, Loads: f.gLoads, Model: f.gModel, Procs: f.gProcs, Seed: f.seed, Estimate: f.gEst, Dir: f.gDir}
	return g, g.Check()
}
