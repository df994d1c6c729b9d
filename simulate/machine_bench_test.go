package simulate_test

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/backfill-hpc/backfill/machine"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// cpuSeconds is the process's user + system CPU time so far.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
}

// BenchmarkMachine simulates EASY on the two largest traces on counts only
// ("counts") and with every job given concrete cores by each rule, on the
// machines' published node shapes: CEA-Curie 5,832 nodes × 16 cores
// (93,312), RICC 1,024 × 8 (8,192). Compare the variants' ns/op within
// one run (the machine is shared): the allocation overhead ratio.
func BenchmarkMachine(b *testing.B) {
	for _, tc := range []struct {
		name         string
		nodes, cores int
	}{{"CEA-Curie-2011-2.1-cln.swf.gz", 5832, 16}, {"RICC-2010-2.noheader.swf.gz", 1024, 8}} {
		path := filepath.Join("..", "..", "shared", "traces", tc.name)
		if _, err := os.Stat(path); err != nil {
			b.Skipf("%s not present", path)
		}
		tr, err := workload.Load(path, workload.Options{})
		if err != nil {
			b.Fatal(err)
		}
		m, err := machine.Uniform(tc.nodes, tc.cores)
		if err != nil || m.Procs() != tr.Procs {
			b.Fatalf("%v: machine of %d cores for P = %d", err, m.Procs(), tr.Procs)
		}
		dem := make([]machine.Demand, len(tr.Jobs))
		for i := range dem {
			dem[i].Set = true
		}
		for _, variant := range []string{"counts", "firstfit", "bestfit", "contiguous", "firstfit+nodes", "bestfit+nodes"} {
			if strings.HasSuffix(variant, "+nodes") && os.Getenv("BACKFILL_BENCH_NODES") == "" {
				continue // node-level requests: BACKFILL_BENCH_NODES=1
			}
			b.Run(strings.SplitN(tc.name, "-", 2)[0]+"/easy/"+variant, func(b *testing.B) {
				cpu0 := cpuSeconds()
				for i := 0; i < b.N; i++ {
					s, _ := policy.New("easy", tr.Procs)
					opt := sim.Options{Procs: tr.Procs}
					if variant != "counts" {
						rule, nodes := strings.CutSuffix(variant, "+nodes")
						a := machine.NewAllocator(m, machine.Rules[rule], len(tr.Jobs))
						if nodes {
							// every job asks for the fewest nodes that hold it
							if err := a.SetDemands(dem); err != nil {
								b.Fatal(err)
							}
						}
						opt.Placer = a
					}
					if _, err := sim.Run(tr.Jobs, s, opt); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(len(tr.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
				// CPU time, which contention on the shared machine does not inflate
				b.ReportMetric((cpuSeconds()-cpu0)*1000/float64(b.N), "cpu-ms/op")
			})
		}
	}
}

// BenchmarkAllocReplay replays the starts and ends of EASY's schedule of
// CEA-Curie (5,832 nodes × 16 cores) on the allocator alone, per rule:
// the allocation's own cost, without the simulation around it.
func BenchmarkAllocReplay(b *testing.B) {
	path := filepath.Join("..", "..", "shared", "traces", "CEA-Curie-2011-2.1-cln.swf.gz")
	if _, err := os.Stat(path); err != nil {
		b.Skipf("%s not present", path)
	}
	tr, err := workload.Load(path, workload.Options{})
	if err != nil {
		b.Fatal(err)
	}
	// the simulator's own sequence of Place and Release calls
	s, _ := policy.New("easy", tr.Procs)
	rec := &recorder{free: tr.Procs}
	if _, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs, Placer: rec}); err != nil {
		b.Fatal(err)
	}
	m, _ := machine.Uniform(5832, 16)
	for _, rule := range []string{"firstfit", "bestfit", "contiguous"} {
		b.Run(rule, func(b *testing.B) {
			cpu0 := cpuSeconds()
			for i := 0; i < b.N; i++ {
				a := machine.NewAllocator(m, machine.Rules[rule], len(tr.Jobs))
				for _, op := range rec.ops {
					if op >= 0 {
						err = a.Place(int(op), tr.Jobs[op].Procs)
					} else {
						err = a.Release(int(-1 - op))
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric((cpuSeconds()-cpu0)*1000/float64(b.N), "cpu-ms/op")
		})
	}
}

// recorder is a Placer that records the calls: a job id for Place, -1-id
// for Release.
type recorder struct {
	free int
	ops  []int32
}

func (r *recorder) Free() int { return r.free }

func (r *recorder) Place(id, k int) error {
	r.ops = append(r.ops, int32(id))
	return nil
}

func (r *recorder) Release(id int) error {
	r.ops = append(r.ops, int32(-1-id))
	return nil
}
