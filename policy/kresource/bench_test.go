package kresource_test

import (
	"fmt"
	"slices"
	"syscall"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
	wkres "github.com/backfill-hpc/backfill/workload/kresource"
)

// cpuSeconds is the CPU time (user + system, all threads) used by the
// process so far: on a shared machine it varies far less than wall time.
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

// benchRun reports jobs/s (wall time) and cpu-jobs/s (simulated jobs per
// second of CPU time, the figure to compare on a shared machine).
func benchRun(b *testing.B, spec string, jobs []job.Job, caps []int) {
	b.ReportAllocs()
	b.ResetTimer()
	c0 := cpuSeconds()
	defer func() {
		if c := cpuSeconds() - c0; c > 0 {
			b.ReportMetric(float64(len(jobs)*b.N)/c, "cpu-jobs/s")
		}
	}()
	for i := 0; i < b.N; i++ {
		s, err := policy.NewK(spec, caps)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := sim.Run(jobs, s, sim.Options{Procs: caps[0], Res: caps[1:]}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(jobs)*b.N)/b.Elapsed().Seconds(), "jobs/s")
}

// BenchmarkK1 compares the vector policies at K = 1 with the scalar ones
// they equal, on the embedded KTH SP2 trace (28,476 jobs, 100 processors).
func BenchmarkK1(b *testing.B) {
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, spec := range []string{"easy", "ff-easy", "conservative", "ff-cons"} {
		b.Run(spec, func(b *testing.B) { benchRun(b, spec, tr.Jobs, []int{tr.Procs}) })
	}
}

// BenchmarkK runs the K-resource policies on the KTH trace with K-vectors
// drawn from the job sizes (uniform, every capacity 100), K = 2, 4, 8.
func BenchmarkK(b *testing.B) {
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, k := range []int{2, 4, 8} {
		jobs := slices.Clone(tr.Jobs)
		if err := wkres.Vectors(jobs, k, wkres.Uniform, 1); err != nil {
			b.Fatal(err)
		}
		caps := make([]int, k)
		for i := range caps {
			caps[i] = tr.Procs
		}
		for _, spec := range []string{"ff-easy", "bl-easy", "bb-easy", "ff-cons"} {
			b.Run(fmt.Sprintf("K=%d/%s", k, spec), func(b *testing.B) { benchRun(b, spec, jobs, caps) })
		}
	}
}
