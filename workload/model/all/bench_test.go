package all_test

import (
	"testing"

	"github.com/backfill-hpc/backfill/workload/model"
	_ "github.com/backfill-hpc/backfill/workload/model/all"
)

// BenchmarkGenerate measures generation speed per model (jobs/s is
// reported as a custom metric), with the model's own arrivals and with a
// calibrated load.
func BenchmarkGenerate(b *testing.B) {
	const n = 100000
	for _, spec := range []string{"lublin", "lublin:classes=1", "feitelson96", "feitelson96:repeat=0", "jann97"} {
		for _, load := range []float64{0, 0.8} {
			name := spec
			if load > 0 {
				name += "/load=0.8"
			}
			b.Run(name, func(b *testing.B) {
				m, err := model.New(spec)
				if err != nil {
					b.Fatal(err)
				}
				for i := 0; i < b.N; i++ {
					if _, err := m.Generate(model.Config{Jobs: n, Seed: uint64(i + 1), Load: load}); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "jobs/s")
			})
		}
	}
}
