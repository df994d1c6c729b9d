package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/backfill-hpc/backfill/experiment"
)

type resultsFlags struct {
	format  string
	where   []string
	columns []string
	all     bool
	out     string
}

func newResults() *cobra.Command {
	f := &resultsFlags{}
	cmd := &cobra.Command{
		Use:   "results DIR",
		Short: "List and filter the runs of a sweep's results directory",
		Long: `results reads the runs stored in a results directory of 'backfill sweep' (finished
or failed; a sweep in progress shows what is done so far) and prints one row per
run: its configuration (workload, transformations, policy and one p_NAME column
per policy parameter) and its metrics (docs/metrics.md). Rows follow the order
of the sweep's plan.

--where COLUMN OP VALUE keeps the rows that match (repeatable; all must match).
OP is = or != (text), <, <=, >, >= (numbers), or ~ (contains). A cell without
value (a failed run's metrics, a parameter the policy lacks) matches only
COLUMN= (empty) and COLUMN!=VALUE.`,
		Example: `  backfill results results/loads
  backfill results results/loads --where policy_name=easy --where 'load>=0.8'
  backfill results results/loads --where status=failed --columns run,workload,policy,error
  backfill results results/loads --format parquet -o easy.parquet --where policy_name=easy`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runResults(cmd, args[0], f) },
	}
	fl := cmd.Flags()
	fl.StringVarP(&f.format, "format", "f", "table", "table, csv, json or parquet")
	fl.StringArrayVarP(&f.where, "where", "w", nil, "filter COLUMN OP VALUE with OP one of = != < <= > >= ~ (repeatable)")
	fl.StringSliceVarP(&f.columns, "columns", "c", nil, "columns to print, comma-separated (default for the table: the columns that vary, and the main metrics; other formats: all)")
	fl.BoolVar(&f.all, "all", false, "also list stored runs that are not in the current plan (left by an earlier version of the sweep)")
	fl.StringVarP(&f.out, "output", "o", "", "write to this file instead of standard output")
	return cmd
}

func runResults(cmd *cobra.Command, dir string, f *resultsFlags) error {
	switch f.format {
	case "table", "csv", "json", "parquet":
	default:
		return fmt.Errorf("--format: expected table, csv, json or parquet, found %q", f.format)
	}
	runs, _, err := experiment.ReadStore(dir, f.all)
	if err != nil {
		return err
	}
	t, cols, err := experiment.Select(runs, dir, f.where, f.columns, f.format == "table")
	if err != nil {
		return err
	}
	w, closeOut, err := resultsOut(cmd.OutOrStdout(), f)
	if err != nil {
		return err
	}
	defer closeOut()
	return t.Write(w, f.format, cols)
}

func newCollect() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "collect DIR [DIR...]",
		Short: "Merge the results of a sharded sweep and check that every run is there exactly once",
		Long: `collect merges the results of a sweep run in shards (a Slurm or Kubernetes array
writing into one shared directory, or several directories, e.g. one per
machine) and checks them against the sweep's plan: every planned run must be
present exactly once, intact (its configuration hashes to its ID) and
successful. It writes summary.csv and summary.parquet into the first DIR (or
--out), copying in the runs found in the other directories. It exits with an
error listing every missing, duplicated, corrupt or failed run.`,
		Example: `  backfill collect /scratch/results/loads
  backfill collect results/loads other-host/results/loads --out merged`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, dirs []string) error {
			dst := out
			if dst == "" {
				dst = dirs[0]
			}
			rep, err := experiment.Collect(dirs, dst)
			if err != nil {
				return err
			}
			rep.WriteSummary(cmd.ErrOrStderr(), dst)
			if !rep.Complete() {
				return fmt.Errorf("the sweep's results are not complete:\n  %s", strings.Join(rep.Problems(), "\n  "))
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "directory to merge into (default: the first DIR)")
	return cmd
}

// resultsOut is where results go: -o FILE, or w (refused for parquet on a
// terminal); closeOut closes the file.
func resultsOut(w io.Writer, f *resultsFlags) (io.Writer, func(), error) {
	if f.out != "" {
		fh, err := os.Create(f.out)
		if err != nil {
			return nil, nil, err
		}
		return fh, func() { fh.Close() }, nil
	}
	if f.format == "parquet" {
		if fh, ok := w.(*os.File); ok && term.IsTerminal(int(fh.Fd())) {
			return nil, nil, fmt.Errorf("--format parquet writes binary data: give -o FILE or redirect the output")
		}
	}
	return w, func() {}, nil
}
