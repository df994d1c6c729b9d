package main

import (
	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/reproduce"
)

func init() { reproductions = append(reproductions, newReproduceMQLook) }

func newReproduceMQLook() *cobra.Command {
	c := reproduce.DefaultMQLook()
	cmd := &cobra.Command{
		Use:   "mqlook",
		Short: "Rajaei & Dadfar: EASY vs multiple-queue vs lookahead backfilling, on a 16-node workload like the seed paper's and on real traces",
		Long: `Compares EASY (the seed paper's "basic aggressive" backfilling), multiple-queue
backfilling (Lawson & Smirni) and lookahead backfilling (Shmueli & Feitelson's
LOS), each also in the seed paper's variant, and prints mean wait, bounded
slowdown and utilization with the seed paper's qualitative findings beside
ours and a verdict each. Jobs are killed at their estimate. Parts (--part):

  seed    the seed paper's setting: a 16-node cluster whose master does not
          compute (P = 15; multiple-queue partitions 4/4/4/3) and batches of
          30 jobs shaped like its Table 1 — arrivals uniform in 1…16 s, 1 to 4
          processors, estimates uniform in 10…100 s (9 jobs), 200…300 s (11)
          and 1300…1400 s (10), runtime = estimate; averaged over --batches
          random batches
  scaled  KTH-SP2 scaled down to 15 processors: sizes × 15/100 rounded up,
          arrivals stretched so that the offered load stays the trace's
  real    real traces at their own size (--real, read from --traces; KTH-SP2
          falls back to the embedded copy, missing traces are skipped)
  depth   the two LOS settings that are our reading: lookahead depth 1 … all
          and skip limit C = 0 … ∞, on the scaled and real workloads

Expected duration with the defaults: about 2 minutes of CPU.`,
		Example: `  backfill reproduce mqlook
  backfill reproduce mqlook --part seed --batches 1000
  backfill reproduce mqlook --part real,depth --real HPC2N-2002-2.2-cln.swf.gz`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReproduction(cmd, "mqlook", &c.Progress, func() (*reproduce.Report, error) { return reproduce.MQLook(c) })
		},
	}
	fl := cmd.Flags()
	addTracesFlag(cmd, &c.Traces)
	fl.StringSliceVar(&c.Real, "real", c.Real, "real traces (file names in --traces) for the real and depth parts")
	fl.StringSliceVar(&c.Parts, "part", c.Parts, "parts to run: seed, scaled, real, depth")
	fl.IntVar(&c.Batches, "batches", c.Batches, "random 30-job batches of the seed part")
	fl.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the first batch (batch i uses seed+i)")
	fl.IntVar(&c.Workers, "workers", 0, "simulations run in parallel (0: all cores)")
	return cmd
}
