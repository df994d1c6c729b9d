package main

import (
	"fmt"
	"os"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/internal/progress"
	"github.com/backfill-hpc/backfill/metrics"
	_ "github.com/backfill-hpc/backfill/policy/all" // register every policy
	"github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
)

type simulateFlags struct {
	traceFlags
	policies []string
	out      string
	format   string
	noKill   bool
	overrun  string
	warmUp   int64
	drain    int64
	tau      int64
	workers  int
	noAudit  bool
	classes  []string
	human    bool
	plainCSV bool
	// deadlines is a deadline-workload spec (package workload/deadline)
	deadlines string
	// nodes are the machine of --machine or --cores-per-node, --alloc
	// and --sidecar (simulate.Nodes)
	nodes simulate.Nodes
}

func newSimulate() *cobra.Command {
	f := &simulateFlags{}
	cmd := &cobra.Command{
		Use:   "simulate",
		Short: "Simulate policies on a trace and compare their metrics",
		Example: `  # FCFS vs EASY vs conservative on the embedded KTH SP2 trace
  backfill simulate

  # a real trace (from the Parallel Workloads Archive, see the README), as JSON
  backfill simulate --trace ../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz --policy easy,conservative --format json

  # the same machine with 128 processors instead of the header's 338
  backfill simulate --trace ../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz --procs 128 --policy easy

  # durations in days and hours instead of seconds
  backfill simulate --human

  # EASY with reservations for the first 4 jobs; per-job CSV and SWF schedules in out/
  backfill simulate --policy easy,easy:depth=4 --out out/

  # deadline scheduling with admission control (QoPS, MSB, MRT) vs EASY on a
  # deadline workload: 2000 jobs, load 1.4 by duplication, stringency 0.2
  backfill simulate --estimate exact --deadlines s=0.2:l=1.4:n=2000 --policy qops,msb,mrt,easy`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runSimulate(cmd, f) },
	}
	f.register(cmd, true)
	fl := cmd.Flags()
	fl.StringSliceVar(&f.policies, "policy", []string{"fcfs", "easy", "conservative"}, "policies to compare, comma-separated, each name[:key=value...] (see 'backfill policies')")
	fl.StringVarP(&f.out, "out", "o", "", "directory for per-job CSV (Batsim jobs.csv columns), SWF schedules and the summary")
	fl.StringVarP(&f.format, "format", "f", "table", "summary format: table, json or csv")
	fl.StringVar(&f.overrun, "overrun", "kill", "a job still running at its estimate is: kill (killed, as the papers' simulations), extend (offered an extension by policies with the tick strategy of Talby & Feitelson §4.7, e.g. slack; killed by the others), or run (runs to its full runtime)")
	fl.BoolVar(&f.noKill, "no-kill", false, "the same as --overrun run")
	fl.Int64Var(&f.warmUp, "warmup", 0, "exclude jobs submitted in the first S seconds from the averages")
	fl.Int64Var(&f.drain, "drain", 0, "exclude jobs submitted in the last S seconds from the averages")
	fl.Int64Var(&f.tau, "tau", 10, "bounded-slowdown threshold τ in seconds")
	fl.IntVar(&f.workers, "workers", runtime.GOMAXPROCS(0), "policies simulated in parallel")
	fl.BoolVar(&f.noAudit, "no-audit", false, "skip the schedule audit after each simulation")
	fl.StringVar(&f.deadlines, "deadlines", "", "make a deadline workload (Islam et al.'s QoPS evaluation) before simulating: key=value pairs s (stringency: deadline = submit + max(runtime, (1−s)·EASY response)), l (load factor), load (dup or expand), frac (share of deadline jobs), offset and n (subset), seed; e.g. s=0.2:l=1.4:load=dup:frac=0.8:n=5000 (use with --estimate exact, as the paper)")
	fl.BoolVar(&f.plainCSV, "plain-csv", false, "with --out: also write POLICY.plain.csv, the per-job CSV without its '#' provenance lines (for evalys and other readers that do not skip comments), and the provenance in POLICY.provenance.txt")
	fl.BoolVar(&f.human, "human", false, "table format: durations as days, hours and minutes (4d 02h) instead of seconds")
	fl.StringVar(&f.nodes.File, "machine", "", "machine file (YAML: nodes × cores, memory, GPUs, partitions; docs/simulator.md): P = its core count, and every started job gets concrete core ids (allocated_resources in jobs.csv)")
	fl.StringVar(&f.nodes.Sidecar, "sidecar", "", "with --machine or --cores-per-node: the sidecar CSV of backfill import, whose node counts, exclusive (whole-node) jobs, memory, GPUs and partitions the allocation respects (docs/simulator.md); default: TRACE.sidecar.csv beside an imported TRACE.swf when present; \"none\": cores only")
	fl.IntVar(&f.nodes.CoresPerNode, "cores-per-node", 0, "the uniform case without a machine file: nodes of this many cores (P, from --procs or the trace, must be a multiple)")
	fl.StringVar(&f.nodes.Alloc, "alloc", "firstfit", "with --machine, the core selection rule: firstfit (by node index), bestfit (fewest free cores that fit, as Slurm's cons_tres) or contiguous (one interval of core ids when possible)")
	fl.StringArrayVar(&f.classes, "classes", nil, "also print per-class tables (table format), one per rule QUANTITY:B1,B2,… with QUANTITY runtime, size or estimate, e.g. size:1,8,64 (repeat the flag for several rules)")
	return cmd
}

// checkTau rejects a bounded-slowdown threshold below 1 s: bounded
// slowdown is (wait + runtime) / max(runtime, τ), which τ ≤ 0 leaves
// undefined for jobs of runtime 0 (Feitelson et al. use τ = 10 s).
func checkTau(tau int64) error {
	if tau < 1 {
		return fmt.Errorf("--tau %d: the bounded-slowdown threshold must be at least 1 s (the papers use 10 s)", tau)
	}
	return nil
}

// simulateGCPercent is the garbage collector's target for a simulate run
// when GOGC is not set: a short batch process whose heap is mostly the
// trace and the outcomes, which it keeps to the end, so a collection at
// every doubling of the heap (GOGC=100) is work thrown away. 400 lets the
// heap grow to 5× the live data between collections (docs/PERFORMANCE.md,
// "The fixed cost of a run"); set GOGC to choose otherwise.
const simulateGCPercent = 400

func runSimulate(cmd *cobra.Command, f *simulateFlags) error {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(simulateGCPercent)
	}
	if err := checkSimulateFlags(cmd, f); err != nil {
		return err
	}
	rules, err := parseClassRules(f.classes)
	if err != nil {
		return err
	}
	if len(rules) > 0 && f.format != "table" {
		return fmt.Errorf("--classes: per-class tables are printed in the table format only")
	}
	if err := resolveMachine(cmd, f); err != nil {
		return err
	}
	tr, err := f.load(f.trace)
	if err != nil {
		return err
	}
	if err := prepareTrace(cmd, f, tr); err != nil {
		return err
	}
	opt := f.simOptions(tr)
	header, err := resolveAuto(tr, f, opt)
	if err != nil {
		return err
	}
	if err := metrics.CheckWindow(tr.Jobs, opt.Metrics); err != nil {
		return fmt.Errorf("--warmup %d --drain %d: %w", f.warmUp, f.drain, err)
	}
	results, err := simulateAll(tr, f, opt)
	if err != nil {
		return err
	}
	rows := simulate.Rows(results)
	header = append(header, simulate.AllocNotes(results)...)
	header = append(header, simulate.ExtensionNotes(opt, results)...)
	if f.out != "" {
		if err := simulate.WriteDir(f.out, tr, results, rows, header, simulate.DirOptions{Tau: f.tau, PlainCSV: f.plainCSV}); err != nil {
			return err
		}
	}
	if f.format == "table" && f.trace == "" && !cmd.Flags().Changed("policy") {
		header = append(header, simulate.DefaultRunNote(tr)...)
	}
	if err := simulate.WriteSummary(cmd.OutOrStdout(), f.format, tr.Name, tr.Procs, rows, header, f.human); err != nil {
		return err
	}
	return simulate.WriteClassTables(cmd.OutOrStdout(), rules, results, metrics.Options{Procs: tr.Procs, Tau: f.tau, WarmUp: f.warmUp, Drain: f.drain})
}

// simOptions are the options of every run of f on tr.
func (f *simulateFlags) simOptions(tr *workload.Trace) simulate.Options {
	return simulate.Options{Procs: tr.Procs, Res: tr.ResCaps(), NoKill: f.noKill, Extend: f.overrun == "extend",
		NoAudit: f.noAudit, Metrics: metrics.Options{Tau: f.tau, WarmUp: f.warmUp, Drain: f.drain}, Machine: f.nodes.Machine, Alloc: f.nodes.Rule, Demands: f.nodes.Demands}
}

// resolveAuto replaces awt=auto in f's policies (simulate.ResolveAuto) and
// returns the outputs' provenance header, with the note of what was done.
func resolveAuto(tr *workload.Trace, f *simulateFlags, opt simulate.Options) ([]string, error) {
	header := simulate.Header(tr, toolVersion(), opt)
	specs, note, err := simulate.ResolveAuto(tr.Jobs, tr.Procs, f.policies, f.noKill)
	if err != nil {
		return nil, err
	}
	if note != "" {
		header = append(header, note)
	}
	f.policies = specs
	return header, nil
}

// resolveOverrun checks --overrun and reconciles it with --no-kill.
func (f *simulateFlags) resolveOverrun() error {
	switch f.overrun {
	case "kill", "extend", "run", "":
	default:
		return fmt.Errorf("--overrun: expected kill, extend or run, found %q", f.overrun)
	}
	if f.noKill {
		if f.overrun != "kill" && f.overrun != "run" && f.overrun != "" {
			return fmt.Errorf("--no-kill contradicts --overrun %s", f.overrun)
		}
		f.overrun = "run"
	}
	if f.overrun == "run" {
		f.noKill = true
	}
	return nil
}

// checkSimulateFlags refuses formats, policy lists, workers, cores per
// node, tau, window and overrun values that the run could not honour.
func checkSimulateFlags(cmd *cobra.Command, f *simulateFlags) error {
	if err := checkFormat(f.format); err != nil {
		return err
	}
	if len(f.policies) == 0 {
		return fmt.Errorf("--policy: no policy given")
	}
	seen := map[string]bool{}
	for _, p := range f.policies {
		if seen[p] {
			// the second run would overwrite the first one's files in --out
			return fmt.Errorf("--policy: %q given twice", p)
		}
		seen[p] = true
	}
	if f.workers < 1 {
		return fmt.Errorf("--workers %d: expected at least 1", f.workers)
	}
	if cmd.Flags().Changed("cores-per-node") && f.nodes.CoresPerNode < 1 {
		return fmt.Errorf("--cores-per-node %d: expected at least 1 core per node", f.nodes.CoresPerNode)
	}
	if err := checkTau(f.tau); err != nil {
		return err
	}
	if f.warmUp < 0 || f.drain < 0 {
		return fmt.Errorf("--warmup %d, --drain %d: expected seconds ≥ 0", f.warmUp, f.drain)
	}
	if err := f.resolveOverrun(); err != nil {
		return err
	}
	return nil
}

// resolveMachine reads --machine or --cores-per-node and the allocation
// rule, checking them against --procs (simulate.Nodes.Resolve).
func resolveMachine(cmd *cobra.Command, f *simulateFlags) error {
	f.nodes.AllocGiven, f.nodes.Trace = cmd.Flags().Changed("alloc"), f.trace
	procs, err := f.nodes.Resolve(f.procs, cmd.Flags().Changed("procs"))
	f.procs = procs
	return err
}

// prepareTrace applies the machine and its sidecar, the K-resource default
// policies and --deadlines to the loaded trace.
func prepareTrace(cmd *cobra.Command, f *simulateFlags, tr *workload.Trace) error {
	if err := f.nodes.Apply(tr); err != nil {
		return err
	}
	if tr.MemCap > 0 && !cmd.Flags().Changed("policy") {
		// the default policies schedule processors only
		f.policies = []string{"fcfs", "ff-easy", "bb-easy", "ff-cons"}
	}
	return simulate.ApplyDeadlines(tr, f.deadlines)
}

// simulateAll runs every policy of f on tr on the worker pool
// (simulate.TraceBatch), with a progress bar.
func simulateAll(tr *workload.Trace, f *simulateFlags, opt simulate.Options) ([]*simulate.Result, error) {
	bar := progress.NewJobs(int64(len(tr.Jobs)*len(f.policies)), "simulating")
	defer bar.Finish()
	return simulate.TraceBatch(tr, f.policies, opt, f.workers, func(n int) { bar.Add(int64(n)) })
}
