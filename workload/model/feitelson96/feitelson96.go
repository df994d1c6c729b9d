// Package feitelson96 is the workload model of Feitelson (1996).
//
// It is the workload model of Feitelson, "Packing schemes
// for gang scheduling" (JSSPP 1996, LNCS 1162), as the Parallel Workloads
// Archive describes it: based on six logs (NASA Ames iPSC/860, Argonne
// SP1, SDSC Paragon, LLNL Butterfly, CTC SP2, ETH Paragon), it models
//
//   - sizes: a harmonic distribution of order 1.5 (the probability of size
//     n proportional to 1/n^1.5), hand-tailored to emphasize powers of two
//     (here: the weight of every power of two above 1 multiplied by Pow2);
//   - runtimes: hyper-exponential (coefficient of variation above 1), with
//     a weak correlation with size: the probability of the branch with
//     the larger mean grows linearly with the size;
//   - repeated executions: a job is run several times; the number of runs
//     is Zipf-like (probability of r runs proportional to r^−RepeatExp).
//
// The model has no arrival process of its own (Leinberger et al. use it
// with Poisson arrivals): jobs arrive as a Poisson process at a given
// rate, or at the rate that gives a target offered load. Each arrival is
// the next run of a repeated job whose previous run would have ended by
// then had it started at once (the earliest such, ties to the older job;
// in an open model the waiting time is not known), or else a new job. So
// the whole stream is Poisson, a rerun never comes before its previous
// run could end, and the runs of a job drawn with r runs are its next r
// arrivals of that kind (chains still going at the end are cut).
//
// Which values are published and which are ours is listed in Params and
// docs/workload.md: the order 1.5 and the structure are the published
// model's; the hand-tailoring factor, the two branch means, the
// probability range and the repetition exponent are our choices (the
// original code's constants were not available to us).
//
// The variates come from package dist (Categorical, Exponential) and
// math/rand/v2 (the branch choice, Zipf).
package feitelson96

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/backfill-hpc/backfill/internal/dist"

	"github.com/backfill-hpc/backfill/internal/minheap"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/workload/model"
)

// DefaultProcs is the machine size when none is given (the iPSC/860 and
// SP1 of the model's logs had 128 nodes).
const DefaultProcs = 128

// DefaultLoad is the offered load used when neither a rate nor a load is
// given (the model has no arrival process of its own).
const DefaultLoad = 0.7

// Params are the model's parameters.
type Params struct {
	// Order is the order of the harmonic size distribution (published: 1.5).
	Order float64
	// Pow2 multiplies the weight of sizes that are powers of two above 1.
	Pow2 float64
	// ShortMean and LongMean are the means (seconds) of the two
	// exponential branches of the runtime.
	ShortMean, LongMean float64
	// PLong1 and PLongP are the probabilities of the long branch for a
	// serial job and for a job of size P; linear in between.
	PLong1, PLongP float64
	// Repeat enables repeated runs; RepeatExp is the Zipf exponent of the
	// number of runs and MaxRuns its cap.
	Repeat    bool
	RepeatExp float64
	MaxRuns   int
}

// Default returns the default parameters (repeated runs on).
func Default() Params {
	return Params{Order: 1.5, Pow2: 4, ShortMean: 300, LongMean: 10800, PLong1: 0.15, PLongP: 0.75,
		Repeat: true, RepeatExp: 2.5, MaxRuns: 1000}
}

// Model wraps Params as a model.Model.
type Model struct {
	P    Params
	spec string
}

func init() {
	model.Register("feitelson96", "Feitelson 1996: harmonic (order 1.5) sizes emphasizing powers of two, hyper-exponential runtimes correlated with size, repeated runs; Poisson arrivals", New)
}

// New builds the model from spec arguments: order, pow2, short, long,
// plong1, plongp, repeat (0 or 1), zipf, maxruns.
func New(args map[string]string) (model.Model, error) {
	p := Default()
	rep, maxRuns := 1.0, float64(p.MaxRuns)
	keys, err := model.ApplyOverrides("feitelson96", args, []model.Override{
		{Key: "order", Ptr: &p.Order, Min: 0, Max: 10},
		{Key: "pow2", Ptr: &p.Pow2, Min: 0, Max: 1e6},
		{Key: "short", Ptr: &p.ShortMean, Min: 1e-3, Max: 1e9},
		{Key: "long", Ptr: &p.LongMean, Min: 1e-3, Max: 1e9},
		{Key: "plong1", Ptr: &p.PLong1, Min: 0, Max: 1},
		{Key: "plongp", Ptr: &p.PLongP, Min: 0, Max: 1},
		{Key: "repeat", Ptr: &rep, Min: 0, Max: 1},
		{Key: "zipf", Ptr: &p.RepeatExp, Min: 1.000001, Max: 100},
		{Key: "maxruns", Ptr: &maxRuns, Min: 1, Max: 1e6},
	})
	if err != nil {
		return nil, err
	}
	if rep != 0 && rep != 1 {
		return nil, fmt.Errorf("model feitelson96: repeat must be 0 or 1, found %g", rep)
	}
	if maxRuns != math.Trunc(maxRuns) {
		return nil, fmt.Errorf("model feitelson96: maxruns must be a whole number, found %g", maxRuns)
	}
	p.Repeat, p.MaxRuns = rep == 1, int(maxRuns)
	return &Model{P: p, spec: model.CanonicalSpec("feitelson96", keys, args)}, nil
}

// Spec implements model.Model.
func (m *Model) Spec() string { return m.spec }

// DefaultProcs implements model.Model.
func (m *Model) DefaultProcs() int { return DefaultProcs }

// Generate implements model.Model.
func (m *Model) Generate(cfg model.Config) (*model.Workload, error) {
	w, err := m.P.Generate(cfg)
	if err != nil {
		return nil, err
	}
	w.Spec = m.spec
	return w, nil
}

// SizeProbs returns the probability of each size 1..procs (index n−1).
func (p Params) SizeProbs(procs int) []float64 {
	w := make([]float64, procs)
	sum := 0.0
	for n := 1; n <= procs; n++ {
		x := math.Pow(float64(n), -p.Order)
		if n > 1 && model.IsPow2(n) {
			x *= p.Pow2
		}
		w[n-1] = x
		sum += x
	}
	for i := range w {
		w[i] /= sum
	}
	return w
}

// PLong is the probability of the long runtime branch for a job of size n
// on procs processors.
func (p Params) PLong(n, procs int) float64 {
	if procs <= 1 {
		return p.PLong1
	}
	return p.PLong1 + (p.PLongP-p.PLong1)*float64(n-1)/float64(procs-1)
}

// MeanRuns is the expected number of runs of a job (1 without repeats).
func (p Params) MeanRuns() float64 {
	if !p.Repeat {
		return 1
	}
	var num, den float64
	for r := 1; r <= p.MaxRuns; r++ {
		x := math.Pow(float64(r), -p.RepeatExp)
		num += float64(r) * x
		den += x
	}
	return num / den
}

// MeanWork is the expected size × runtime of a job (processor-seconds).
func (p Params) MeanWork(procs int) float64 {
	probs := p.SizeProbs(procs)
	var wk float64
	for i, q := range probs {
		n := i + 1
		pl := p.PLong(n, procs)
		wk += q * float64(n) * (pl*p.LongMean + (1-pl)*p.ShortMean)
	}
	return wk
}

// Params lists the parameters in force with their sources.
func (p Params) Params() []model.Param {
	const pub = "Feitelson 1996 (published structure and value)"
	const ours = "ours (the original constants were not available to us)"
	rep := 0.0
	if p.Repeat {
		rep = 1
	}
	return []model.Param{
		{Name: "order", Value: p.Order, Doc: "order of the harmonic size distribution, P(n) ~ n^-order", Source: pub},
		{Name: "pow2", Value: p.Pow2, Doc: "weight factor of sizes that are powers of two (above 1)", Source: ours + "; 4 gives 24.7 % serial and 53 % parallel power-of-two jobs on 128 nodes, the shares Lublin & Feitelson measured later (24.4 %, 57.6 %)"},
		{Name: "short", Value: p.ShortMean, Doc: "mean of the short exponential branch of the runtime (s)", Source: ours},
		{Name: "long", Value: p.LongMean, Doc: "mean of the long exponential branch (s)", Source: ours},
		{Name: "plong1", Value: p.PLong1, Doc: "probability of the long branch for a serial job", Source: ours},
		{Name: "plongp", Value: p.PLongP, Doc: "probability of the long branch for a job of size P (linear in between)", Source: ours},
		{Name: "repeat", Value: rep, Doc: "repeated runs on (1) or off (0)", Source: "Feitelson 1996 (repeated runs are part of the model)"},
		{Name: "zipf", Value: p.RepeatExp, Doc: "P(r runs) ~ r^-zipf", Source: "ours, after the model's description (Zipf-like number of runs)"},
		{Name: "maxruns", Value: float64(p.MaxRuns), Doc: "cap on the number of runs", Source: "ours"},
	}
}

func (p Params) check() error {
	if p.Order < 0 || p.Pow2 < 0 || p.ShortMean <= 0 || p.LongMean <= 0 || p.PLong1 < 0 || p.PLong1 > 1 ||
		p.PLongP < 0 || p.PLongP > 1 || (p.Repeat && (p.RepeatExp <= 1 || p.MaxRuns < 1)) {
		return fmt.Errorf("invalid parameters %+v", p)
	}
	return nil
}

// Generate makes a workload with these parameters. With neither a rate
// nor a load, the load is DefaultLoad.
func (p Params) Generate(cfg model.Config) (*model.Workload, error) {
	if err := p.check(); err != nil {
		return nil, err
	}
	if err := model.CheckConfig(&cfg, DefaultProcs); err != nil {
		return nil, err
	}
	P := cfg.Procs
	w := &model.Workload{Spec: "feitelson96", Procs: P, Seed: cfg.Seed, Params: p.Params()}
	if cfg.Rate == 0 && cfg.Load == 0 {
		cfg.Load = DefaultLoad
		w.Notes = append(w.Notes, fmt.Sprintf("no rate or load given: target offered load %g (the model has no arrival process of its own)", DefaultLoad))
	}

	// Jobs (groups of runs) and their attributes do not depend on the
	// arrival rate: draw them first.
	type group struct {
		size int
		run  int64
		runs int
	}
	sizes := dist.NewCategorical(p.SizeProbs(P), model.Stream(cfg.Seed, "feitelson96.size"))
	branch := rand.New(model.Stream(cfg.Seed, "feitelson96.branch"))
	exp := dist.NewExponential(1, model.Stream(cfg.Seed, "feitelson96.runtime"))
	var zipf *rand.Zipf
	if p.Repeat && p.MaxRuns > 1 {
		zipf = rand.NewZipf(rand.New(model.Stream(cfg.Seed, "feitelson96.repeat")), p.RepeatExp, 1, uint64(p.MaxRuns-1))
	}
	// At most N jobs are new ones: draw N jobs (groups) up front, so that
	// the attributes do not depend on the arrival rate.
	groups := make([]group, cfg.Jobs)
	for i := range groups {
		n := int(sizes.Rand()) + 1
		mean := p.ShortMean
		if branch.Float64() < p.PLong(n, P) {
			mean = p.LongMean
		}
		g := group{size: n, run: int64(math.Floor(exp.Rand() * mean)), runs: 1}
		if zipf != nil {
			g.runs = int(zipf.Uint64()) + 1
		}
		groups[i] = g
	}
	// unit-rate Poisson gaps between arrivals
	gaps := make([]float64, cfg.Jobs)
	e := dist.NewExponential(1, model.Stream(cfg.Seed, "feitelson96.arrival"))
	for i := 1; i < len(gaps); i++ {
		gaps[i] = e.Rand()
	}
	// build places the jobs on the epochs of a Poisson process of the
	// given rate: at each epoch, the next run of the job whose previous
	// run is the earliest to have ended by then (had it started at once;
	// ties to the older job), else a new job.
	used := 0
	build := func(rate float64) ([]job.Job, []int32) {
		jobs := make([]job.Job, 0, cfg.Jobs)
		exec := make([]int32, 0, cfg.Jobs)
		var ready minheap.Heap[int64, int]
		next := 0
		t := 0.0
		for i := 0; i < cfg.Jobs; i++ {
			t += gaps[i] / rate
			now := int64(math.Floor(t))
			var c chain
			if ready.Len() > 0 && ready.Min().Key <= now {
				c = ready.Pop()
			} else {
				c = chain{ID: next, Val: groups[next].runs}
				next++
			}
			g := groups[c.ID]
			jobs = append(jobs, job.Job{Request: job.Request{Submit: now, Procs: g.size, User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: g.run})
			exec = append(exec, int32(c.ID+1))
			if c.Val--; c.Val > 0 {
				c.Key = now + g.run
				ready.Push(c)
			}
		}
		used = next
		model.Finish(jobs, exec)
		return jobs, exec
	}
	var rate float64
	runsNote := func() string {
		if !p.Repeat {
			return "repeated runs off"
		}
		return fmt.Sprintf("%d jobs of %d distinct jobs (repeated runs; model mean %.3f runs a job, chains still running at the end are cut); every arrival is the next run of the job whose previous run ended first (had it started at once), or a new job when none has", cfg.Jobs, used, p.MeanRuns())
	}
	if cfg.Rate > 0 {
		rate = cfg.Rate
		build(rate)
		w.Notes = append(w.Notes, fmt.Sprintf("arrivals: Poisson, %g jobs/s; %s", cfg.Rate, runsNote()))
	} else {
		// initial guess: the rate that gives the load in expectation
		guess := cfg.Load * float64(P) / p.MeanWork(P)
		_, k, l, err := model.Calibrate(cfg.Load, P, func(k float64) ([]job.Job, error) {
			jobs, _ := build(guess / k)
			return jobs, nil
		})
		if err != nil {
			return nil, err
		}
		if math.Abs(l/cfg.Load-1) > 0.02 {
			// With repeated runs the set of jobs among the first N
			// depends on the rate, so with few jobs the load can jump
			// over the target (one big job more or less).
			w.Notes = append(w.Notes, fmt.Sprintf("WARNING: offered load %.4f: the target %g is not reachable within 2 %% with %d jobs and repeated runs (the reruns among the first jobs change with the rate); use more jobs or repeat=0", l, cfg.Load, cfg.Jobs))
		}
		rate = guess / k
		build(rate)
		w.Notes = append(w.Notes, fmt.Sprintf("arrivals: Poisson, %.6g jobs/s, the rate at which these jobs have offered load %.4f (target %g; expected-value rate %.6g); %s", rate, l, cfg.Load, guess, runsNote()))
	}
	jobs, exec := build(rate)
	w.Jobs = jobs
	w.Executable = exec
	w.OfferedLoad = model.OfferedLoad(jobs, P)
	return w, nil
}

// Jobs returns n jobs of the model with default parameters and no
// repeated runs on procs processors, arriving as a Poisson process of rate
// jobs per second: the setting of Leinberger, Karypis & Kumar's K-resource
// study. The jobs are numbered 0..n−1 in submission order, with estimate =
// runtime.
func Jobs(n, procs int, rate float64, seed uint64) ([]job.Job, error) {
	p := Default()
	p.Repeat = false
	w, err := p.Generate(model.Config{Jobs: n, Procs: procs, Rate: rate, Seed: seed})
	if err != nil {
		return nil, err
	}
	return w.Jobs, nil
}

// chain is a job group with Val runs left; Key is when its last run would
// end, ID the group. The heap of chains is on (end, group).
type chain = minheap.Item[int64, int]
