package sim_test

import (
	"os"
	"strconv"
	"testing"

	"github.com/backfill-hpc/backfill/workload"
)

// BenchmarkLoad95 simulates one policy on one whole trace with its
// arrivals scaled to an offered load of 0.95 (workload.ScaleLoad), as
// `backfill bench --loads 0.95` does: by default multiple-queue
// backfilling on CEA-Curie, issue 22's worst case for it, EASY beside it.
// Environment: BACKFILL_BENCH_TRACE (a file name in ../shared/traces) and
// BACKFILL_BENCH_POLICY (comma-free spec) choose another pair,
// BACKFILL_BENCH_JOBS > 0 keeps only that many first jobs. The log
// line gives a fingerprint of the schedule, to check that two builds
// schedule identically. jobs/s as in BenchmarkPolicies.
func BenchmarkLoad95(b *testing.B) {
	name := os.Getenv("BACKFILL_BENCH_TRACE")
	if name == "" {
		name = "CEA-Curie-2011-2.1-cln.swf.gz"
	}
	specs := []string{"easy", "multiqueue"}
	if p := os.Getenv("BACKFILL_BENCH_POLICY"); p != "" {
		specs = []string{"easy", p}
	}
	for _, spec := range specs {
		b.Run(spec, func(b *testing.B) {
			tr := loadBench(b, name)
			if _, err := workload.ScaleLoad(tr, 0.95); err != nil {
				b.Fatal(err)
			}
			if n, err := strconv.Atoi(os.Getenv("BACKFILL_BENCH_JOBS")); err == nil && n > 0 {
				tr.Jobs = tr.Jobs[:min(n, len(tr.Jobs))]
			}
			runTrace(b, tr, spec, "on "+name+" at 0.95")
		})
	}
}
