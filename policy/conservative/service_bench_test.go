package conservative

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/internal/cputime"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
)

// BenchmarkServiceQueue measures conservative backfilling in the state
// `backfill loadgen` builds in a live service (service/loadgen): 1,024
// processors held whole by one running job for 300 days and a queue of q
// jobs behind it (sizes 1–128, one in ten up to 1,024; estimates 60 s to
// 10 h). Each step is one client's request pair, timed together with the
// compression the policy makes at its next call:
//
//   - drain=newest: a submission, then its cancellation (loadgen's
//     default: the queue stays at q);
//   - drain=oldest: the cancellation of the front of the queue, then a
//     submission at the back (BenchmarkFrontCancel in policy/deadline).
//
// It reports p50 and p99 in the thread's CPU time (cpu-p50-ms,
// cpu-p99-ms: the goroutine is locked to its thread, so that a shared
// machine does not inflate them) and in wall time (p50-ms, p99-ms).
func BenchmarkServiceQueue(b *testing.B) {
	for _, drain := range []string{"newest", "oldest"} {
		for _, q := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("drain=%s/queue=%d", drain, q), func(b *testing.B) {
				c := New(1024, Config{})
				r := rand.New(rand.NewPCG(1, uint64(q)))
				blocker := &job.Request{ID: 0, SWFID: 1, Procs: 1024, Estimate: 300 * 24 * 3600}
				next := testgen.ServiceJobs(r, 1)
				c.Insert(0, blocker)
				c.Tick(0, func(*job.Request) {})
				var fifo []*job.Request
				for range q {
					j := next()
					c.Insert(1, j)
					fifo = append(fifo, j)
				}
				c.book.Settle(1)
				var lat, cpu []time.Duration
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				b.ResetTimer()
				for range b.N {
					j := next()
					t0, c0 := time.Now(), cputime.Thread()
					if drain == "newest" {
						c.Insert(1, j)
						c.Remove(1, j)
					} else {
						c.Remove(1, fifo[0])
						c.Insert(1, j)
						fifo = append(fifo[1:], j)
					}
					c.book.Settle(1) // the compression, at the policy's next call
					cpu = append(cpu, cputime.Thread()-c0)
					lat = append(lat, time.Since(t0))
				}
				b.StopTimer()
				b.ReportMetric(quantileMs(lat, 50), "p50-ms")
				b.ReportMetric(quantileMs(lat, 99), "p99-ms")
				b.ReportMetric(quantileMs(cpu, 50), "cpu-p50-ms")
				b.ReportMetric(quantileMs(cpu, 99), "cpu-p99-ms")
			})
		}
	}
}

// quantileMs is the nearest-rank p-th percentile of ds in milliseconds.
func quantileMs(ds []time.Duration, p int) float64 {
	slices.Sort(ds)
	k := (p*len(ds) + 99) / 100
	return float64(ds[max(1, k)-1]) / 1e6
}
