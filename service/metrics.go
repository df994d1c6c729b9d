package service

import (
	"net/http"

	"github.com/backfill-hpc/backfill/internal/promtext"
)

// metrics are the Prometheus metrics of one service (own registry, so
// that several services can live in one process, as in tests).
type metrics struct {
	reg      *promtext.Registry
	decision *promtext.Histogram // policy time of a submission
	request  *promtext.HistogramVec
	commit   *promtext.Histogram
	pass     *promtext.Histogram
	submits  *promtext.CounterVec
	refused  *promtext.Counter // connections beyond the limits
}

// latency buckets from 50 µs to ~3 s
var latencyBuckets = promtext.ExponentialBuckets(50e-6, 2, 17)

func newMetrics(s *Service) *metrics {
	m := &metrics{reg: promtext.NewRegistry()}
	m.decision = promtext.NewHistogram("backfill_decision_latency_seconds",
		"Time the policy took to decide on a submission (Insert, admission, guarantee and planned start), excluding the commit.",
		latencyBuckets)
	m.request = promtext.NewHistogramVec("backfill_request_duration_seconds",
		"Time to answer an API request, including the commit to the state database.",
		"route", latencyBuckets)
	m.commit = promtext.NewHistogram("backfill_commit_duration_seconds",
		"Time of one group commit to the state database.",
		latencyBuckets)
	m.pass = promtext.NewHistogram("backfill_pass_duration_seconds",
		"Time of one wall-clock scheduling round (passes due and their commit).",
		latencyBuckets)
	m.submits = promtext.NewCounterVec("backfill_submissions_total",
		"Submissions by result (admitted, rejected).", "result")
	m.refused = promtext.NewCounter("backfill_connections_refused_total",
		"Connections beyond --max-conns or --max-conns-per-client (answered health or 503, or closed).")
	gauge := func(name, help string, f func(w, r, busy int) float64) promtext.Collector {
		return promtext.NewGaugeFunc(name, help, func() float64 {
			v := s.readView() // never waits for the engine
			return f(v.waiting, v.running, v.busy)
		})
	}
	P := func() float64 { return float64(s.readView().procs) } // changes with a reconfiguration
	m.reg.MustRegister(m.decision, m.request, m.commit, m.pass, m.submits, m.refused,
		gauge("backfill_queue_length", "Waiting jobs.", func(w, _, _ int) float64 { return float64(w) }),
		gauge("backfill_running_jobs", "Running jobs.", func(_, r, _ int) float64 { return float64(r) }),
		gauge("backfill_busy_processors", "Processors held by running jobs.", func(_, _, b int) float64 { return float64(b) }),
		gauge("backfill_utilization", "Busy processors / machine size.", func(_, _, b int) float64 { return float64(b) / P() }),
		promtext.NewGaugeFunc("backfill_processors", "Machine size P.", P),
		promtext.NewCounterFunc("backfill_passes_total", "Scheduling passes (policy Ticks).", func() float64 {
			return float64(s.readView().passes)
		}),
		promtext.GoCollector(),
	)
	return m
}

func (m *metrics) handler() http.Handler {
	return m.reg.Handler()
}
