package loadgen

import (
	"bytes"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"io"
	"strings"
	"testing"
	"time"
)

// TestQuantile checks nearest-rank quantiles worked by hand.
func TestQuantile(t *testing.T) {
	xs := []float64{5, 1, 4, 2, 3, 10, 9, 8, 7, 6}
	for _, c := range []struct{ q, want float64 }{{0.5, 5}, {0.99, 10}, {1, 10}, {0.1, 1}, {0.11, 2}} {
		if got := Quantile(xs, c.q); got != c.want {
			t.Errorf("Quantile(1..10, %v) = %v, want %v", c.q, got, c.want)
		}
	}
	if got := Quantile(nil, 0.5); got != 0 {
		t.Errorf("Quantile(nil) = %v, want 0", got)
	}
}

// TestServerTiming reads one metric among several and refuses malformed ones.
func TestServerTiming(t *testing.T) {
	h := `commit;dur=1.5, decision;desc="policy";dur=0.25`
	if x, ok := ServerTiming(h, "decision"); !ok || x != 0.25 {
		t.Errorf("decision = %v, %v, want 0.25, true", x, ok)
	}
	if _, ok := ServerTiming(h, "lock"); ok {
		t.Error("absent metric found")
	}
	if _, ok := ServerTiming("decision;dur=x", "decision"); ok {
		t.Error("malformed duration accepted")
	}
}

// TestRunShort measures a started service briefly: the queue is held at Q
// (drain newest) and every submission is counted.
func TestRunShort(t *testing.T) {
	cfg := &Config{Procs: 64, Sync: "normal", Duration: 200 * time.Millisecond, Clients: 2, Seed: 1, Drain: "newest"}
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	r, err := Run(&log, cfg, "conservative", 5)
	if err != nil {
		t.Fatal(err)
	}
	if r.Policy != "conservative" || r.Queue != 5 || r.Submissions == 0 || r.Errors != 0 {
		t.Errorf("result %+v", r)
	}
	if r.FinalQueue != 5 {
		t.Errorf("final queue %d, want 5 (drain newest holds it)", r.FinalQueue)
	}
	bad := *cfg
	bad.Drain = "middle"
	if bad.Validate() == nil {
		t.Error("drain middle accepted")
	}
}

// TestSweepRefuses checks the sweep's refusals, each naming what is wrong:
// a negative queue length, and a running service without its token file
// (the error names the configuration).
func TestSweepRefuses(t *testing.T) {
	cfg := &Config{Server: "http://127.0.0.1:1", Procs: 8, Sync: "normal", Duration: time.Second, Clients: 1, Drain: "newest"}
	if _, err := Sweep(io.Discard, cfg, "", []string{"easy"}, []int{-1}); err == nil || err.Error() != "--queue -1: must be ≥ 0" {
		t.Errorf("negative queue: %v", err)
	}
	want := "easy, queue 3: --server needs --token-file (an admin token)"
	if _, err := Sweep(io.Discard, cfg, "", []string{"easy"}, []int{3}); err == nil || err.Error() != want {
		t.Errorf("no token file: %v, want %q", err, want)
	}
	if rs, err := Sweep(io.Discard, cfg, "", nil, []int{3}); err != nil || len(rs) != 0 {
		t.Errorf("no policies: %v, %v; want nothing measured", rs, err)
	}
}

// TestWriteTable checks the table's header and one row, formatted by hand.
func TestWriteTable(t *testing.T) {
	cfg := &Config{Clients: 2, Duration: 3 * time.Second, Drain: "oldest", Sync: "full"}
	r := Result{Policy: "easy", Queue: 10, FinalQueue: 10, Submissions: 300, PerSecond: 100.4,
		SubmitP50: 1.234, SubmitP99: 5.678, SubmitMax: 9.87, DecisionP50: 0.1234, DecisionP99: 0.5678,
		CancelP50: 2.5, CancelP99: 3.25, CancelMax: 7.5, Rejected: 1, Errors: 0}
	var b bytes.Buffer
	if err := WriteTable(&b, cfg, []Result{r}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	if len(lines) != 3 {
		t.Fatalf("%d lines, want 3:\n%s", len(lines), b.String())
	}
	wantHead := "# backfill loadgen: 2 clients, 3s per configuration, drain=oldest, sync=full, GOMAXPROCS="
	if !strings.HasPrefix(lines[0], wantHead) {
		t.Errorf("header %q, want prefix %q", lines[0], wantHead)
	}
	if got := strings.Fields(lines[2]); strings.Join(got, " ") != "easy 10 10 300 100 1.23 5.68 9.9 0.123 0.568 2.50 3.25 7.5 1 0" {
		t.Errorf("row %q", lines[2])
	}
}

// TestWriteTrace checks the breakdown of the slowest requests on samples
// made by hand: the slowest first, its parts in order, the client's time
// outside the service, and the mean over the requests at or above the p99
// (here the slowest 1 of 100 … 2 of 200).
func TestWriteTrace(t *testing.T) {
	var xs []sample
	for i := range 199 {
		xs = append(xs, sample{ms: float64(i % 10), timing: "lock;dur=0.5, engine;dur=0.25, total;dur=1"})
	}
	xs = append(xs, sample{ms: 50, timing: "decision;dur=2, lock;dur=40, engine;dur=2.5, commit;dur=3, total;dur=46"})
	var b bytes.Buffer
	WriteTrace(&b, "submit", xs, 1)
	lines := strings.Split(strings.TrimRight(b.String(), "\n"), "\n")
	want := []string{
		"loadgen: submit #1 50.00 ms: lock 40.00 engine 2.50 decision 2.00 commit 3.00 total 46.00 outside 4.00",
		"loadgen: submit mean of the 2 at or above the p99 29.50 ms: lock 20.25 engine 1.38 decision 1.00 commit 1.50 total 23.50 outside 6.00",
	}
	if len(lines) != len(want) {
		t.Fatalf("%d lines:\n%s", len(lines), b.String())
	}
	for i := range want {
		if lines[i] != want[i] {
			t.Errorf("line %d:\n got %s\nwant %s", i, lines[i], want[i])
		}
	}
}
