package main

import (
	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/reproduce"
)

func init() { reproductions = append(reproductions, newReproduceSlack) }

func newReproduceSlack() *cobra.Command {
	c := reproduce.DefaultSlack()
	cmd := &cobra.Command{
		Use:   "slack",
		Short: "Talby & Feitelson §5: slack-based vs conservative backfilling on KTH SP2, month by month",
		Long: `Splits the KTH SP2 log into calendar months (Sep 1996 – Aug 1997, in the
trace's time zone) and simulates each month from an empty machine, with jobs
killed at their estimate, as the paper's simulator did. For each machine size
it prints per month the mean wait of EASY, conservative and slack-based
backfilling (αu = αt = αp = αf = 1, SF = 3, AWT = 2401, AST) beside the
paper's table; the yearly figure is total wait / total jobs. Then SF = 9 and
the other heuristics (yearly improvement over conservative), the
differential-priority experiment of §5.3 (every fifth job UP = PP = 1), the
tick strategy of §4.7, and a verdict for each of the paper's claims (checked
on the first machine size). The paper used 128 processors; the trace's
header says 100. The log is read from --traces (KTH-SP2-1996-2.1-cln.swf.gz),
else the embedded copy is used.

Expected duration: about 30 s of CPU.`,
		Example: `  backfill reproduce slack
  backfill reproduce slack --procs 128 --awt auto`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReproduction(cmd, "slack", &c.Progress, func() (*reproduce.Report, error) { return reproduce.Slack(c) })
		},
	}
	fl := cmd.Flags()
	addTracesFlag(cmd, &c.Traces)
	fl.IntSliceVar(&c.Procs, "procs", c.Procs, "machine sizes to simulate (the claims are checked on the first)")
	fl.StringVar(&c.AWT, "awt", c.AWT, "AWT in seconds, or auto (our conservative yearly mean wait for each machine size)")
	fl.IntVar(&c.Workers, "workers", 0, "simulations run in parallel (0: all cores)")
	fl.StringSliceVar(&c.Months, "months", nil, "only these months (YYYY-MM, comma-separated); the yearly rows then cover them only")
	return cmd
}
