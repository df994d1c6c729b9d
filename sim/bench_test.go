package sim_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// benchTraces are real traces of light to heavy load; benchmarks skip
// those not present (../shared is beside the checkout).
var benchTraces = []string{
	"KTH-SP2-1996-2.1-cln.swf.gz",
	"CTC-SP2-1996-3.1-cln.swf.gz",
	"SDSC-SP2-1998-4.2-cln.swf.gz",
	"HPC2N-2002-2.2-cln.swf.gz",
	"CEA-Curie-2011-2.1-cln.swf.gz",
	"LCG-2005-1.swf.gz",
	"RICC-2010-2.noheader.swf.gz",
}

func loadBench(b *testing.B, name string) *workload.Trace {
	path := filepath.Join("..", "..", "shared", "traces", name)
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s not present", path)
	}
	tr, err := workload.Load(path, workload.Options{})
	if err != nil {
		b.Fatal(err)
	}
	return tr
}

// BenchmarkPolicies simulates each policy on each trace; the jobs/s metric
// is simulated jobs per second of wall time (trace loading excluded).
func BenchmarkPolicies(b *testing.B) {
	for _, name := range benchTraces {
		for _, spec := range []string{"fcfs", "easy", "conservative"} {
			b.Run(strings.TrimSuffix(name, ".swf.gz")+"/"+spec, func(b *testing.B) {
				tr := loadBench(b, name)
				b.ReportAllocs()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					s, _ := policy.New(spec, tr.Procs)
					if _, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(tr.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
			})
		}
	}
}
