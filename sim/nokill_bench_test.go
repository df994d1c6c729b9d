package sim_test

import (
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// BenchmarkNoKill compares each reservation-based policy with and without
// kills (sim.Options.NoKill) on real traces, EASY beside them: without
// kills the jobs that run past their estimates are overruns, whose handling
// must cost per event, not per second of overrun (issue 22). jobs/s as in
// BenchmarkPolicies.
func BenchmarkNoKill(b *testing.B) {
	for _, name := range []string{"KTH-SP2-1996-2.1-cln.swf.gz", "SDSC-SP2-1998-4.2-cln.swf.gz", "CTC-SP2-1996-3.1-cln.swf.gz", "HPC2N-2002-2.2-cln.swf.gz", "SDSC-BLUE-2000-4.2-cln.swf.gz"} {
		for _, spec := range []string{"easy", "conservative", "ff-cons", "qops", "slack"} {
			for _, noKill := range []bool{false, true} {
				mode := "kill"
				if noKill {
					mode = "nokill"
				}
				b.Run(strings.SplitN(name, "-", 3)[0]+strings.SplitN(name, "-", 3)[1]+"/"+spec+"/"+mode, func(b *testing.B) {
					tr := loadBench(b, name)
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						s, err := policy.NewK(spec, []int{tr.Procs})
						if err != nil {
							b.Fatal(err)
						}
						if _, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs, NoKill: noKill}); err != nil {
							b.Fatal(err)
						}
					}
					b.ReportMetric(float64(len(tr.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
				})
			}
		}
	}
}
