package main

import (
	"github.com/spf13/cobra"
)

// reproductions are the `backfill reproduce` subcommands; each paper's
// reproduction adds its constructor from its own file.
var reproductions []func() *cobra.Command

func newReproduceCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "reproduce",
		Short: "Reproduce the experiments of the papers, printed beside the published figures",
		Example: `  backfill reproduce slack        # Talby & Feitelson §5 on the embedded KTH SP2 trace
  backfill reproduce qops --help  # what an experiment needs (traces) and how long it takes`,
		Args: cobra.NoArgs,
	}
	for _, f := range reproductions {
		cmd.AddCommand(f())
	}
	return cmd
}
