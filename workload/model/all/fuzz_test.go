package all_test

import (
	"testing"

	"github.com/backfill-hpc/backfill/workload/model"
)

// FuzzModelSpec: any model spec either fails with an error or builds a
// model whose small workloads (with its own arrivals, a Poisson rate or a
// target load) are valid — jobs in submission order with dense IDs, sizes
// in [1, P], runtimes ≥ 0, estimates ≥ 1 — or fail with an error. Never a
// panic, and the same seed gives the same jobs.
func FuzzModelSpec(f *testing.F) {
	for _, s := range []string{"lublin", "lublin:classes=1", "feitelson96", "feitelson96:repeat=0",
		"jann97", "lublin:inter.serial=0.9", "feitelson96:order=2:pow2=8", "lublin:classes=3", "nosuch", "lublin:x"} {
		f.Add(s, uint8(64), uint8(0))
	}
	f.Fuzz(func(t *testing.T, spec string, procs, mode uint8) {
		m, err := model.New(spec)
		if err != nil {
			return
		}
		cfg := model.Config{Jobs: 40, Procs: int(procs), Seed: 7}
		switch mode % 3 {
		case 1:
			cfg.Rate = 0.01
		case 2:
			cfg.Load = 0.7
		}
		w, err := m.Generate(cfg)
		if err != nil {
			return
		}
		for i, j := range w.Jobs {
			if j.ID != i || j.Procs < 1 || j.Procs > w.Procs || j.Runtime < 0 || j.Estimate < 1 || (i > 0 && j.Submit < w.Jobs[i-1].Submit) {
				t.Fatalf("%s: job %d invalid: %+v (P = %d)", spec, i, j, w.Procs)
			}
		}
		w2, err := m.Generate(cfg)
		if err != nil || len(w2.Jobs) != len(w.Jobs) {
			t.Fatalf("%s: second generation differs: %v", spec, err)
		}
		for i := range w.Jobs {
			if w.Jobs[i].Submit != w2.Jobs[i].Submit || w.Jobs[i].Procs != w2.Jobs[i].Procs || w.Jobs[i].Runtime != w2.Jobs[i].Runtime {
				t.Fatalf("%s: not deterministic at job %d", spec, i)
			}
		}
	})
}
