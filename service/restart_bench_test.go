package service

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"
)

// restartSizes are the (history, waiting) sizes of BenchmarkRestart:
// $BACKFILL_RESTART as "N:W,N:W,…", else one small size.
func restartSizes(b *testing.B) [][2]int {
	spec := os.Getenv("BACKFILL_RESTART")
	if spec == "" {
		spec = "2000:500"
	}
	var out [][2]int
	for _, p := range strings.Split(spec, ",") {
		n, w, ok := strings.Cut(p, ":")
		N, err1 := strconv.Atoi(n)
		W, err2 := strconv.Atoi(w)
		if !ok || err1 != nil || err2 != nil || W > N {
			b.Fatalf("BACKFILL_RESTART: expected N:W,… with W ≤ N, found %q", p)
		}
		out = append(out, [2]int{N, W})
	}
	return out
}

// snapshotEvery are the snapshot periods of BenchmarkRestart:
// $BACKFILL_SNAPSHOT_EVERY as "K,K,…" (-1: none), else none and the
// default.
func snapshotEvery(b *testing.B) []int {
	spec := os.Getenv("BACKFILL_SNAPSHOT_EVERY")
	if spec == "" {
		return []int{-1, DefaultSnapshotEvery}
	}
	var out []int
	for _, p := range strings.Split(spec, ",") {
		k, err := strconv.Atoi(p)
		if err != nil || k == 0 {
			b.Fatalf("BACKFILL_SNAPSHOT_EVERY: expected K,… (non-zero integers), found %q", p)
		}
		out = append(out, k)
	}
	return out
}

// buildHistory writes a state directory with n submissions of which w are
// still waiting at the end (the others were cancelled right after their
// submission), behind a job holding the whole machine: the log a
// restart replays with a queue of w.
func buildHistory(b *testing.B, spec string, n, w, every int) string {
	dir := b.TempDir()
	svc, err := Open(Config{Policy: spec, Procs: 128, StateDir: dir, Sync: "normal", AdminToken: "admin-secret", Clock: NewManualClock(0), SnapshotEvery: every})
	if err != nil {
		b.Fatal(err)
	}
	defer svc.Close()
	err = svc.do(func(e *Engine) error {
		if _, err := e.Submit(0, SubmitInput{User: "u0", Procs: 128, Estimate: 1 << 40}); err != nil {
			return err
		}
		return e.Flush()
	})
	if err != nil {
		b.Fatal(err)
	}
	kept := 0
	for i := 0; i < n; i++ {
		t := int64(1 + i/10)
		keep := (i+1)*w/n > kept
		err := svc.do(func(e *Engine) error {
			j, err := e.Submit(t, SubmitInput{User: fmt.Sprint("u", i%7), Procs: 1 + i%64, Estimate: int64(100 + i%1000)})
			if err != nil {
				return err
			}
			if !keep {
				_, err = e.Cancel(t, j)
			}
			return err
		})
		if err != nil {
			b.Fatal(err)
		}
		if keep {
			kept++
		}
	}
	// as after a crash: no snapshot at shutdown, so a restart replays the
	// records since the last periodic one (a clean shutdown replays none)
	svc.mu.Lock()
	svc.snapOff = true
	svc.mu.Unlock()
	return dir
}

// BenchmarkRestart (policies: $BACKFILL_RESTART_POLICIES, comma-separated
// specs, default conservative,easy) measures Open on a state directory with a history of N
// submissions and W jobs waiting (BACKFILL_RESTART="N:W,…"): the time the
// port stays closed after a restart. snap=off builds the history without
// snapshots (a restart replays the whole log); snap=K takes one every K
// records (a restart restores the latest and replays the tail, logged
// with the time the build took, i.e. the live cost of snapshots). Run
// with -benchtime=1x for large sizes.
func BenchmarkRestart(b *testing.B) {
	specs := []string{"conservative", "easy"}
	if p := os.Getenv("BACKFILL_RESTART_POLICIES"); p != "" {
		specs = strings.Split(p, ",") // e.g. fcfs,slack,qops
	}
	for _, spec := range specs {
		for _, sz := range restartSizes(b) {
			for _, every := range snapshotEvery(b) {
				name := "off"
				if every > 0 {
					name = strconv.Itoa(every)
				}
				b.Run(fmt.Sprintf("%s/N=%d/W=%d/snap=%s", spec, sz[0], sz[1], name), func(b *testing.B) {
					t0 := time.Now()
					dir := buildHistory(b, spec, sz[0], sz[1], every)
					b.Logf("built in %v", time.Since(t0))
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						svc, err := Open(Config{Policy: spec, Procs: 128, StateDir: dir, Sync: "normal", AdminToken: "admin-secret", Clock: NewManualClock(0), SnapshotEvery: every})
						if err != nil {
							b.Fatal(err)
						}
						b.StopTimer()
						if w, _, _ := svc.eng.Counts(); w != sz[1] {
							b.Fatalf("%d waiting after the restart, want %d", w, sz[1])
						}
						b.ReportMetric(float64(svc.replayed), "replayed")
						svc.Close()
						b.StartTimer()
					}
				})
			}
		}
	}
}
