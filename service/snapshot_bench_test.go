package service

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// snapshotBenchService opens a conservative service on 128 processors
// with one job running and queue jobs waiting, and a decision feed of
// feed entries (a service that ran for months keeps between
// keepDecisions and twice as many).
func snapshotBenchService(b *testing.B, queue, feed, every int) *Service {
	return snapshotBenchServiceFor(b, "conservative", queue, feed, every)
}

func snapshotBenchServiceFor(b *testing.B, spec string, queue, feed, every int) *Service {
	b.Helper()
	svc, err := Open(Config{Policy: spec, Procs: 128, StateDir: b.TempDir(), Sync: "normal", AdminToken: "admin-secret",
		Clock: NewManualClock(0), SnapshotEvery: every, SnapshotInterval: time.Hour, SnapshotCost: -1})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { svc.Close() })
	err = svc.do(func(e *Engine) error {
		if _, err := e.Submit(0, SubmitInput{User: "admin", UID: 1, Procs: 128, Estimate: 1 << 40}); err != nil {
			return err
		}
		if err := e.Flush(); err != nil {
			return err
		}
		for i := 0; i < queue; i++ {
			// eight users (fair share keeps usage per user)
			if _, err := e.Submit(1, SubmitInput{User: fmt.Sprintf("u%d", i%8), UID: int64(2 + i%8), Procs: 1 + i%64, Estimate: int64(100 + i%1000)}); err != nil {
				return err
			}
		}
		// the feed of a long run (the decisions of jobs long gone)
		old := make([]Decision, 0, feed+len(e.decisions))
		for i := 0; i < feed; i++ {
			a := "start"
			if i%2 == 1 {
				a = "stop"
			}
			old = append(old, Decision{Seq: -int64(feed - i), Action: a, ID: int64(i / 2), T: 0})
		}
		e.decisions = append(old, e.decisions...)
		return nil
	})
	if err != nil {
		b.Fatal(err)
	}
	return svc
}

// BenchmarkSnapshotLocked measures how long taking a snapshot holds the
// engine lock (every writer and the committer's next batch wait for it):
// 10,000 jobs waiting and a decision feed of 150,000, for conservative
// and for the policies whose own snapshot is large (the slurm policy and
// EASY over multifactor priority: every job's priority and factors, every
// association's usage).
func BenchmarkSnapshotLocked(b *testing.B) {
	conf := filepath.Join(b.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte("PriorityWeightFairshare=10000\nPriorityWeightAge=1000\nPriorityCalcPeriod=5\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	for _, spec := range []string{"conservative", "slurm:slurmconf=" + conf, "easy:order=multifactor:slurmconf=" + conf} {
		name := strings.ReplaceAll(spec, conf, "F")
		b.Run(name, func(b *testing.B) {
			svc := snapshotBenchServiceFor(b, spec, 10000, 150000, -1)
			svc.cfg.SnapshotEvery = 1
			b.ResetTimer()
			var locked time.Duration
			for i := 0; i < b.N; i++ {
				svc.mu.Lock()
				svc.snapSeq = svc.eng.seq - 1 // due
				t0 := time.Now()
				snap := svc.takeSnapshotLocked()
				locked += time.Since(t0)
				svc.mu.Unlock()
				if snap == nil {
					b.Fatal("no snapshot")
				}
				if _, err := snap.data(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(locked.Nanoseconds())/float64(b.N), "locked-ns/snapshot")
		})
	}
}

// BenchmarkSnapshotWriterStall measures the submissions' latency (through
// Service.do: the engine lock, the policy, the commit) at Q = 10,000
// waiting on conservative with a decision feed of 150,000, with a
// snapshot every 50 records ("every50") and without snapshots ("none"),
// one submission after another; p50, p99 and the maximum are reported.
func BenchmarkSnapshotWriterStall(b *testing.B) {
	for _, every := range []int{-1, 50} {
		name := "none"
		if every > 0 {
			name = fmt.Sprintf("every%d", every)
		}
		b.Run(name, func(b *testing.B) {
			svc := snapshotBenchService(b, 10000, 150000, every)
			lat := make([]time.Duration, 0, b.N)
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				t0 := time.Now()
				err := svc.do(func(e *Engine) error {
					_, err := e.Submit(1, SubmitInput{User: "admin", UID: 1, Procs: 1 + i%64, Estimate: int64(100 + i%1000)})
					return err
				})
				if err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			b.StopTimer()
			slices.Sort(lat)
			q := func(p float64) float64 {
				return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
			}
			b.ReportMetric(q(0.5), "p50-ms")
			b.ReportMetric(q(0.99), "p99-ms")
			b.ReportMetric(float64(lat[len(lat)-1].Microseconds())/1000, "max-ms")
		})
	}
}
