package slurm

import (
	_ "github.com/backfill-hpc/backfill/policy/easy"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// BenchmarkTrace simulates slurm (defaults, and the site configuration of
// experiments/slurm) beside EASY on a real trace (BACKFILL_BENCH_TRACE,
// default SDSC-SP2; BACKFILL_BENCH_LOAD, an offered load to scale it to);
// backfill bench gives the figures of docs/PERFORMANCE.md.
func BenchmarkTrace(b *testing.B) {
	name := os.Getenv("BACKFILL_BENCH_TRACE")
	if name == "" {
		name = "SDSC-SP2-1998-4.2-cln.swf.gz"
	}
	path := filepath.Join("..", "..", "..", "shared", "traces", name)
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s not present", path)
	}
	tr, err := workload.Load(path, workload.Options{})
	if err != nil {
		b.Fatal(err)
	}
	if l := os.Getenv("BACKFILL_BENCH_LOAD"); l != "" {
		x, err := strconv.ParseFloat(l, 64)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := workload.ScaleLoad(tr, x); err != nil {
			b.Fatal(err)
		}
	}
	for _, spec := range []string{"easy", "slurm", "slurm:slurmconf=../../experiments/slurm/site.conf"} {
		b.Run(spec, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				s, err := policy.New(spec, tr.Procs)
				if err != nil {
					b.Fatal(err)
				}
				if _, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tr.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
