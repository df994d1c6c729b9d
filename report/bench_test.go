package report

import (
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/workload"
)

// benchGenerate measures report generation from a simulate --out style
// directory holding one run: read jobs.csv, build the data (summary, CDF,
// time series, classes, processor placement for the Gantt), write the page.
func benchGenerate(b *testing.B, res *Results) {
	dir := b.TempDir()
	r := res.Runs[0]
	fh, err := os.Create(filepath.Join(dir, "easy.jobs.csv"))
	if err != nil {
		b.Fatal(err)
	}
	comments := append([]string{"policy: easy", "trace: " + r.Trace}, "machine: "+strconv.Itoa(r.Procs)+" processors (bench)")
	if err := metrics.WriteJobsCSV(fh, r.Outcomes, "bench", 0, comments); err != nil {
		b.Fatal(err)
	}
	fh.Close()
	b.ResetTimer()
	for b.Loop() {
		res, err := Load(dir, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		d, err := Build(res, BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteHTML(io.Discard, d); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(r.Outcomes)), "jobs")
}

// BenchmarkGenerate250k: 250,000 synthetic jobs on 1,024 processors under
// EASY.
func BenchmarkGenerate250k(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 3))
	jobs := testgen.Jobs(r, testgen.Spec{Jobs: 250_000, Procs: 1024, MeanGap: 60, MaxRuntime: 20000})
	benchGenerate(b, simResults(b, "synthetic-250k", jobs, 1024, "easy"))
}

// BenchmarkGenerateTrace: the trace in BACKFILL_BENCH_TRACE (default
// SDSC-BLUE from ../shared/traces, 243,314 records) under EASY; skipped
// when absent.
func BenchmarkGenerateTrace(b *testing.B) {
	path := os.Getenv("BACKFILL_BENCH_TRACE")
	if path == "" {
		path = "../../shared/traces/SDSC-BLUE-2000-4.2-cln.swf.gz"
	}
	if _, err := os.Stat(path); err != nil {
		b.Skipf("no trace %s (set BACKFILL_BENCH_TRACE)", path)
	}
	tr, err := workload.Load(path, workload.Options{})
	if err != nil {
		b.Fatal(err)
	}
	benchGenerate(b, simResults(b, tr.Name, tr.Jobs, tr.Procs, "easy"))
}

// BenchmarkSweepReport measures the report of a sweep's results directory:
// load (result.json of every run, the footers of jobs.parquet), build
// (each run's statistics from the columns they need, one run in memory at
// a time; the Gantt chart's run in full) and write the page. The
// directory is BACKFILL_BENCH_SWEEP (e.g. the 36 runs of
// experiments/example.yaml), else the small fixture. peak-heap-MB is the
// largest heap in use seen by a sampler every 10 ms.
func BenchmarkSweepReport(b *testing.B) {
	dir := os.Getenv("BACKFILL_BENCH_SWEEP")
	if dir == "" {
		dir = sweepSmall
	}
	var peak atomic.Uint64
	stop := make(chan struct{})
	go func() {
		var m runtime.MemStats
		for {
			select {
			case <-stop:
				return
			case <-time.After(10 * time.Millisecond):
				runtime.ReadMemStats(&m)
				if m.HeapInuse > peak.Load() {
					peak.Store(m.HeapInuse)
				}
			}
		}
	}()
	b.ReportAllocs()
	for b.Loop() {
		res, err := Load(dir, LoadOptions{})
		if err != nil {
			b.Fatal(err)
		}
		d, err := Build(res, BuildOptions{})
		if err != nil {
			b.Fatal(err)
		}
		if err := WriteHTML(io.Discard, d); err != nil {
			b.Fatal(err)
		}
		b.ReportMetric(float64(len(res.Runs)), "runs")
	}
	close(stop)
	b.ReportMetric(float64(peak.Load())/(1<<20), "peak-heap-MB")
}
