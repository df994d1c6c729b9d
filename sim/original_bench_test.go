package sim_test

import (
	"fmt"
	"hash/fnv"
	"os"
	"strconv"
	"testing"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// BenchmarkRICCOriginal simulates conservative backfilling on the first
// 100,000 jobs of RICC at its original load (0.89; mean queue 1,592): the
// case of issue 22, where every early end lets a long chain of
// reservations move up. jobs/s as in BenchmarkPolicies. Environment:
// BACKFILL_BENCH_FROM and BACKFILL_BENCH_JOBS choose the window of jobs
// (default the first 100,000; 447794 for the whole trace),
// BACKFILL_BENCH_POLICY the policy, BACKFILL_BENCH_NOKILL=1 runs without
// kills (sim.Options.NoKill); the log line gives a fingerprint of the
// schedule, to check that two builds schedule identically.
func BenchmarkRICCOriginal(b *testing.B) {
	tr := loadBench(b, "RICC-2010-2.noheader.swf.gz")
	from := 0
	if n, err := strconv.Atoi(os.Getenv("BACKFILL_BENCH_FROM")); err == nil && n > 0 {
		from = min(n, len(tr.Jobs))
	}
	tr.Jobs = tr.Jobs[from:min(len(tr.Jobs), from+benchN())]
	for i := range tr.Jobs {
		tr.Jobs[i].ID = i // a window is numbered from 0
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, _ := policy.New(benchPolicy(), tr.Procs)
		res, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs, NoKill: os.Getenv("BACKFILL_BENCH_NOKILL") == "1"})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 { // the schedule's fingerprint, to compare two builds
			h := fnv.New64a()
			for _, o := range res.Outcomes {
				fmt.Fprintf(h, "%d %d %d\n", o.ID, o.Start, o.End)
			}
			b.Logf("%s, %d jobs from %d: schedule fnv64a %016x", res.Policy, len(tr.Jobs), from, h.Sum64())
		}
	}
	b.ReportMetric(float64(len(tr.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
}

func benchPolicy() string {
	if p := os.Getenv("BACKFILL_BENCH_POLICY"); p != "" {
		return p
	}
	return "conservative"
}

func benchN() int {
	if n, err := strconv.Atoi(os.Getenv("BACKFILL_BENCH_JOBS")); err == nil && n > 0 {
		return n
	}
	return 100000
}
