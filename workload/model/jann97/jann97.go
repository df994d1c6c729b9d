// Package jann97 is the CTC SP2 workload model of Jann et al. (1997).
//
// It is the workload model of Jann, Pattnaik, Franke, Wang,
// Skovira and Riordan, "Modeling of workload in MPPs" (JSSPP 1997, LNCS
// 1291), a statistical model of the CTC SP2: the sizes are divided into
// ranges (powers of two up to the 322 nodes of the partition); each range
// has its own arrival stream, whose interarrival times follow a
// hyper-Erlang distribution of common order matching the first three
// moments of the log's, and its own hyper-Erlang runtime distribution.
// A job's size is uniform among the integers of its range (so most sizes
// are not powers of two, as the slides note). Estimates are the runtimes
// (the model has no user estimates).
//
// The parameters (Fitted) are our fits with the paper's method on the same
// period of the CTC SP2 log, not the paper's printed table, which was not
// available to us; see params.go and docs/workload.md.
//
// Variates come from package dist: the Erlang branches are dist.Gamma
// with an integer shape, the branch choice dist.Bernoulli.
package jann97

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/workload/model"
)

// DefaultProcs is the CTC SP2 partition the model was fitted on.
const DefaultProcs = 322

// Source names the origin of the parameters.
const Source = "our three-moment fit (method of Jann et al. 1997) on CTC-SP2-1996-3.1-cln, jobs submitted before 1996-09-13"

// Model is the Jann et al. model.
type Model struct {
	Ranges []Range
	spec   string
}

func init() {
	model.Register("jann97", "Jann et al. 1997: CTC SP2 model, per size range (powers of two up to 322) hyper-Erlang interarrival times and runtimes of common order matching three moments", New)
}

// New builds the model; it takes no parameters.
func New(args map[string]string) (model.Model, error) {
	if _, err := model.ApplyOverrides("jann97", args, nil); err != nil {
		return nil, err
	}
	return &Model{Ranges: Fitted, spec: "jann97"}, nil
}

// Spec implements model.Model.
func (m *Model) Spec() string { return m.spec }

// DefaultProcs implements model.Model.
func (m *Model) DefaultProcs() int { return DefaultProcs }

// Params lists every fitted parameter.
func (m *Model) Params() []model.Param {
	var out []model.Param
	for _, r := range m.Ranges {
		name := fmt.Sprintf("%d-%d", r.Lo, r.Hi)
		add := func(what string, h model.HyperErlang) {
			for _, x := range []struct {
				k string
				v float64
				d string
			}{
				{"p", h.P, "probability of the first Erlang"},
				{"rate1", h.Rate1, "stage rate of the first Erlang (1/s)"},
				{"rate2", h.Rate2, "stage rate of the second Erlang (1/s)"},
				{"n", float64(h.N), "common order (stages)"},
			} {
				out = append(out, model.Param{Name: name + "." + what + "." + x.k, Value: x.v,
					Doc: fmt.Sprintf("sizes %s, %s: %s (mean %.0f s)", name, what, x.d, h.Mean()), Source: Source})
			}
		}
		add("interarrival", r.Interarrival)
		add("runtime", r.Runtime)
	}
	return out
}

// rangesFor clips the ranges to P processors.
func (m *Model) rangesFor(P int) ([]Range, []string) {
	var out []Range
	var notes []string
	for _, r := range m.Ranges {
		if r.Lo > P {
			notes = append(notes, fmt.Sprintf("size range %d-%d dropped (P = %d)", r.Lo, r.Hi, P))
			continue
		}
		if r.Hi > P {
			notes = append(notes, fmt.Sprintf("size range %d-%d clipped to %d-%d (P = %d)", r.Lo, r.Hi, r.Lo, P, P))
			r.Hi = P
		}
		out = append(out, r)
	}
	return out, notes
}

// Generate implements model.Model.
func (m *Model) Generate(cfg model.Config) (*model.Workload, error) {
	if err := model.CheckConfig(&cfg, DefaultProcs); err != nil {
		return nil, err
	}
	P := cfg.Procs
	rs, notes := m.rangesFor(P)
	w := &model.Workload{Spec: m.spec, Procs: P, Seed: cfg.Seed, Params: m.Params(), Notes: notes}

	// The sequence of ranges and every job's size and runtime come from
	// the model's own arrival streams; a time scale k only stretches
	// time, so it changes no attribute.
	which, times := arrivals(rs, cfg.Jobs, cfg.Seed)
	base := make([]job.Job, cfg.Jobs)
	sizes := make([]*rand.Rand, len(rs))
	runs := make([]*model.Sampler, len(rs))
	for i, r := range rs {
		tag := strconv.Itoa(r.Lo)
		sizes[i] = rand.New(model.Stream(cfg.Seed, "jann97.size."+tag))
		runs[i] = r.Runtime.NewSampler(model.Stream(cfg.Seed, "jann97.runtime."+tag))
	}
	for i, k := range which {
		r := rs[k]
		base[i] = job.Job{
			Request: job.Request{Procs: r.Lo + sizes[k].IntN(r.Hi-r.Lo+1), User: -1, Group: -1, Queue: -1, Partition: -1},
			Runtime: int64(math.Floor(runs[k].Rand())),
		}
	}
	scaled := func(k float64) []job.Job {
		jobs := append([]job.Job(nil), base...)
		for i := range jobs {
			jobs[i].Submit = int64(math.Floor(times[i] * k))
		}
		return jobs
	}
	var jobs []job.Job
	switch {
	case cfg.Rate > 0:
		pt := model.PoissonTimes(cfg.Jobs, cfg.Rate, model.Stream(cfg.Seed, "jann97.poisson"))
		jobs = append([]job.Job(nil), base...)
		for i := range jobs {
			jobs[i].Submit = pt[i]
		}
		w.Notes = append(w.Notes, fmt.Sprintf("arrivals: Poisson at %g jobs/s (replacing the per-range streams; the model's sequence of size ranges kept)", cfg.Rate))
	case cfg.Load > 0:
		var k, l float64
		var err error
		jobs, k, l, err = model.Calibrate(cfg.Load, P, func(k float64) ([]job.Job, error) { return scaled(k), nil })
		if err != nil {
			return nil, err
		}
		w.Notes = append(w.Notes, fmt.Sprintf("arrivals: per-range hyper-Erlang streams, interarrival times multiplied by %.6g so that the offered load is %.4f (target %g)", k, l, cfg.Load))
	default:
		jobs = scaled(1)
		w.Notes = append(w.Notes, "arrivals: per-range hyper-Erlang streams as fitted")
	}
	model.Finish(jobs, nil)
	w.Jobs = jobs
	w.OfferedLoad = model.OfferedLoad(jobs, P)
	return w, nil
}

// arrivals merges the ranges' renewal streams (each starting at 0 with a
// first gap) and returns, for the first n arrivals, the range index and
// the time (ties go to the smaller range).
func arrivals(rs []Range, n int, seed uint64) ([]int, []float64) {
	next := make([]float64, len(rs))
	ia := make([]*model.Sampler, len(rs))
	for i, r := range rs {
		ia[i] = r.Interarrival.NewSampler(model.Stream(seed, "jann97.interarrival."+strconv.Itoa(r.Lo)))
		next[i] = ia[i].Rand()
	}
	which := make([]int, n)
	times := make([]float64, n)
	for j := 0; j < n; j++ {
		k := 0
		for i := 1; i < len(next); i++ {
			if next[i] < next[k] {
				k = i
			}
		}
		which[j], times[j] = k, next[k]
		next[k] += ia[k].Rand()
	}
	return which, times
}
