package service

import (
	"fmt"
	"math/rand/v2"
	"os"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/internal/minheap"
)

// rssKB is the resident set size of this process (Linux), 0 if unknown.
func rssKB() int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			n, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")), 10, 64)
			return n
		}
	}
	return 0
}

// TestSoak is a months-long run in accelerated time (manual clock):
// $BACKFILL_SOAK submissions (skipped when unset) to conservative
// backfilling on 128 processors, a job every 10 min on average (load about 0.8), each ending
// by itself at a random fraction of its estimate (the queue stays short),
// through the service's engine and commits (not HTTP). It logs the heap
// in use after a GC and the RSS at every tenth of the run: with every job
// kept in memory (the log is not compacted) they grow with the history.
func TestSoak(t *testing.T) {
	n, _ := strconv.Atoi(os.Getenv("BACKFILL_SOAK"))
	if n <= 0 {
		t.Skip("set BACKFILL_SOAK=N to run N submissions")
	}
	svc, err := Open(Config{Policy: "conservative", Procs: 128, StateDir: t.TempDir(), Sync: "normal", AdminToken: "admin-secret", Clock: NewManualClock(0)})
	if err != nil {
		t.Fatal(err)
	}
	defer svc.Close()
	r := rand.New(rand.NewPCG(1, 2))
	var ends minheap.Heap[int64, struct{}] // (time, id) of the ends to come
	var now int64
	var ms runtime.MemStats
	for i := 0; i < n; i++ {
		now += int64(r.IntN(1200)) // a job every 10 min on average: load ≈ 0.8
		err := svc.do(func(e *Engine) error {
			// the ends due up to now, in time order
			for ends.Len() > 0 && ends.Min().Key <= now {
				it := ends.Pop()
				if j := e.Job(int64(it.ID)); j != nil && j.State == Running {
					if _, err := e.End(max(it.Key, e.Now()), j, nil, ""); err != nil {
						return err
					}
				}
			}
			if err := e.Advance(now); err != nil {
				return err
			}
			est := int64(60 + r.IntN(4*3600))
			if _, err := e.Submit(now, SubmitInput{User: fmt.Sprint("u", i%50), Procs: 1 + r.IntN(32), Estimate: est}); err != nil {
				return err
			}
			if err := e.Flush(); err != nil {
				return err
			}
			for _, j := range e.TakeStarted() {
				ends.Push(minheap.Item[int64, struct{}]{Key: j.Start + 1 + r.Int64N(j.Req.Estimate), ID: int(j.ID())})
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if (i+1)%(n/10) == 0 {
			runtime.GC()
			runtime.ReadMemStats(&ms)
			w, rn, _ := svc.eng.Counts()
			if f := os.Getenv("BACKFILL_SOAK_HEAP"); f != "" && i+1 == n {
				if fh, err := os.Create(f); err == nil {
					pprof.WriteHeapProfile(fh)
					fh.Close()
				}
			}
			t.Logf("%8d submissions, day %4d: heap %6.1f MB, RSS %6.1f MB, waiting %d, running %d", i+1, now/86400, float64(ms.HeapAlloc)/1e6, float64(rssKB())/1e3, w, rn)
		}
	}
}
