package promtext

import (
	"math"
	"net/http/httptest"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// parse reads an exposition with Prometheus's own text parser (a test-only
// dependency: it is not compiled into the binary).
func parse(t *testing.T, text string) map[string]*dto.MetricFamily {
	t.Helper()
	p := expfmt.NewTextParser(model.LegacyValidation)
	fams, err := p.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("Prometheus's parser rejects our output: %v\n%s", err, text)
	}
	return fams
}

func scrape(t *testing.T, r *Registry) (string, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	r.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	return rec.Body.String(), rec.Header().Get("Content-Type")
}

// The values, worked by hand: buckets 1, 2, 4 and observations 0.5, 1, 3,
// 10 give cumulative counts 2 (≤1: 0.5 and 1, a bound counts in its
// bucket), 2 (≤2), 3 (≤4), 4 (+Inf); sum 14.5.
func TestExpositionParsesWithPrometheus(t *testing.T) {
	r := NewRegistry()
	h := NewHistogram("x_seconds", "A histogram.", []float64{1, 2, 4})
	for _, v := range []float64{0.5, 1, 3, 10} {
		h.Observe(v)
	}
	hv := NewHistogramVec("y_seconds", "Per route.", "route", ExponentialBuckets(0.5, 2, 3)) // 0.5, 1, 2
	hv.WithLabelValues("GET /a").Observe(0.7)
	hv.WithLabelValues("POST /b").Observe(5)
	c := NewCounter("events_total", "Help with a backslash \\ and\na newline.")
	c.Inc()
	c.Add(2.5)
	cv := NewCounterVec("results_total", "By result.", "result")
	cv.WithLabelValues("admitted").Inc()
	cv.WithLabelValues(`we"ird\va` + "\nlue").Add(3)
	cv.WithLabelValues("admitted").Inc()
	r.MustRegister(h, hv, c, cv,
		NewGaugeFunc("queue_length", "Waiting.", func() float64 { return 7 }),
		NewGaugeFunc("big", "Large and tiny numbers.", func() float64 { return 1.5e300 }),
		NewCounterFunc("passes_total", "Passes.", func() float64 { return 12 }),
		GoCollector())
	text, ct := scrape(t, r)
	if ct != "text/plain; version=0.0.4; charset=utf-8" {
		t.Errorf("content type %q", ct)
	}
	fams := parse(t, text)

	x := fams["x_seconds"]
	if x.GetType() != dto.MetricType_HISTOGRAM {
		t.Fatalf("x_seconds type %v", x.GetType())
	}
	xh := x.Metric[0].Histogram
	wantCum, wantLe := []uint64{2, 2, 3, 4}, []float64{1, 2, 4, math.Inf(1)}
	if len(xh.Bucket) != 4 {
		t.Fatalf("%d buckets, want 4 (with +Inf)", len(xh.Bucket))
	}
	for i, b := range xh.Bucket {
		if b.GetCumulativeCount() != wantCum[i] || b.GetUpperBound() != wantLe[i] {
			t.Errorf("bucket %d: le=%v count %d, want le=%v count %d", i, b.GetUpperBound(), b.GetCumulativeCount(), wantLe[i], wantCum[i])
		}
	}
	if xh.GetSampleCount() != 4 || xh.GetSampleSum() != 14.5 {
		t.Errorf("count %d sum %v, want 4 and 14.5", xh.GetSampleCount(), xh.GetSampleSum())
	}
	if !strings.Contains(text, `x_seconds_bucket{le="+Inf"} 4`) {
		t.Errorf("no +Inf bucket:\n%s", text)
	}

	y := fams["y_seconds"]
	if len(y.Metric) != 2 || y.Metric[0].Label[0].GetValue() != "GET /a" || y.Metric[1].Label[0].GetValue() != "POST /b" {
		t.Fatalf("y_seconds series %v", y.Metric)
	}
	if got := y.Metric[0].Histogram.Bucket[1].GetCumulativeCount(); got != 1 { // 0.7 ≤ 1
		t.Errorf("GET /a ≤1: %d", got)
	}
	if got := y.Metric[1].Histogram.Bucket[2].GetCumulativeCount(); got != 0 { // 5 > 2
		t.Errorf("POST /b ≤2: %d", got)
	}

	e := fams["events_total"]
	if e.GetType() != dto.MetricType_COUNTER || e.Metric[0].Counter.GetValue() != 3.5 || e.GetHelp() != "Help with a backslash \\ and\na newline." {
		t.Errorf("events_total %v", e)
	}
	res := map[string]float64{}
	for _, m := range fams["results_total"].Metric {
		res[m.Label[0].GetValue()] = m.Counter.GetValue()
	}
	if res["admitted"] != 2 || res[`we"ird\va`+"\nlue"] != 3 || len(res) != 2 {
		t.Errorf("results_total %v", res)
	}
	if g := fams["queue_length"]; g.GetType() != dto.MetricType_GAUGE || g.Metric[0].Gauge.GetValue() != 7 {
		t.Errorf("queue_length %v", g)
	}
	if g := fams["big"].Metric[0].Gauge.GetValue(); g != 1.5e300 {
		t.Errorf("big %v", g)
	}
	if p := fams["passes_total"]; p.GetType() != dto.MetricType_COUNTER || p.Metric[0].Counter.GetValue() != 12 {
		t.Errorf("passes_total %v", p)
	}

	// the Go runtime's metrics under the names dashboards expect
	for _, n := range []string{"go_goroutines", "go_threads", "go_info", "go_gc_duration_seconds", "go_memstats_alloc_bytes", "go_memstats_heap_inuse_bytes", "go_sched_gomaxprocs_threads"} {
		if fams[n] == nil {
			t.Errorf("no %s", n)
		}
	}
	if g := fams["go_goroutines"].Metric[0].Gauge.GetValue(); g < 1 {
		t.Errorf("go_goroutines %v", g)
	}
	if s := fams["go_gc_duration_seconds"]; s.GetType() != dto.MetricType_SUMMARY || len(s.Metric[0].Summary.Quantile) != 5 {
		t.Errorf("go_gc_duration_seconds %v", s)
	}
	if s := fams["go_memstats_sys_bytes"].Metric[0].Gauge.GetValue(); s <= 0 {
		t.Errorf("go_memstats_sys_bytes %v", s)
	}

	// families sorted by name
	var names []string
	for _, line := range strings.Split(text, "\n") {
		if n, ok := strings.CutPrefix(line, "# TYPE "); ok {
			names = append(names, strings.Fields(n)[0])
		}
	}
	for i := 1; i < len(names); i++ {
		if names[i-1] >= names[i] {
			t.Errorf("families out of order: %s before %s", names[i-1], names[i])
		}
	}
}

func TestFormatFloat(t *testing.T) {
	for v, want := range map[float64]string{1: "1", 0.25: "0.25", 5e-05: "5e-05", math.Inf(1): "+Inf", math.Inf(-1): "-Inf", 1234567: "1.234567e+06", 0: "0"} {
		if got := FormatFloat(v); got != want {
			t.Errorf("FormatFloat(%v) = %q, want %q", v, got, want)
		}
	}
	if FormatFloat(math.NaN()) != "NaN" {
		t.Errorf("NaN")
	}
}

func TestRegistryRefusesDuplicatesAndBadNames(t *testing.T) {
	mustPanic := func(name string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", name)
			}
		}()
		f()
	}
	r := NewRegistry()
	r.MustRegister(NewCounter("a_total", "A."))
	mustPanic("duplicate", func() { r.MustRegister(NewCounter("a_total", "again")) })
	mustPanic("bad name", func() { r.MustRegister(NewCounter("9lives", "B.")) })
	mustPanic("bad name with dash", func() { r.MustRegister(NewCounter("a-b", "B.")) })
	mustPanic("decreasing counter", func() { NewCounter("c_total", "C.").Add(-1) })
	mustPanic("unsorted buckets", func() { NewHistogram("h", "H.", []float64{2, 1}) })
	mustPanic("go collector twice", func() { r.MustRegister(GoCollector(), GoCollector()) })
}
