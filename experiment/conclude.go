package experiment

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// WriteSummary writes what Collect found and did, merging into dst: the
// counts, the runs copied, the runs and temporary directories ignored,
// and where the summaries are.
func (r *CollectReport) WriteSummary(w io.Writer, dst string) {
	fmt.Fprintf(w, "%d runs planned: %d present (%d ok), %d missing, %d duplicated, %d failed, %d corrupt\n",
		r.Planned, r.Present, r.OK, len(r.Missing), len(r.Duplicated), len(r.Failed), len(r.Corrupt))
	if r.Copied > 0 {
		fmt.Fprintf(w, "%d runs copied into %s\n", r.Copied, dst)
	}
	if r.Extra > 0 {
		fmt.Fprintf(w, "%d stored runs are not in the plan (left by an earlier version of the sweep) and were ignored\n", r.Extra)
	}
	if r.Temp > 0 {
		fmt.Fprintf(w, "%d temporary directories of interrupted runs were ignored\n", r.Temp)
	}
	fmt.Fprintf(w, "summary: %s/%s, %s/%s\n", dst, SummaryCSV, dst, SummaryParquet)
}

// Conclude writes to w what an execution of shard into out did (runs
// already done, run now, failed, with each failure's first line), and,
// for a whole (unsharded) sweep, collects the results (Collect into out)
// and says where they are. It fails on an interruption, on failed runs,
// and when the collected results are incomplete.
func (r *Report) Conclude(w io.Writer, shard Shard, out string) error {
	fmt.Fprintf(w, "%d runs: %d already done, %d run now, %d failed\n", r.Planned, r.Finished, r.Ran, r.Failed)
	for _, fl := range r.Failures {
		fmt.Fprintf(w, "  failed %s (%s, %s): %s\n", fl.Run.ID, fl.Run.Label, fl.Run.Config.Policy, FirstLine(fl.Err))
	}
	if r.Interrupted {
		return fmt.Errorf("interrupted: %d runs not started; run the same command again to resume", r.Planned-r.Finished-r.Ran)
	}
	if !shard.Whole() {
		fmt.Fprintf(w, "shard %s done; when every shard has finished: backfill collect %s\n", shard, out)
	} else {
		crep, err := Collect([]string{out}, out)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "results: %s, %s (backfill results %s)\n",
			filepath.Join(out, SummaryCSV), filepath.Join(out, SummaryParquet), out)
		if !crep.Complete() && r.Failed == 0 {
			return fmt.Errorf("the results directory is incomplete:\n  %s", strings.Join(crep.Problems(), "\n  "))
		}
	}
	if r.Failed > 0 {
		return fmt.Errorf("%d of %d runs failed (recorded with their errors; backfill results %s --where status=failed)", r.Failed, r.Ran, out)
	}
	return nil
}

// Prepare completes o for the sweep spec of file, with results in out and
// the traces in tracesDir ("": the file's): absolute paths for the
// binary (default: the running executable), the file, out and the traces;
// Shards, when not set, one per run up to 1000 (of runs); JobName, when
// not set, backfill-NAME. It creates OUT/slurm, where the tasks' logs go
// (Slurm does not create the directory of --output).
func (o *SlurmOptions) Prepare(file, out, tracesDir string, spec *Spec, runs int) error {
	var err error
	if o.Binary == "" {
		if o.Binary, err = os.Executable(); err != nil {
			return err
		}
	}
	if o.Binary, err = filepath.Abs(o.Binary); err != nil {
		return err
	}
	if o.Spec, err = filepath.Abs(file); err != nil {
		return err
	}
	if o.Out, err = filepath.Abs(out); err != nil {
		return err
	}
	if tracesDir != "" {
		if o.TracesDir, err = filepath.Abs(tracesDir); err != nil {
			return err
		}
	}
	if o.Shards <= 0 {
		o.Shards = max(1, min(runs, 1000))
	}
	if o.JobName == "" {
		o.JobName = "backfill-" + spec.Name
	}
	return os.MkdirAll(filepath.Join(o.Out, "slurm"), 0o755)
}

// WriteSlurm is --emit-slurm: it completes o (Prepare) for the plan of the
// sweep spec of file, writes the sbatch script to w (EmitSlurm) and says
// on stderr how many runs and tasks it holds and where their logs go.
func WriteSlurm(w, stderr io.Writer, o SlurmOptions, file, out, tracesDir string, spec *Spec, plan *Plan) error {
	if err := o.Prepare(file, out, tracesDir, spec, len(plan.Runs)); err != nil {
		return err
	}
	if err := EmitSlurm(w, o); err != nil {
		return err
	}
	fmt.Fprintf(stderr, "sbatch script for %d runs in %d array tasks; task logs in %s\n", len(plan.Runs), o.Shards, filepath.Join(o.Out, "slurm"))
	return nil
}

// WriteStart says on w what a sweep is about to do: its runs (and the
// grid combinations collapsed), the shard's runs and where the shard came
// from (source) when the sweep is sharded, and the results directory.
func WriteStart(w io.Writer, spec *Spec, plan *Plan, shard Shard, source, out string) {
	fmt.Fprintf(w, "sweep %s: %d runs", spec.Name, len(plan.Runs))
	if plan.Collapsed > 0 {
		fmt.Fprintf(w, " (%d identical grid combinations collapsed: runs without randomness do not depend on the seed)", plan.Collapsed)
	}
	if !shard.Whole() {
		fmt.Fprintf(w, "; shard %s (%s): %d runs", shard, source, len(plan.Shard(shard)))
	}
	fmt.Fprintf(w, "; results in %s\n", out)
}
