package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"text/tabwriter"
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
loading alone. The machine is shared: compare figures from one run as ratios.`,
		Example: `  backfill bench --traces ../shared/traces --policy easy,conservative
  backfill bench --traces ../shared/traces --only KTH`,
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
	line, err := bench.Measure(filepath.Base(f.trace), tr, time.Since(t0).Seconds(), spec)
	if err != nil {
		return err
	}
	return json.NewEncoder(cmd.OutOrStdout()).Encode(line)
}

// benchChildArgs is the command line of the child measuring pol on file,
// with the trace flags of f.
func benchChildArgs(f *benchFlags, file, pol string) []string {
	args := []string{"bench", "--child", "--trace", file, "--policy", pol,
		"--estimate", f.estimate, "--estimate-fallback", f.fallback, "--seed", strconv.FormatUint(f.seed, 10)}
	if f.procs > 0 {
		args = append(args, "--procs", fmt.Sprint(f.procs))
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
// alone) and prints the measurements.
func benchParent(cmd *cobra.Command, f *benchFlags) error {
	if err := checkFormat(f.format); err != nil {
		return err
	}
	var all []bench.Line
	files, err := bench.Traces(f.dir, f.only)
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if f.format == "table" {
		fmt.Fprintf(cmd.OutOrStdout(), "# version: %s\n", toolVersion())
	}
	w := tabwriter.NewWriter(cmd.OutOrStdout(), 2, 4, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(w, bench.TableHeader)
	for _, file := range files {
		for _, p := range append([]string{"none"}, f.policies...) {
			l, failed, err := bench.RunChild(exe, benchChildArgs(f, file, p), file, p)
			if err != nil {
				return err
			}
			all = append(all, l)
			if f.format != "table" {
				continue
			}
			if failed {
				fmt.Fprintf(w, "%s\t\t\t%s\terror: %s\t\n", l.Trace, p, l.Error)
				continue
			}
			fmt.Fprintln(w, l.TableRow(p != "none"))
			w.Flush()
		}
	}
	switch f.format {
	case "json":
		return writeJSON(cmd.OutOrStdout(), map[string]any{"version": toolVersion(), "runs": all})
	case "csv":
		var rows [][]string
		for _, l := range all {
			rows = append(rows, l.CSV())
		}
		return writeCSV(cmd.OutOrStdout(), bench.CSVHeader, rows)
	}
	return w.Flush()
}
