package service

import (
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/prometheus/client_golang/prometheus"
)

// DefaultMaxInFlight is the default limit on API requests handled at
// once (Config.MaxInFlight).
const DefaultMaxInFlight = 128

// overload is the service's backpressure: beyond MaxInFlight requests
// being handled at once, a request is answered at once with 503 Service
// Unavailable and Retry-After, instead of queueing behind the others
// (with 2,000 closed-loop clients and no limit, latency grew without
// bound: p99 15.6 s). Health, metrics, the OpenAPI document and the
// decisions long poll are not counted: they must answer under load, and
// a long poll holds its request for up to a minute by design.
type overload struct {
	limit      int64
	retryAfter int // seconds
	inflight   atomic.Int64
	rejected   prometheus.Counter
	gauge      prometheus.GaugeFunc
}

func newOverload(limit int, retryAfter int) *overload {
	o := &overload{limit: int64(limit), retryAfter: max(1, retryAfter)}
	o.rejected = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "backfill_overload_rejections_total",
		Help: "Requests answered 503 with Retry-After because MaxInFlight requests were being handled.",
	})
	o.gauge = prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "backfill_requests_in_flight",
		Help: "API requests being handled (those counted against MaxInFlight).",
	}, func() float64 { return float64(o.inflight.Load()) })
	return o
}

func exempt(r *http.Request) bool {
	switch r.URL.Path {
	case "/v1/health", "/metrics", "/v1/openapi.json":
		return true
	case "/v1/decisions":
		return r.URL.Query().Get("wait") != ""
	}
	return false
}

// wrap returns next behind the limit (no limit when limit < 0).
func (o *overload) wrap(next http.Handler) http.Handler {
	if o.limit < 0 {
		return next
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if exempt(r) {
			next.ServeHTTP(w, r)
			return
		}
		if n := o.inflight.Add(1); n > o.limit {
			o.inflight.Add(-1)
			o.rejected.Inc()
			w.Header().Set("Retry-After", strconv.Itoa(o.retryAfter))
			writeJSON(w, http.StatusServiceUnavailable, ErrorBody{Error: "overloaded: " + strconv.FormatInt(o.limit, 10) +
				" requests are being handled; retry after " + strconv.Itoa(o.retryAfter) + " s"})
			return
		}
		defer o.inflight.Add(-1)
		next.ServeHTTP(w, r)
	})
}
