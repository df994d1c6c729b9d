package sim_test

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// BenchmarkSaturated simulates conservative backfilling near saturation:
// the first 60,000 jobs of the two largest traces with their arrivals
// scaled to an offered load of 0.9 (workload.ScaleLoad), where queues of
// thousands make every early end compress a long schedule. jobs/s as in
// BenchmarkPolicies.
func BenchmarkSaturated(b *testing.B) {
	for _, name := range []string{"CEA-Curie-2011-2.1-cln.swf.gz", "RICC-2010-2.noheader.swf.gz"} {
		b.Run(strings.SplitN(name, "-", 2)[0]+"/conservative", func(b *testing.B) {
			tr := loadBench(b, name)
			if _, err := workload.ScaleLoad(tr, 0.9); err != nil {
				b.Fatal(err)
			}
			tr.Jobs = tr.Jobs[:min(len(tr.Jobs), 60000)]
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				s, _ := policy.New("conservative", tr.Procs)
				if _, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(len(tr.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
		})
	}
}
