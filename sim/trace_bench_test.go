package sim_test

import (
	"fmt"
	"hash/fnv"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// BenchmarkTrace simulates one policy on one shipped trace, at its own
// load or at an offered load (workload.ScaleLoad), to profile a case of
// `backfill bench` under `go test -cpuprofile`. Environment:
// BACKFILL_BENCH_TRACE (a file in ../shared/traces or an absolute path;
// default KTH),
// BACKFILL_BENCH_LOAD (default: the trace's own), BACKFILL_BENCH_POLICY
// (default conservative). The log line gives the schedule's fingerprint,
// as BenchmarkRICCOriginal's.
func BenchmarkTrace(b *testing.B) {
	name := os.Getenv("BACKFILL_BENCH_TRACE")
	if name == "" {
		name = "KTH-SP2-1996-2.1-cln.swf.gz"
	}
	var tr *workload.Trace
	if filepath.IsAbs(name) {
		var err error
		if tr, err = workload.Load(name, workload.Options{}); err != nil {
			b.Fatal(err)
		}
	} else {
		tr = loadBench(b, name)
	}
	if l, err := strconv.ParseFloat(os.Getenv("BACKFILL_BENCH_LOAD"), 64); err == nil && l > 0 {
		if _, err := workload.ScaleLoad(tr, l); err != nil {
			b.Fatal(err)
		}
	}
	runTrace(b, tr, benchPolicy(), "on "+name)
}

// runTrace times spec on trace tr, logs the schedule's fingerprint (what
// names the case) to check that two builds schedule identically, and
// reports jobs/s as BenchmarkPolicies does.
func runTrace(b *testing.B, tr *workload.Trace, spec, what string) {
	b.Helper()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		s, err := policy.New(spec, tr.Procs)
		if err != nil {
			b.Fatal(err)
		}
		res, err := sim.Run(tr.Jobs, s, sim.Options{Procs: tr.Procs})
		if err != nil {
			b.Fatal(err)
		}
		if i == 0 {
			h := fnv.New64a()
			for _, o := range res.Outcomes {
				fmt.Fprintf(h, "%d %d %d\n", o.ID, o.Start, o.End)
			}
			b.Logf("%s %s: schedule fnv64a %016x", res.Policy, what, h.Sum64())
		}
	}
	b.ReportMetric(float64(len(tr.Jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
}
