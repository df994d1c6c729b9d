package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/workload"
)

func newInfo() *cobra.Command {
	f := &traceFlags{}
	var compare []string
	var format string
	cmd := &cobra.Command{
		Use:   "info [FILE]",
		Short: "Describe a workload: jobs, machine size, span, offered load, estimate accuracy, skipped records, distributions",
		Long: `info describes a workload: the summary (jobs, machine size, span, offered load,
estimates, skipped records) and the distributions (size histogram by power of
two, serial and power-of-two shares, runtime percentiles, inter-arrival
times, size-runtime correlation). With --compare TRACE the distributions of
the workload and of each TRACE are printed side by side, e.g. a generated
model next to the real trace it models. The compared traces are read with
the same options, except that their machine size comes from their own
header.`,
		Example: `  backfill info ../shared/traces/SDSC-SP2-1998-4.2-cln.swf.gz
  backfill info            # the embedded KTH SP2 trace
  backfill generate jann97 -o jann.swf && backfill info jann.swf --compare ../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runInfo(cmd, f, args, format, compare) },
	}
	f.register(cmd, false)
	cmd.Flags().StringVarP(&format, "format", "f", "table", "output: table (text), json, or csv (key,value rows, nested keys dotted)")
	cmd.Flags().StringArrayVar(&compare, "compare", nil, "print the distributions of this trace beside the workload's (repeat for several)")
	return cmd
}

// runInfo prints the summary and distributions of the workload of args
// (the embedded trace without one) and of the compared traces.
func runInfo(cmd *cobra.Command, f *traceFlags, args []string, format string, compare []string) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	path := ""
	if len(args) == 1 {
		path = args[0]
	}
	tr, err := f.load(path)
	if err != nil {
		return err
	}
	var cs []*workload.Trace
	for _, c := range compare {
		g := *f
		g.procs = 0
		ct, err := g.load(c)
		if err != nil {
			return fmt.Errorf("--compare: %w", err)
		}
		cs = append(cs, ct)
	}
	return workload.WriteInfo(cmd.OutOrStdout(), format, toolVersion(), tr, cs)
}

func newCheck() *cobra.Command {
	var procs, limit int
	var noKill, fcfs, lenient bool
	var format string
	cmd := &cobra.Command{
		Use:   "check SCHEDULE.swf",
		Short: "Audit an SWF schedule (ours or another simulator's) and list every violation",
		Long: `check reads a schedule in SWF (start = submit + wait, end = start + run time,
size = allocated processors, else requested) and audits it: at no instant more
than P processors busy; no start before submission; in kill mode no job runs
longer than its requested time; with --fcfs, starts in arrival order. It
exits with status 1 when there is a violation.`,
		Example: `  backfill simulate --policy easy --out out/ && backfill check out/easy.swf
  backfill check other-simulator.swf --procs 128 --no-kill`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkCheckFlags(cmd, format, limit, procs); err != nil {
				return err
			}
			return runCheck(cmd.OutOrStdout(), args[0], format, procs, audit.Options{Kill: !noKill, FCFS: fcfs, Expect: -1, Limit: limit}, lenient)
		},
	}
	fl := cmd.Flags()
	fl.IntVar(&limit, "limit", 20, "violations listed of each kind (the earliest); all are counted in the summary")
	fl.StringVarP(&format, "format", "f", "table", "output: table (text), json (counts and the listed violations), or csv (the listed violations)")
	fl.IntVarP(&procs, "procs", "p", 0, "machine size P (default: the schedule's MaxProcs header, else MaxNodes)")
	fl.BoolVar(&noKill, "no-kill", false, "jobs were allowed to run past their requested time")
	fl.BoolVar(&fcfs, "fcfs", false, "also check that jobs start in arrival order")
	fl.BoolVar(&lenient, "lenient", false, "count malformed lines as warnings instead of failing")
	return cmd
}

func newPolicies() *cobra.Command {
	return &cobra.Command{
		Use:   "policies",
		Short: "List the scheduling policies and their parameters",
		Example: `  backfill policies
  # a policy with parameters, as simulate and sweep take it: name:key=value:…
  backfill simulate --policy easy,easy:depth=4:order=sjbf,conservative`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return policy.WriteCatalog(cmd.OutOrStdout()) },
	}
}

// runCheck audits the schedule in file with opt (its Procs from procs or
// the file's header) and writes the report in format; a violation is an
// error.
func runCheck(w io.Writer, file, format string, procs int, opt audit.Options, lenient bool) error {
	c, err := audit.CheckFile(file, procs, lenient, opt)
	if errors.Is(err, workload.ErrNoMachineSize) {
		return fmt.Errorf("%w; give --procs", err)
	}
	if err != nil {
		return err
	}
	if err := c.Write(w, format, toolVersion()); err != nil {
		return err
	}
	if !c.Report.OK() {
		return fmt.Errorf("%d violations", c.Report.Total())
	}
	return nil
}

// checkCheckFlags refuses an unknown format, a --limit below 1 and a
// given --procs below 1.
func checkCheckFlags(cmd *cobra.Command, format string, limit, procs int) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	if limit < 1 {
		return fmt.Errorf("--limit %d: expected at least 1 violation of each kind listed", limit)
	}
	return checkProcsLoad(cmd.Flags().Changed, procs, 0, "to take it from the schedule's header", "")
}
