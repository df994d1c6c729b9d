package main

import (
	"bufio"
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/internal/progress"
	"github.com/backfill-hpc/backfill/reproduce"
)

// reproductions are the `backfill reproduce` subcommands; each paper's
// reproduction adds its constructor from its own file.
var reproductions []func() *cobra.Command

func newReproduceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reproduce",
		Short: "Reproduce the experiments of the papers, printed beside the published figures with a verdict per claim",
		Long: `Each subcommand reruns one paper's experiments and prints our figures beside
the published ones, then one verdict per published claim: reproduced,
reproduced under a stated setting, or not reproduced (with the evidence).
docs/reproductions.md argues every verdict. Progress goes to stderr (a bar
on a terminal, a line per finished cell otherwise); the report to stdout.`,
		Example: `  backfill reproduce slack        # Talby & Feitelson §5 on the embedded KTH SP2 trace
  backfill reproduce qops --help  # what an experiment needs (traces) and how long it takes`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return fmt.Errorf("reproduce: unknown reproduction %q (run 'backfill reproduce --help' for the list)", args[0])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	for _, f := range reproductions {
		cmd.AddCommand(f())
	}
	return cmd
}

// defaultTraces is the default of every reproduction's --traces.
var defaultTraces = filepath.Join("..", "shared", "traces")

// addTracesFlag registers --traces on a reproduction.
func addTracesFlag(cmd *cobra.Command, dir *string) {
	cmd.Flags().StringVar(dir, "traces", defaultTraces, "directory of the SWF traces (the Parallel Workloads Archive's cleaned logs)")
}

// runReproduction runs a reproduction (run), with its finished cells
// reported on stderr through *cells (a bar on a terminal, else one
// line per cell with the elapsed time), and prints its report.
func runReproduction(cmd *cobra.Command, name string, cells *reproduce.Progress, run func() (*reproduce.Report, error)) error {
	p, done := progress.Cells(name)
	*cells = p
	r, err := run()
	done()
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(cmd.OutOrStdout(), 1<<16)
	if err := r.WriteText(w); err != nil {
		return err
	}
	return w.Flush()
}
