package service

import (
	"context"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// /metrics is read by Prometheus's own text parser and has every metric
// docs/service.md names, with the documented types and values that follow
// from the requests made (Prometheus's packages are test-only: the binary
// writes the format with internal/promtext).
func TestMetricsEndpointParsesAndHasTheDocumentedNames(t *testing.T) {
	env := newEnv(t, "test-deadline", 8)
	ctx := context.Background()
	alice := env.user("alice")
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(4), Estimate: i64(100)}))
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(8), Estimate: i64(100)}))
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(8), Estimate: i64(50), Deadline: i64(120)}))
	env.clockTo(0)
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(get(t, env, "/metrics")))
	if err != nil {
		t.Fatalf("Prometheus's parser: %v", err)
	}
	types := map[string]dto.MetricType{
		"backfill_queue_length": dto.MetricType_GAUGE, "backfill_running_jobs": dto.MetricType_GAUGE,
		"backfill_busy_processors": dto.MetricType_GAUGE, "backfill_utilization": dto.MetricType_GAUGE,
		"backfill_processors": dto.MetricType_GAUGE, "backfill_passes_total": dto.MetricType_COUNTER,
		"backfill_submissions_total": dto.MetricType_COUNTER, "backfill_connections_refused_total": dto.MetricType_COUNTER,
		"backfill_requests_in_flight": dto.MetricType_GAUGE, "backfill_overload_rejections_total": dto.MetricType_COUNTER,
		"backfill_executor_backlog": dto.MetricType_GAUGE, "backfill_decision_latency_seconds": dto.MetricType_HISTOGRAM,
		"backfill_request_duration_seconds": dto.MetricType_HISTOGRAM, "backfill_commit_duration_seconds": dto.MetricType_HISTOGRAM,
		"backfill_pass_duration_seconds": dto.MetricType_HISTOGRAM, "go_goroutines": dto.MetricType_GAUGE,
		"go_gc_duration_seconds": dto.MetricType_SUMMARY, "go_memstats_heap_alloc_bytes": dto.MetricType_GAUGE,
	}
	for name, typ := range types {
		f := fams[name]
		if f == nil {
			t.Errorf("no %s", name)
		} else if f.GetType() != typ {
			t.Errorf("%s is a %v, want %v", name, f.GetType(), typ)
		}
	}
	if t.Failed() {
		return
	}
	gauge := func(n string) float64 { return fams[n].Metric[0].Gauge.GetValue() }
	// 4 of 8 processors run the first job; the 8-processor job waits
	if gauge("backfill_processors") != 8 || gauge("backfill_busy_processors") != 4 || gauge("backfill_utilization") != 0.5 ||
		gauge("backfill_running_jobs") != 1 || gauge("backfill_queue_length") != 1 {
		t.Errorf("gauges P=%v busy=%v util=%v running=%v queue=%v", gauge("backfill_processors"), gauge("backfill_busy_processors"),
			gauge("backfill_utilization"), gauge("backfill_running_jobs"), gauge("backfill_queue_length"))
	}
	sub := map[string]float64{}
	for _, m := range fams["backfill_submissions_total"].Metric {
		sub[m.Label[0].GetName()+"="+m.Label[0].GetValue()] = m.Counter.GetValue()
	}
	if sub["result=admitted"] != 2 || sub["result=rejected"] != 1 {
		t.Errorf("submissions %v", sub)
	}
	if h := fams["backfill_decision_latency_seconds"].Metric[0].Histogram; h.GetSampleCount() != 3 || len(h.Bucket) != 18 {
		t.Errorf("decision latency: %d observations in %d buckets, want 3 in 17+Inf", h.GetSampleCount(), len(h.Bucket))
	}
	routes := map[string]uint64{}
	for _, m := range fams["backfill_request_duration_seconds"].Metric {
		routes[m.Label[0].GetValue()] = m.Histogram.GetSampleCount()
	}
	if routes["POST /v1/jobs"] != 3 {
		t.Errorf("request durations by route %v", routes)
	}
}
