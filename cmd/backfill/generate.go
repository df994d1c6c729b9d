package main

import (
	"bytes"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/backfill-hpc/backfill/workload/model"
	_ "github.com/backfill-hpc/backfill/workload/model/all" // register every workload model
)

type generateFlags struct {
	jobs     int
	procs    int
	seed     uint64
	load     float64
	rate     float64
	estimate string
	out      string
}

func newGenerate() *cobra.Command {
	f := &generateFlags{}
	var models strings.Builder
	for _, m := range model.List() {
		fmt.Fprintf(&models, "  %-12s %s\n", m.Name, m.Doc)
	}
	cmd := &cobra.Command{
		Use:   "generate MODEL[:key=value...]",
		Short: "Generate a synthetic workload (Lublin-Feitelson, Feitelson 1996, Jann et al.) as SWF",
		Long: `generate writes a synthetic workload in the Standard Workload Format. The
header records the model, every parameter with its source, the seed and the
arrival process; the same arguments give the same file, byte for byte.

Models:
` + models.String() + `
Arrivals: by default each model's own arrival process (feitelson96 has none:
Poisson arrivals at offered load 0.7). --load L scales the arrival process so
that the offered load sum(size*runtime) / (P * (last submit - first submit))
is L; --rate R uses Poisson arrivals at R jobs per second instead.
Parameters are overridden in the spec, e.g. lublin:classes=1 or
feitelson96:repeat=0:pow2=3 (see docs/workload.md).`,
		Example: `  backfill generate lublin --jobs 10000 --procs 256 --load 0.8 -o lublin.swf
  backfill generate feitelson96:repeat=0 --rate 0.01 --seed 7 -o f96.swf
  backfill generate jann97 --estimate factor:3 -o jann.swf && backfill info jann.swf --compare ../shared/traces/CTC-SP2-1996-3.1-cln.swf.gz
  # the RLScheduler reference sample was made with whole-sample parameters
  backfill generate lublin:classes=1 --procs 256 -o lublin.swf && backfill info lublin.swf --compare ../shared/traces/synthetic/lublin_256.swf.gz`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			// 0 is the flags' "not given": an explicit 0 is refused
			if err := checkProcsLoad(cmd.Flags().Changed, f.procs, f.load, "for the model's", "for the model's arrival process"); err != nil {
				return err
			}
			var buf bytes.Buffer
			if err := model.WriteSWF(&buf, args[0], model.Config{Jobs: f.jobs, Procs: f.procs, Seed: f.seed, Load: f.load, Rate: f.rate}, f.estimate); err != nil {
				return err
			}
			if f.out == "" || f.out == "-" {
				_, err := cmd.OutOrStdout().Write(buf.Bytes())
				return err
			}
			if err := os.WriteFile(f.out, buf.Bytes(), 0o644); err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "wrote %d jobs to %s\n", f.jobs, f.out)
			return nil
		},
	}
	fl := cmd.Flags()
	fl.IntVarP(&f.jobs, "jobs", "n", 10000, "number of jobs (1 to 10,000,000)")
	fl.IntVarP(&f.procs, "procs", "p", 0, "machine size P (default: the model's: lublin 128, feitelson96 128, jann97 322)")
	fl.Uint64Var(&f.seed, "seed", 1, "random seed")
	fl.Float64Var(&f.load, "load", 0, "target offered load (scales the arrival process)")
	fl.Float64Var(&f.rate, "rate", 0, "Poisson arrivals at this many jobs per second instead of the model's arrival process")
	fl.StringVar(&f.estimate, "estimate", "exact", "runtime estimates: exact (= runtime), factor:F, double or modal[:atmax=P][:max=S] (applied to estimate = runtime, with --seed)")
	fl.StringVarP(&f.out, "out", "o", "", "output file (default: standard output)")
	return cmd
}
