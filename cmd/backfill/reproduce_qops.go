package main

import (
	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/reproduce"
)

func init() { reproductions = append(reproductions, newReproduceQoPS) }

func newReproduceQoPS() *cobra.Command {
	c := reproduce.DefaultQoPS()
	cmd := &cobra.Command{
		Use:   "qops",
		Short: "Islam et al., QoPS: deadline scheduling with admission control (QoPS vs MSB vs MRT, EASY and conservative)",
		Long: `Reproduces the experiments of Islam, Balaji, Sadayappan & Panda, "QoPS: A QoS
based scheme for parallel job scheduling" (§5), printing our figures beside
the paper's findings (the paper gives its results as plots only, so its
statements are quoted rather than numbers), each with a verdict.

Workloads (package workload/deadline): 5000-job subsets (--jobs, --offset) of
CTC-SP2 and SDSC-SP2 with exact runtime estimates (the paper assumes accurate
estimates), the load raised to l by duplication (incremental) or expansion
(runtimes × l), deadlines submit + max(runtime, (1 − s) × EASY response), and
all jobs, 80 % or 20 % of them with deadlines; the others get QoPS's
artificial deadline max(24 h, R × estimate). Jobs are killed at their
estimate. Every schedule is audited: no admitted job may miss its deadline.

Parts (--part):
  deadline     all jobs with deadlines: unadmitted jobs and processor-seconds,
               achieved utilization beside EASY and conservative (Figures 4–12)
  mixed        80 % and 20 % deadline jobs: unadmitted deadline jobs and
               processor-seconds, utilization (Figures 13–24, 37–42); response
               and bounded slowdown of the non-deadline jobs against offered
               load (Figures 25–36) and against achieved utilization (43–54)
  r            QoPS with R = 2, 5, 10: the non-deadline jobs (Figures 55–58)
  region       where "QoPS admits the most" holds over the parameters the
               paper does not give: QoPS's K-factor (--region-k), MRT's
               backtrack limit (--region-backtrack) and R (--region-r), on
               CTC-SP2 by duplication at s = 0.2 and the two highest loads

Traces are read from --traces; a missing trace is reported and skipped; with
none of them the command fails.

Expected duration with the defaults: about 2 minutes of CPU (116 s measured
on 2026-11-24, 424 simulations on both cores; about half of that in wall
time on two idle cores).`,
		Example: `  backfill reproduce qops
  backfill reproduce qops --part deadline --loads 1,1.6 --jobs 2000
  backfill reproduce qops --policies qops,qops:k=20,msb,mrt:backtrack=100`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runReproduction(cmd, "qops", &c.Progress, func() (*reproduce.Report, error) { return reproduce.QoPS(c) })
		},
	}
	qopsFlags(cmd, &c)
	return cmd
}

func qopsFlags(cmd *cobra.Command, c *reproduce.QoPSConfig) {
	fl := cmd.Flags()
	addTracesFlag(cmd, &c.Traces)
	fl.StringSliceVar(&c.Parts, "part", c.Parts, "parts to run: deadline, mixed, r, region")
	fl.IntVar(&c.Jobs, "jobs", c.Jobs, "jobs in each trace subset (the paper: 5000)")
	fl.IntVar(&c.Offset, "offset", c.Offset, "first job of each subset")
	fl.Float64SliceVar(&c.Loads, "loads", c.Loads, "load factors l")
	fl.Float64SliceVar(&c.Stringency, "stringency", c.Stringency, "stringency factors s")
	fl.StringSliceVar(&c.Policies, "policies", c.Policies, "deadline policies compared (with parameters; EASY and conservative are always added)")
	fl.Float64SliceVar(&c.Rs, "r", c.Rs, "relaxation factors R of the r part (QoPS)")
	fl.IntSliceVar(&c.RegionK, "region-k", c.RegionK, "QoPS K-factors of the region part")
	fl.IntSliceVar(&c.RegionBacktrack, "region-backtrack", c.RegionBacktrack, "MRT backtrack limits of the region part")
	fl.Float64SliceVar(&c.RegionR, "region-r", c.RegionR, "relaxation factors R of the region part (mixed workloads)")
	fl.Uint64Var(&c.Seed, "seed", c.Seed, "seed of the duplication and of the choice of deadline jobs")
	fl.IntVar(&c.CTCProcs, "ctc-procs", c.CTCProcs, "machine size for CTC-SP2 (default: the header's 338, the batch partition)")
	fl.IntVar(&c.Workers, "workers", 0, "simulations run in parallel (0: all cores)")
}
