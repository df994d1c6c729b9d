package main

import (
	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/reproduce"
	wkres "github.com/backfill-hpc/backfill/workload/kresource"
)

func init() { reproductions = append(reproductions, newReproduceKres) }

func newReproduceKres() *cobra.Command {
	c := reproduce.DefaultKres()
	var dists []string
	cmd := &cobra.Command{
		Use:   "kresource",
		Short: "Leinberger, Karypis & Kumar: BL, BB and FF-CONS against FF-EASY on K resources (Figures 2 and 3), and on real traces with memory",
		Long: `Synthetic part (the paper's §3): jobs of the Feitelson 1996 model (no
repeated runs, estimate = runtime) on a machine of P processors, each job's
size turned into K requirements (uniform or exponential factors scaled by
the size; every resource has capacity P), Poisson arrivals. For each K,
distribution and target mean ready-queue length, the arrival rate is
searched for (interpolation in log-log space) at which FCFS/FF-EASY's mean ready-queue
length over the arrival period is the target within --tol; BL-EASY,
BB-EASY and FF-CONS run at that rate. Printed: the performance gain of each
over FF-EASY, (FF − X)/FF in %, for mean response time (Figure 2) and
weighted mean response time (Figure 3), mean with a 95 % confidence
interval (Student t) over --seeds replications; then each of the paper's
seven statements with ours beside it, a table of whether it holds under
every reading of what the paper leaves open (--pow2, --exp-mean, BL and BB
with and without the fullness modifier, three definitions of the weight),
and a verdict.

Real part: K = 2 (processors, memory from SWF field 10) on the shared
traces that record requested memory, with each machine's memory from its
archive page and, to make memory bind more often, a fraction of it
(--mem-scale); FF-EASY without the memory constraint is shown for
reference, and the utilization and peak use of each resource.

Expected duration with the defaults: about 2.5 minutes of CPU (146 s measured
on 2026-11-25; about half of that in wall time on two idle cores); each
further --pow2 value adds about 2 minutes of CPU, each further --exp-mean
value about 1. The real part simulates the first 50,000 jobs of
each trace (--real-jobs; the full traces take about 18 minutes of CPU).`,
		Example: `  backfill reproduce kresource
  backfill reproduce kresource --pow2 4,1 --exp-mean 0.5,0.2
  backfill reproduce kresource --no-synthetic --real-jobs 0 --traces ../shared/traces`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c.Dists = nil
			for _, s := range dists {
				d, err := wkres.ParseDist(s)
				if err != nil {
					return err
				}
				c.Dists = append(c.Dists, d)
			}
			return runReproduction(cmd, "kresource", &c.Progress, func() (*reproduce.Report, error) { return reproduce.Kresource(c) })
		},
	}
	kresFlags(cmd, &c, &dists)
	return cmd
}

func kresFlags(cmd *cobra.Command, c *reproduce.KresConfig, dists *[]string) {
	fl := cmd.Flags()
	fl.IntVar(&c.Jobs, "jobs", c.Jobs, "jobs per synthetic workload")
	fl.IntVar(&c.Seeds, "seeds", c.Seeds, "replications (seeds 1..N) of each synthetic configuration")
	fl.IntVar(&c.Procs, "procs", c.Procs, "machine size P, the capacity of every resource")
	fl.IntSliceVar(&c.Ks, "k", c.Ks, "numbers of resources K")
	fl.StringSliceVar(dists, "dist", []string{"uniform", "exponential"}, "distributions of the requirement factors")
	fl.IntSliceVar(&c.Queues, "queue", c.Queues, "target mean ready-queue lengths of FF-EASY")
	fl.Float64Var(&c.Tol, "tol", c.Tol, "relative tolerance of the rate search on the mean queue length")
	fl.IntVar(&c.MaxSteps, "max-steps", c.MaxSteps, "largest number of FF-EASY runs in one rate search")
	fl.Float64SliceVar(&c.Pow2, "pow2", c.Pow2, "Feitelson 1996 weights of power-of-two sizes, each a workload setting (first: the main one; 1: no preference)")
	fl.Float64SliceVar(&c.ExpMeans, "exp-mean", c.ExpMeans, "means of the exponential requirement factors before truncation to (0, 1], each a workload setting")
	fl.IntVar(&c.Workers, "workers", 0, "simulations run in parallel (0: all cores)")
	addTracesFlag(cmd, &c.Traces)
	fl.StringSliceVar(&c.Real, "real", c.Real, "real traces with requested memory (file names in --traces)")
	fl.IntVar(&c.RealJobs, "real-jobs", c.RealJobs, "simulate only the first N jobs of each real trace (0: all; the full traces take about 18 min of CPU)")
	fl.Float64SliceVar(&c.MemScale, "mem-scale", c.MemScale, "machine memory of the real traces as multiples of the archive's (jobs that no longer fit are skipped and counted)")
	fl.BoolVar(&c.NoSynthetic, "no-synthetic", false, "skip the synthetic part")
	fl.BoolVar(&c.NoReal, "no-real", false, "skip the real-trace part")
	fl.StringSliceVar(&c.Variants, "variants", c.Variants, "further K-resource policies shown beside BL, BB and FF-CONS (empty: none)")
}
