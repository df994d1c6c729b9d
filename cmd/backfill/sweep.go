package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/experiment"
	"github.com/backfill-hpc/backfill/internal/progress"
)

type sweepFlags struct {
	out      string
	workers  int
	shard    string
	shards   int
	traces   string
	force    bool
	dryRun   bool
	noAudit  bool
	emit     bool
	slurm    experiment.SlurmOptions
	binary   string
	progress string
}

func newSweep() *cobra.Command {
	f := &sweepFlags{}
	cmd := &cobra.Command{
		Use:   "sweep EXPERIMENT.yaml",
		Short: "Run an experiment: workloads × policies × parameter grids, in parallel, resumable",
		Long: `sweep expands an experiment file (workloads with transformations, policies with
parameter grids, seeds; see docs/workbench.md) into runs, each identified by a
hash of its full configuration, and simulates them on a bounded pool of
workers. Each finished run is stored at once in the results directory
(runs/<id>/: config.json, result.json, jobs.parquet), so an interrupted sweep
resumes where it stopped, and a changed parameter reruns only the runs it
changes. A failing run is recorded with its error and does not stop the
others. When the whole sweep is done, summary.csv and summary.parquet hold
one row per run.

Sharding for array jobs: --shard i/n runs shard i (from 0) of n; without it
the shard comes from a Slurm job array (SLURM_ARRAY_TASK_ID and
SLURM_ARRAY_TASK_COUNT or _MIN/_MAX) or a Kubernetes Indexed Job
(JOB_COMPLETION_INDEX with --shards N or BACKFILL_SHARDS). --emit-slurm prints
an sbatch script for the whole sweep as an array; 'backfill collect DIR'
merges and checks the results afterwards.`,
		Example: `  backfill sweep experiment.yaml                    # all cores, results in the file's out: (or results/NAME)
  backfill sweep experiment.yaml --dry-run          # list the runs and what is done
  backfill sweep experiment.yaml --shard 3/10       # one tenth of the runs
  backfill sweep experiment.yaml --emit-slurm --partition short --shards 20 > sweep.sbatch
  backfill results results/NAME --where policy_name=easy`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runSweep(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.out, "out", "o", "", "results directory (default: the file's out:, else results/NAME)")
	fl.IntVarP(&f.workers, "workers", "j", runtime.GOMAXPROCS(0), "runs simulated at once")
	fl.StringVar(&f.shard, "shard", "", "run only shard i of n (i/n, i from 0); default: from the Slurm or Kubernetes array environment")
	fl.IntVar(&f.shards, "shards", 0, "number of shards: the array size for --emit-slurm (default: one per run, at most 1000), the count for a Kubernetes Indexed Job")
	fl.StringVar(&f.traces, "traces", "", "directory of the traces (replaces the file's traces:)")
	fl.BoolVar(&f.force, "force", false, "rerun finished runs too")
	fl.BoolVar(&f.dryRun, "dry-run", false, "list the runs (and whether each is done) without running them")
	fl.BoolVar(&f.noAudit, "no-audit", false, "skip the schedule audit of each run (default: as the file's simulation.audit)")
	fl.StringVar(&f.progress, "progress", "auto", "progress display: auto (a bar on a terminal, log lines otherwise), bar, log or none")
	fl.BoolVar(&f.emit, "emit-slurm", false, "print an sbatch script running the sweep as a Slurm job array, and exit")
	fl.StringVar(&f.slurm.Partition, "partition", "", "--emit-slurm: the partition")
	fl.StringVar(&f.slurm.Account, "account", "", "--emit-slurm: the account")
	fl.StringVar(&f.slurm.Time, "time", "", "--emit-slurm: the time limit of each task (e.g. 2:00:00)")
	fl.StringVar(&f.slurm.Mem, "mem", "", "--emit-slurm: the memory of each task (e.g. 4G)")
	fl.IntVar(&f.slurm.CPUs, "cpus-per-task", 1, "--emit-slurm: CPUs (and workers) per array task")
	fl.IntVar(&f.slurm.Concurrent, "array-limit", 0, "--emit-slurm: at most this many tasks at once (0: no limit)")
	fl.StringVar(&f.slurm.JobName, "job-name", "", "--emit-slurm: the job name (default: backfill-NAME)")
	fl.StringArrayVar(&f.slurm.Extra, "sbatch", nil, "--emit-slurm: another #SBATCH option, e.g. --sbatch=--qos=short (repeatable)")
	fl.StringVar(&f.binary, "binary", "", "--emit-slurm: the backfill binary the tasks run (default: this one)")
	return cmd
}

func runSweep(cmd *cobra.Command, file string, f *sweepFlags) error {
	spec, err := experiment.ParseFile(file, experiment.ParseOptions{TracesDir: f.traces})
	if err != nil {
		return err
	}
	plan, err := experiment.Expand(spec)
	if err != nil {
		return err
	}
	out := f.out
	if out == "" {
		out = spec.Out
	}
	if out == "" {
		out = filepath.Join("results", spec.Name)
	}
	stdout, stderr := cmd.OutOrStdout(), cmd.ErrOrStderr()
	if f.emit {
		o := f.slurm
		o.Binary, o.NoAudit, o.Shards = f.binary, f.noAudit, f.shards
		return experiment.WriteSlurm(stdout, stderr, o, file, out, f.traces, spec, plan)
	}
	shard := experiment.Shard{}
	source := ""
	if f.shard != "" {
		if shard, err = experiment.ParseShard(f.shard); err != nil {
			return fmt.Errorf("--shard: %w", err)
		}
		source = "--shard"
	} else if shard, source, err = experiment.ShardFromEnv(os.Getenv, f.shards); err != nil {
		return err
	}
	if f.dryRun {
		return experiment.WriteDryRun(stdout, out, plan, shard)
	}
	experiment.WriteStart(stderr, spec, plan, shard, source, out)
	rep, err := executeSweep(stderr, spec, plan, out, shard, f)
	if err != nil {
		return err
	}
	return rep.Conclude(stderr, shard, out)
}

// executeSweep runs the plan's runs of shard into out, showing progress on
// stderr; the first Ctrl-C (or SIGTERM) lets the runs in progress finish,
// a second one ends the process.
func executeSweep(stderr io.Writer, spec *experiment.Spec, plan *experiment.Plan, out string, shard experiment.Shard, f *sweepFlags) (*experiment.Report, error) {
	disp := progress.NewSweep(stderr, f.progress)
	rep, err := experiment.ExecuteUntilSignal(stderr, spec, plan, experiment.Options{
		Out: out, Workers: f.workers, Shard: shard, Force: f.force, Audit: spec.Sim.Audit && !f.noAudit,
		Version: toolVersion(), OnEvent: disp.Event,
	})
	disp.Finish()
	return rep, err
}
