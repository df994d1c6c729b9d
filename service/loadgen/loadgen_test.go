package loadgen

import (
	"bytes"
	_ "github.com/backfill-hpc/backfill/policy/all"
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
