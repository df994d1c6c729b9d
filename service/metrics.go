package service

import (
	"net/http"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics are the Prometheus metrics of one service (own registry, so
// that several services can live in one process, as in tests).
type metrics struct {
	reg      *prometheus.Registry
	decision prometheus.Histogram // policy time of a submission
	request  *prometheus.HistogramVec
	commit   prometheus.Histogram
	pass     prometheus.Histogram
	submits  *prometheus.CounterVec
	refused  prometheus.Counter // connections beyond the limits
}

// latency buckets from 50 µs to ~3 s
var latencyBuckets = prometheus.ExponentialBuckets(50e-6, 2, 17)

func newMetrics(s *Service) *metrics {
	m := &metrics{reg: prometheus.NewRegistry()}
	m.decision = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "backfill_decision_latency_seconds",
		Help:    "Time the policy took to decide on a submission (Insert, admission, guarantee and planned start), excluding the commit.",
		Buckets: latencyBuckets,
	})
	m.request = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name:    "backfill_request_duration_seconds",
		Help:    "Time to answer an API request, including the commit to the state database.",
		Buckets: latencyBuckets,
	}, []string{"route"})
	m.commit = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "backfill_commit_duration_seconds",
		Help:    "Time of one group commit to the state database.",
		Buckets: latencyBuckets,
	})
	m.pass = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name:    "backfill_pass_duration_seconds",
		Help:    "Time of one wall-clock scheduling round (passes due and their commit).",
		Buckets: latencyBuckets,
	})
	m.submits = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "backfill_submissions_total",
		Help: "Submissions by result (admitted, rejected).",
	}, []string{"result"})
	m.refused = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "backfill_connections_refused_total",
		Help: "Connections beyond --max-conns or --max-conns-per-client (answered health or 503, or closed).",
	})
	gauge := func(name, help string, f func(w, r, busy int) float64) prometheus.GaugeFunc {
		return prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: name, Help: help}, func() float64 {
			v := s.readView() // never waits for the engine
			return f(v.waiting, v.running, v.busy)
		})
	}
	P := float64(s.cfg.Procs)
	m.reg.MustRegister(m.decision, m.request, m.commit, m.pass, m.submits, m.refused,
		gauge("backfill_queue_length", "Waiting jobs.", func(w, _, _ int) float64 { return float64(w) }),
		gauge("backfill_running_jobs", "Running jobs.", func(_, r, _ int) float64 { return float64(r) }),
		gauge("backfill_busy_processors", "Processors held by running jobs.", func(_, _, b int) float64 { return float64(b) }),
		gauge("backfill_utilization", "Busy processors / machine size.", func(_, _, b int) float64 { return float64(b) / P }),
		prometheus.NewGaugeFunc(prometheus.GaugeOpts{Name: "backfill_processors", Help: "Machine size P."}, func() float64 { return P }),
		prometheus.NewCounterFunc(prometheus.CounterOpts{Name: "backfill_passes_total", Help: "Scheduling passes (policy Ticks)."}, func() float64 {
			return float64(s.readView().passes)
		}),
		collectors.NewGoCollector(),
	)
	return m
}

func (m *metrics) handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{})
}
