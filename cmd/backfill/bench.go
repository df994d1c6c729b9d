package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
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
trace and policy (--workers 1; start-up, loading, simulation, audit and
output), run after the measuring child. While a run lasts, its progress (jobs
ended) is shown on standard error: on one line rewritten in place when
standard error is a terminal, else a line every 30 s. The machine is shared:
compare figures from one run as ratios.`,
		Example: `  backfill bench --traces ../shared/traces --policy easy,conservative
  backfill bench --traces ../shared/traces --only KTH
  # every policy at the original load and at offered load 0.95, 5 minutes a run at most
  backfill bench --policy easy,fcfs,conservative,slack --loads orig,0.95 --limit 5m --whole=false`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if f.child {
				return benchChild(cmd, f)
			}
			return benchParent(cmd, f)
		},
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVar(&f.dir, "traces", filepath.Join("..", "shared", "traces"), "directory of SWF traces")
	fl.StringSliceVar(&f.policies, "policy", []string{"fcfs", "easy", "conservative"}, "policies to measure")
	fl.StringVar(&f.only, "only", "", "only traces whose file name contains this")
	fl.StringVarP(&f.format, "format", "f", "table", "output: table (printed as each run finishes), json or csv (printed at the end)")
	fl.BoolVar(&f.whole, "whole", true, "also time a whole 'backfill simulate' process per trace and policy (whole s, whole CPU s, whole RSS MB)")
	fl.DurationVar(&f.limit, "limit", 0, "stop a measuring child still running after this long (e.g. 5m; 0: no limit) and report its sim s as \"> limit\"")
	fl.StringSliceVar(&f.loads, "loads", nil, "offered loads to measure, each orig (the trace's arrival times) or a number for --load, e.g. orig,0.95 (default: --load's value, else orig)")
	fl.BoolVar(&f.child, "child", false, "internal: run one measurement and print it as JSON")
	_ = fl.MarkHidden("child")
	return cmd
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
	line, err := bench.Measure(filepath.Base(f.trace), tr, time.Since(t0).Seconds(), spec, progress)
	if err != nil {
		return err
	}
	return json.NewEncoder(cmd.OutOrStdout()).Encode(line)
}

// benchChildArgs is the command line of the child measuring pol on file,
// with the trace flags of f at offered load (0: the trace's own).
func benchChildArgs(f *benchFlags, file, pol string, load float64) []string {
	return append([]string{"bench", "--child", "--policy", pol}, benchTraceArgs(f, file, load)...)
}

// benchWholeArgs is the command line of the whole simulate process
// running pol on file, with the trace flags of f at offered load.
func benchWholeArgs(f *benchFlags, file, pol string, load float64) []string {
	return append([]string{"simulate", "--workers", "1", "--policy", pol}, benchTraceArgs(f, file, load)...)
}

// benchTraceArgs is the flags that load file as f says, at offered load
// (0: the trace's own) in place of --load.
func benchTraceArgs(f *benchFlags, file string, load float64) []string {
	args := []string{"--trace", file,
		"--estimate", f.estimate, "--estimate-fallback", f.fallback, "--seed", strconv.FormatUint(f.seed, 10)}
	if f.procs > 0 {
		args = append(args, "--procs", fmt.Sprint(f.procs))
	}
	if load > 0 {
		args = append(args, "--load", strconv.FormatFloat(load, 'g', -1, 64))
	}
	if f.clamp {
		args = append(args, "--clamp")
	}
	if f.lenient {
		args = append(args, "--lenient")
	}
	if f.mem != "" {
		args = append(args, "--mem", f.mem)
	}
	if f.memPerProc != "" {
		args = append(args, "--mem-per-proc", f.memPerProc)
	}
	if f.mem != "" || f.memPerProc != "" {
		args = append(args, "--mem-missing", f.memMissing)
	}
	return args
}

// benchParent runs a child per trace and policy (none first: loading
// alone), and a whole simulate process per trace and policy with --whole,
// and prints the measurements.
func benchParent(cmd *cobra.Command, f *benchFlags) error {
	if err := checkFormat(f.format); err != nil {
		return err
	}
	files, err := bench.Traces(f.dir, f.only)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	tb := bench.NewTable(files, f.policies)
	if f.format == "table" {
		fmt.Fprintf(out, "# version: %s\n", toolVersion())
		fmt.Fprintln(out, tb.Header())
	}
	loads, err := bench.ParseLoads(f.loads, f.loadTarget)
	if err != nil {
		return err
	}
	plan := &bench.Plan{Exe: exe, Files: files, Policies: f.policies, Loads: loads, Whole: f.whole, Limit: f.limit,
		ChildArgs: func(file, pol string, load float64) []string { return benchChildArgs(f, file, pol, load) },
		WholeArgs: func(file, pol string, load float64) []string { return benchWholeArgs(f, file, pol, load) },
	}
	if f.format != "table" {
		tb = nil // the lines are printed at the end
	}
	all, err := plan.Run(out, tb, bench.NewStatus(cmd.ErrOrStderr()))
	if err != nil {
		return err
	}
	return bench.WriteLines(out, f.format, toolVersion(), all)
}
