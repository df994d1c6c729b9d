package service

import (
	"net/http"
	"strconv"
	"sync/atomic"

	"github.com/backfill-hpc/backfill/internal/promtext"
)

// DefaultMaxInFlight is the default limit on API requests handled at
// once (Config.MaxInFlight).
const DefaultMaxInFlight = 128

// DefaultMaxExecBacklog is the default limit on executor actions waiting
// (Config.MaxExecBacklog).
const DefaultMaxExecBacklog = 10000

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
	rejected   *promtext.Counter
	gauge      promtext.Collector
	// backlogGauge is the executor's backlog
	backlogGauge promtext.Collector
	// submissions are refused while the executor has more than
	// maxBacklog actions waiting (negative: no limit)
	maxBacklog int
	backlog    func() int
}

func newOverload(limit, retryAfter int) *overload {
	o := &overload{limit: int64(limit), retryAfter: max(1, retryAfter)}
	o.rejected = promtext.NewCounter("backfill_overload_rejections_total",
		"Requests answered 503 with Retry-After because MaxInFlight requests were being handled.")
	o.gauge = promtext.NewGaugeFunc("backfill_requests_in_flight",
		"API requests being handled (those counted against MaxInFlight).", func() float64 { return float64(o.inflight.Load()) })
	o.backlogGauge = promtext.NewGaugeFunc("backfill_executor_backlog",
		"Committed executor actions not yet carried out (submit, start, kill, cancel).", func() float64 {
			if o.backlog == nil {
				return 0
			}
			return float64(o.backlog())
		})
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

// wrap returns next behind the limits (none when negative).
func (o *overload) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if exempt(r) {
			next.ServeHTTP(w, r)
			return
		}
		if n := o.inflight.Add(1); o.limit >= 0 && n > o.limit {
			o.inflight.Add(-1)
			o.rejected.Inc()
			refuseBody(w, r) // a refused request's body is not read
			w.Header().Set("Retry-After", strconv.Itoa(o.retryAfter))
			writeJSON(w, http.StatusServiceUnavailable, ErrorBody{Error: "overloaded: " + strconv.FormatInt(o.limit, 10) +
				" requests are being handled; retry after " + strconv.Itoa(o.retryAfter) + " s"})
			return
		}
		defer o.inflight.Add(-1)
		if o.maxBacklog >= 0 && o.backlog != nil && r.Method == "POST" && r.URL.Path == "/v1/jobs" {
			if n := o.backlog(); n > o.maxBacklog {
				o.rejected.Inc()
				refuseBody(w, r) // a refused request's body is not read
				w.Header().Set("Retry-After", strconv.Itoa(o.retryAfter))
				writeJSON(w, http.StatusServiceUnavailable, ErrorBody{Error: "overloaded: the executor has " + strconv.Itoa(n) +
					" actions waiting (the resource manager is slow); retry after " + strconv.Itoa(o.retryAfter) + " s"})
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}
