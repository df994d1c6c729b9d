package main

import (
	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/reproduce"
)

func init() { reproductions = append(reproductions, newReproduceEstimates) }

func newReproduceEstimates() *cobra.Command {
	c := reproduce.DefaultEstimates()
	cmd := &cobra.Command{
		Use:   "estimates",
		Short: "Feitelson's slides on runtime estimates: SJBF and EASY++ vs EASY, EASY vs conservative by class (CTC and Jann), the inaccuracy sweep",
		Long: `Reproduces the experiments on runtime estimates of Feitelson's slides
("Parallel Job Scheduling and Workloads"), printing our figures beside the
published ones and a verdict per claim. Jobs are killed at their estimate.
Parts (--part):

  sjbf     mean wait of EASY, SJBF (shortest job backfilled first) and EASY++
           (SJBF + predictions from the user's last 2 jobs, corrected to the
           estimate) on SDSC-SP2, CTC-SP2 (430, 512 and 338 processors),
           KTH-SP2 and SDSC-BLUE, in minutes, beside the slides' tables with
           their own "better by" columns
  classes  EASY vs conservative, response time and bounded slowdown for short
           (≤ 1 h) and long jobs, on CTC-SP2 with user and with exact
           estimates, and on the Jann model (--jann-seeds seeds of
           --jann-jobs jobs)
  sweep    mean bounded slowdown of EASY and conservative on CTC-SP2 (430
           processors) and KTH-SP2 as estimates get less accurate: exact,
           factor f = 2…10 (uniform in [r, f·r]), user, user × 2, and the
           modal model with more and more jobs at the maximum estimate

Traces are read from --traces; a missing trace is reported and skipped
(KTH-SP2 falls back to the embedded copy). Random estimate models are
averaged over --seeds seeds, the Jann model over --jann-seeds, with 95 %
confidence intervals.

Expected duration with the defaults: about 3 minutes of CPU.`,
		Example: `  backfill reproduce estimates
  backfill reproduce estimates --part sjbf --traces ../shared/traces
  backfill reproduce estimates --part sweep --seeds 5 --factors 1,2,5,10`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReproduction(cmd, "estimates", &c.Progress, func() (*reproduce.Report, error) { return reproduce.Estimates(c) })
		},
	}
	fl := cmd.Flags()
	addTracesFlag(cmd, &c.Traces)
	fl.StringSliceVar(&c.Parts, "part", c.Parts, "parts to run: sjbf, classes, sweep")
	fl.IntVar(&c.Seeds, "seeds", c.Seeds, "seeds per random estimate model (factor, modal) of the sweep")
	fl.IntVar(&c.JannSeeds, "jann-seeds", c.JannSeeds, "replications of the Jann model")
	fl.IntVar(&c.JannJobs, "jann-jobs", c.JannJobs, "jobs per Jann workload")
	fl.Float64SliceVar(&c.Factors, "factors", c.Factors, "inaccuracy factors f of the sweep")
	fl.IntVar(&c.Workers, "workers", 0, "simulations run in parallel (0: all cores)")
	return cmd
}
