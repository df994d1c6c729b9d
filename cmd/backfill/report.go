package main

import (
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/backfill-hpc/backfill/internal/fileout"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/report"
	"github.com/backfill-hpc/backfill/simulate"
)

type reportFlags struct {
	simulateFlags
	output       string
	title        string
	gantt        []string
	maxGanttJobs int
	csvProcs     int
}

func newReport() *cobra.Command {
	f := &reportFlags{}
	cmd := &cobra.Command{
		Use:   "report [RESULTS_DIR | JOBS_CSV]...",
		Short: "Write an interactive, self-contained HTML report (tables, plots, Gantt chart)",
		Long: `report writes one HTML file that works offline (every script and style is
inside it): the summary table across policies with the best values marked,
mean wait, bounded slowdown and utilization by policy and by parameter, wait
time CDFs, utilization and queue length over time, per-class breakdowns, and
an interactive Gantt chart of each schedule (zoom, pan, hover, colour by user,
size or wait, reservation markers).

The input is a directory written by 'backfill simulate --out', or one
jobs.csv (ours or Batsim's); several inputs are shown side by side. With no
input, report simulates the policies given with --policy on the trace given
with --trace, as simulate does (the simulation flags apply only then), and
reports on those runs. See docs/report.md.`,
		Example: `  # simulate, then report
  backfill simulate --policy fcfs,easy,conservative --out out/
  backfill report out/ -o report.html

  # simulate and report in one go, on a real trace
  backfill report --trace ../shared/traces/SDSC-BLUE-2000-4.2-cln.swf.gz --policy easy,conservative -o blue.html

  # one schedule from a jobs.csv of another simulator (machine size needed)
  backfill report batsim_jobs.csv --machine-procs 128 -o batsim.html`,
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error { return runReport(cmd, f, args) },
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringVarP(&f.output, "output", "o", "report.html", "HTML file to write")
	fl.StringVar(&f.title, "title", "", "page title (default: backfill report: INPUT)")
	fl.StringSliceVar(&f.gantt, "gantt", nil, "runs (policy labels) that get a Gantt chart, comma-separated, or none (default: every run, unless their jobs add up to more than --max-gantt-jobs: then the first)")
	fl.IntVar(&f.maxGanttJobs, "max-gantt-jobs", report.DefaultMaxGanttJobs, "bound on the jobs of the default Gantt selection")
	fl.IntVar(&f.csvProcs, "machine-procs", 0, "machine size for a jobs.csv without simulate's \"machine:\" comment")
	fl.StringArrayVar(&f.classes, "classes", nil, "per-class breakdowns, one per rule QUANTITY:B1,B2,… (runtime, size or estimate; repeatable; default runtime:3600 and sizes 1, 4, 16, …)")
	// simulation flags, used only without an input
	fl.StringSliceVar(&f.policies, "policy", []string{"fcfs", "easy", "conservative"}, "without an input: the policies to simulate (see 'backfill policies')")
	fl.StringVar(&f.overrun, "overrun", "kill", "without an input: kill, extend or run (see 'backfill simulate --help')")
	fl.Int64Var(&f.warmUp, "warmup", 0, "without an input: exclude jobs submitted in the first S seconds from the averages")
	fl.Int64Var(&f.drain, "drain", 0, "without an input: exclude jobs submitted in the last S seconds from the averages")
	fl.Int64Var(&f.tau, "tau", 10, "without an input: bounded-slowdown threshold τ in seconds")
	fl.IntVar(&f.workers, "workers", 2, "without an input: policies simulated in parallel")
	return cmd
}

func runReport(cmd *cobra.Command, f *reportFlags, args []string) error {
	rules, err := parseClassRules(f.classes)
	if err != nil {
		return err
	}
	start := time.Now()
	var res *report.Results
	if len(args) > 0 {
		own := map[string]bool{"output": true, "title": true, "gantt": true, "max-gantt-jobs": true, "machine-procs": true, "classes": true}
		var bad []string
		cmd.Flags().Visit(func(fl *pflag.Flag) {
			if !own[fl.Name] {
				bad = append(bad, "--"+fl.Name)
			}
		})
		if len(bad) > 0 {
			return fmt.Errorf("%s: simulation flags, for a report without an input; they cannot be combined with an input (%s)", strings.Join(bad, ", "), args[0])
		}
		res, err = report.LoadAll(args, report.LoadOptions{Procs: f.csvProcs})
	} else {
		if err := checkTau(f.tau); err != nil {
			return err
		}
		res, err = simulateForReport(&f.simulateFlags)
	}
	if err != nil {
		return err
	}
	opt := report.BuildOptions{Title: f.title, Classes: rules, MaxGanttJobs: f.maxGanttJobs}
	if len(f.gantt) == 1 && f.gantt[0] == "none" {
		opt.Gantt = []string{}
	} else if len(f.gantt) > 0 {
		opt.Gantt = f.gantt
	}
	d, err := report.Build(res, opt)
	if err != nil {
		return err
	}
	d.Generator = "backfill report, " + toolVersion()
	if err := fileout.Write(f.output, func(w io.Writer) error { return report.WriteHTML(w, d) }); err != nil {
		return err
	}
	st, err := os.Stat(f.output)
	if err != nil {
		return err
	}
	drawn := 0
	for _, g := range d.Gantt {
		drawn += g.Drawn
	}
	fmt.Fprintf(cmd.OutOrStdout(), "wrote %s (%.1f MB): %d runs, %d Gantt charts with %d jobs, in %.2f s\n",
		f.output, float64(st.Size())/1e6, len(d.Runs), len(d.Gantt), drawn, time.Since(start).Seconds())
	for _, w := range d.Warnings {
		fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w)
	}
	return nil
}

// simulateForReport runs the policies of f on f's trace, as simulate does
// (same ingestion, awt=auto, audit), and returns the runs as report
// results.
func simulateForReport(f *simulateFlags) (*report.Results, error) {
	if err := f.resolveOverrun(); err != nil {
		return nil, err
	}
	tr, err := f.load(f.trace)
	if err != nil {
		return nil, err
	}
	opt := f.simOptions(tr)
	header, err := resolveAuto(tr, f, opt)
	if err != nil {
		return nil, err
	}
	results, err := simulateAll(tr, f, opt)
	if err != nil {
		return nil, err
	}
	header = append(header, simulate.ExtensionNotes(opt, results)...)
	return simulate.ReportResults(tr, results, header, metrics.Options{Procs: tr.Procs, Tau: f.tau, WarmUp: f.warmUp, Drain: f.drain}), nil
}
