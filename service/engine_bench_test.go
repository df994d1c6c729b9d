//go:build linux

package service

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/internal/cputime"
	"github.com/backfill-hpc/backfill/policy"
)

// BenchmarkEngineQueue measures the service engine's own CPU per request
// (no HTTP, no lock, no commit) in the state `backfill loadgen` builds:
// conservative on 1,024 processors held whole by one job for 300 days,
// 10,000 jobs waiting (loadgen's sizes and estimates), 400 requests per
// second of clock. Each step is a submission, then a cancellation with the
// compression the service makes ahead at its end (Engine.SettleAhead):
// drain=newest cancels one of the last 8 jobs submitted (8 clients'
// requests in flight), drain=oldest the front of the queue. It reports the
// thread CPU time (the goroutine locked to its thread: a shared machine
// does not inflate it) of submissions (submit-cpu-p50-ms, -p99-ms) and of
// cancellations (cancel-cpu-p50-ms, -p99-ms). On an idle machine the
// end-to-end latency of `backfill loadgen` is these plus the lock wait
// behind other requests, the commit and HTTP (Server-Timing).
func BenchmarkEngineQueue(b *testing.B) {
	for _, drain := range []string{"newest", "oldest"} {
		b.Run("drain="+drain, func(b *testing.B) {
			const queue, procs = 10000, 1024
			sched, err := policy.New("conservative", procs)
			if err != nil {
				b.Fatal(err)
			}
			e, err := NewEngine(sched, procs, 0)
			if err != nil {
				b.Fatal(err)
			}
			r := rand.New(rand.NewPCG(1, queue))
			job := func() SubmitInput {
				n := 1 + r.IntN(procs/8)
				if r.IntN(10) == 0 {
					n = 1 + r.IntN(procs)
				}
				return SubmitInput{UID: 1, User: "u", Procs: n, Estimate: int64(60 + r.IntN(36000))}
			}
			must := func(err error) {
				if err != nil {
					b.Fatal(err)
				}
			}
			_, err = e.Submit(0, SubmitInput{UID: 1, User: "u", Procs: procs, Estimate: 300 * 86400})
			must(err)
			must(e.Flush())
			var fifo []*Job
			for range queue {
				j, err := e.Submit(1, job())
				must(err)
				fifo = append(fifo, j)
			}
			must(e.Flush())
			e.Take()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var sub, can []time.Duration
			var inflight []*Job
			now := int64(2)
			b.ResetTimer()
			for i := range b.N {
				if i%400 == 0 {
					now++
				}
				c0 := cputime.Thread()
				j, err := e.Submit(now, job())
				must(err)
				e.SettleAhead()
				sub = append(sub, cputime.Thread()-c0)
				var v *Job
				if drain == "oldest" {
					fifo = append(fifo, j)
					v, fifo = fifo[0], fifo[1:]
				} else {
					inflight = append(inflight, j)
					if len(inflight) < 8 {
						continue
					}
					k := r.IntN(len(inflight))
					v = inflight[k]
					inflight = slices.Delete(inflight, k, k+1)
				}
				c0 = cputime.Thread()
				_, err = e.Cancel(now, v)
				must(err)
				e.SettleAhead()
				can = append(can, cputime.Thread()-c0)
				e.Take()
			}
			b.StopTimer()
			q := func(xs []time.Duration, p float64) float64 {
				if len(xs) == 0 {
					return 0
				}
				slices.Sort(xs)
				return float64(xs[int(p*float64(len(xs)-1))]) / 1e6
			}
			b.ReportMetric(q(sub, .5), "submit-cpu-p50-ms")
			b.ReportMetric(q(sub, .99), "submit-cpu-p99-ms")
			b.ReportMetric(q(can, .5), "cancel-cpu-p50-ms")
			b.ReportMetric(q(can, .99), "cancel-cpu-p99-ms")
		})
	}
}
