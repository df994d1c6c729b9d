// Package lublin is the workload model of Lublin & Feitelson (2003).
//
// It is the workload model of Lublin & Feitelson, "The
// workload on parallel supercomputers: modeling the characteristics of
// rigid jobs" (JPDC 63(11), 2003), with the parameters of the model's
// published C code (m_lublin99.c, distributed with the Parallel Workloads
// Archive). Its structure, as in that code:
//
//   - size: serial with probability serial; otherwise log2(size) is drawn
//     from a two-stage uniform (uniform on [ulow, umed] with probability
//     uprob, else on [umed, uhi]); with probability pow2 (of all jobs) it
//     is rounded to an integer (a power-of-two size); size = round(2^x);
//   - runtime = exp(hyper-gamma): gamma(a1, b1) with probability
//     p = pa·size + pb (clipped to [0, 1]), else gamma(a2, b2) (b is the
//     scale); draws above 12 (e^12 s ≈ 45 h) are redrawn;
//   - arrivals: the gap is exp(gamma(aarr·arar, barr)) "seconds of rush
//     hour", spent over the 48 half-hour buckets of the day, each weighted
//     by the gamma(anum, bnum) probability of its bucket (the daily cycle);
//     draws above 13 are redrawn;
//   - two classes, batch and interactive, each with its own parameters and
//     arrival stream; the next job is of the class whose next arrival
//     comes first. With classes=1 the whole-sample ("typeless")
//     parameters are used and every job is interactive.
//
// Gamma variates and the gamma CDF come from package dist (dist.Gamma).
package lublin

import (
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/backfill-hpc/backfill/internal/dist"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/workload/model"
)

// Source names the origin of the default parameters.
const Source = "Lublin & Feitelson 2003, m_lublin99.c"

// Class holds the parameters of one job class.
type Class struct {
	Serial, Pow2                    float64 // probability of a serial job, of a power-of-two parallel job
	ULow, UMed, UHi, UProb          float64 // two-stage uniform of log2(size)
	A1, B1, A2, B2, PA, PB          float64 // hyper-gamma of ln(runtime); p = PA·size + PB
	AArr, BArr, ANum, BNum, ARAR    float64 // gamma of ln(gap) at rush hour; gamma of the daily cycle; rush-to-all ratio
	uhiOffset, umedOffset, hiOffset float64 // how UHi, UMed follow log2(P)
}

// Batch, Interactive and Typeless are the published parameters for a
// 128-node machine (UHi = 7). For another P, UHi and UMed move with
// log2(P) keeping the published offsets (see Params).
var (
	Batch = Class{
		Serial: 0.2927, Pow2: 0.6686, ULow: 1.2, UMed: 5, UHi: 7, UProb: 0.875,
		A1: 6.57, B1: 0.823, A2: 639.1, B2: 0.0156, PA: -0.003, PB: 0.6986,
		AArr: 6.0415, BArr: 0.8531, ANum: 6.1271, BNum: 5.2740, ARAR: 1.0519,
		hiOffset: 0, umedOffset: 2,
	}
	Interactive = Class{
		Serial: 0.1541, Pow2: 0.625, ULow: 1, UMed: 3, UHi: 5.5, UProb: 0.705,
		A1: 3.8351, B1: 0.6605, A2: 7.073, B2: 0.6856, PA: -0.0118, PB: 0.9156,
		AArr: 6.5510, BArr: 0.6621, ANum: 8.9186, BNum: 3.6680, ARAR: 0.9797,
		hiOffset: 1.5, umedOffset: 2.5,
	}
	Typeless = Class{
		Serial: 0.244, Pow2: 0.576, ULow: 0.8, UMed: 4.5, UHi: 7, UProb: 0.86,
		A1: 4.2, B1: 0.94, A2: 312, B2: 0.03, PA: -0.0054, PB: 0.78,
		AArr: 10.2303, BArr: 0.4871, ANum: 8.1737, BNum: 3.9631, ARAR: 1.0225,
		hiOffset: 0, umedOffset: 2.5,
	}
)

// Constants of the published code.
const (
	buckets       = 48   // half hours in a day
	bucketSeconds = 1800 // seconds in a bucket
	cyclicStart   = 11   // the daily-cycle gamma is fitted to a day starting at bucket 11
	tooMuchTime   = 12.0 // ln(runtime) limit: e^12 s
	tooMuchArrive = 13.0 // ln(gap) limit
	// DefaultProcs is the machine size of the published parameters.
	DefaultProcs = 128
)

// Model is the Lublin–Feitelson model.
type Model struct {
	// Classes is 2 (batch and interactive, the published code's default)
	// or 1 (whole-sample parameters).
	Classes int
	// Batch and Interactive are used with 2 classes, Typeless with 1.
	Batch, Interactive, Typeless Class
	// Start is the hour of the day (0–23) at which the workload starts.
	Start int
	// fixUHi is set when uhi/umed were overridden (then they do not move
	// with P).
	fixHi map[string]bool
	spec  string
}

func init() {
	model.Register("lublin", "Lublin & Feitelson 2003: two-stage log-uniform sizes (serial and power-of-two shares), hyper-gamma runtimes correlated with size, gamma arrivals with a daily cycle, batch and interactive classes (classes=1: whole-sample parameters)", New)
}

// New builds the model from spec arguments: classes=1|2, start=H, and any
// class parameter as batch.KEY, inter.KEY (2 classes) or KEY (1 class),
// with KEY one of serial, pow2, ulow, umed, uhi, uprob, a1, b1, a2, b2,
// pa, pb, aarr, barr, anum, bnum, arar.
func New(args map[string]string) (model.Model, error) {
	m := &Model{Classes: 2, Batch: Batch, Interactive: Interactive, Typeless: Typeless, fixHi: map[string]bool{}}
	var classes, start float64 = 2, 0
	table := []model.Override{{Key: "classes", Ptr: &classes, Min: 1, Max: 2}, {Key: "start", Ptr: &start, Min: 0, Max: 23}}
	hi := map[string]string{}
	add := func(prefix string, c *Class) {
		for _, f := range []struct {
			k      string
			p      *float64
			lo, hi float64
		}{
			{"serial", &c.Serial, 0, 1}, {"pow2", &c.Pow2, 0, 1}, {"ulow", &c.ULow, 0, 31}, {"umed", &c.UMed, 0, 31},
			{"uhi", &c.UHi, 0, 31}, {"uprob", &c.UProb, 0, 1}, {"a1", &c.A1, 1e-6, 1e6}, {"b1", &c.B1, 1e-6, 1e6},
			{"a2", &c.A2, 1e-6, 1e6}, {"b2", &c.B2, 1e-6, 1e6}, {"pa", &c.PA, -1, 1}, {"pb", &c.PB, -10, 10},
			{"aarr", &c.AArr, 1e-6, 1e6}, {"barr", &c.BArr, 1e-6, 1e6}, {"anum", &c.ANum, 1e-6, 1e6},
			{"bnum", &c.BNum, 1e-6, 1e6}, {"arar", &c.ARAR, 1e-6, 1e6},
		} {
			table = append(table, model.Override{Key: prefix + f.k, Ptr: f.p, Min: f.lo, Max: f.hi})
			if f.k == "uhi" || f.k == "umed" {
				hi[prefix+f.k] = prefix
			}
		}
	}
	add("batch.", &m.Batch)
	add("inter.", &m.Interactive)
	add("", &m.Typeless)
	// arar=false: arrivals without the rush-to-all ratio (ARAR = 1 in
	// every class), the reading under which the archive's lublin_256
	// file's mean gap is matched (docs/workload.md); arar=true keeps the
	// model's values. A number is the ratio itself (one class).
	ararOff := false
	switch args["arar"] {
	case "false", "off":
		ararOff = true
		m.Batch.ARAR, m.Interactive.ARAR, m.Typeless.ARAR = 1, 1, 1
		args = maps.Clone(args)
		delete(args, "arar")
	case "true", "on":
		args = maps.Clone(args)
		delete(args, "arar")
	}
	keys, err := model.ApplyOverrides("lublin", args, table)
	if err != nil {
		return nil, err
	}
	if classes != 1 && classes != 2 {
		return nil, fmt.Errorf("model lublin: classes must be 1 or 2, found %g", classes)
	}
	if start != math.Trunc(start) {
		return nil, fmt.Errorf("model lublin: start must be a whole hour from 0 to 23, found %g", start)
	}
	m.Classes, m.Start = int(classes), int(start)
	for _, k := range keys {
		if c, ok := hi[k]; ok {
			m.fixHi[c] = true
		}
		isTypeless := k != "classes" && k != "start" && !(len(k) > 6 && (k[:6] == "batch." || k[:6] == "inter."))
		if isTypeless && m.Classes == 2 {
			return nil, fmt.Errorf("model lublin: %s is a whole-sample parameter (classes=1); with two classes use batch.%s or inter.%s", k, k, k)
		}
		if !isTypeless && k != "classes" && k != "start" && m.Classes == 1 {
			return nil, fmt.Errorf("model lublin: %s is a class parameter (two classes); with classes=1 use the plain name", k)
		}
	}
	m.spec = model.CanonicalSpec("lublin", keys, args)
	if ararOff {
		m.spec += ":arar=false"
	}
	return m, nil
}

// Spec implements model.Model.
func (m *Model) Spec() string { return m.spec }

// DefaultProcs implements model.Model.
func (m *Model) DefaultProcs() int { return DefaultProcs }

// classesFor returns the classes in force for P: index 0 interactive
// (SWF queue 0, as the published code's ACTIVE), 1 batch.
func (m *Model) classesFor(P int) []Class {
	adjust := func(c Class, prefix string) Class {
		if !m.fixHi[prefix] {
			c.UHi = math.Log2(float64(P)) - c.hiOffset
			c.UMed = c.UHi - c.umedOffset
		}
		return c
	}
	if m.Classes == 1 {
		return []Class{adjust(m.Typeless, "")}
	}
	return []Class{adjust(m.Interactive, "inter."), adjust(m.Batch, "batch.")}
}

var classNames = []string{"interactive", "batch"}

// Params lists the parameters in force on P processors.
func (m *Model) Params(P int) []model.Param {
	cs := m.classesFor(P)
	var out []model.Param
	for i, c := range cs {
		prefix, name := "", "all jobs"
		if m.Classes == 2 {
			prefix, name = map[int]string{0: "inter.", 1: "batch."}[i], classNames[i]
		}
		src := Source
		hiSrc := fmt.Sprintf("log2(P) - %g (the published value on 128 nodes is %g)", c.hiOffset, 7-c.hiOffset)
		medSrc := fmt.Sprintf("uhi - %g (the published offset)", c.umedOffset)
		if m.fixHi[prefix] {
			hiSrc, medSrc = "given", "given"
		}
		add := func(k string, v float64, doc, s string) {
			out = append(out, model.Param{Name: prefix + k, Value: v, Doc: name + ": " + doc, Source: s})
		}
		add("serial", c.Serial, "probability of a serial job", src)
		add("pow2", c.Pow2, "probability of a power-of-two parallel job", src)
		add("ulow", c.ULow, "two-stage uniform of log2(size): low end", src)
		add("umed", c.UMed, "two-stage uniform: middle point", medSrc)
		add("uhi", c.UHi, "two-stage uniform: high end (log2 of the largest job)", hiSrc)
		add("uprob", c.UProb, "two-stage uniform: probability of [ulow, umed]", src)
		add("a1", c.A1, "hyper-gamma of ln(runtime): shape of the first gamma", src)
		add("b1", c.B1, "scale of the first gamma", src)
		add("a2", c.A2, "shape of the second gamma", src)
		add("b2", c.B2, "scale of the second gamma", src)
		add("pa", c.PA, "p = pa*size + pb, probability of the first gamma", src)
		add("pb", c.PB, "p = pa*size + pb", src)
		add("aarr", c.AArr, "gamma of ln(gap) at rush hour: shape (multiplied by arar)", src)
		add("barr", c.BArr, "gamma of ln(gap): scale", src)
		add("anum", c.ANum, "daily cycle: gamma shape over half-hour buckets", src)
		add("bnum", c.BNum, "daily cycle: gamma scale", src)
		add("arar", c.ARAR, "arrive-rush-to-all ratio", src)
	}
	return out
}

// Generate implements model.Model.
func (m *Model) Generate(cfg model.Config) (*model.Workload, error) {
	if err := model.CheckConfig(&cfg, DefaultProcs); err != nil {
		return nil, err
	}
	P := cfg.Procs
	cs := m.classesFor(P)
	w := &model.Workload{Spec: m.spec, Procs: P, Seed: cfg.Seed, Params: m.Params(P)}

	// The class sequence and the attributes of the i-th job of each class
	// do not depend on the arrival scale, except through the order of the
	// two classes' streams; attributes are drawn per class in order.
	types, times := m.arrivals(cs, cfg.Jobs, cfg.Seed, 1)
	var clamped int
	attrs := func(types []int) []job.Job {
		gens := make([]*classGen, len(cs))
		for i := range cs {
			gens[i] = newClassGen(cs[i], P, cfg.Seed, classNames[i])
		}
		jobs := make([]job.Job, len(types))
		clamped = 0
		for i, t := range types {
			size, run, cl := gens[t].next()
			if cl {
				clamped++
			}
			jobs[i] = job.Job{Request: job.Request{Procs: size, User: -1, Group: -1, Queue: int32(t), Partition: -1}, Runtime: run}
		}
		return jobs
	}
	build := func(types []int, times []float64) []job.Job {
		jobs := attrs(types)
		for i := range jobs {
			jobs[i].Submit = int64(math.Floor(times[i]))
		}
		return jobs
	}
	arrivalNote := fmt.Sprintf("arrivals: the model's own process (gamma gaps at rush hour spread over a daily cycle of 48 half-hour buckets), day starting at %02d:00", m.Start)
	var jobs []job.Job
	switch {
	case cfg.Rate > 0:
		// Poisson arrivals at the given rate; the class sequence is the
		// model's own (so the class mix is kept).
		pt := model.PoissonTimes(cfg.Jobs, cfg.Rate, model.Stream(cfg.Seed, "lublin.poisson"))
		jobs = attrs(types)
		for i := range jobs {
			jobs[i].Submit = pt[i]
		}
		arrivalNote = fmt.Sprintf("arrivals: Poisson at %g jobs/s (replacing the model's arrival process; the model's class sequence kept)", cfg.Rate)
	case cfg.Load > 0:
		var k, l float64
		var err error
		jobs, k, l, err = model.Calibrate(cfg.Load, P, func(k float64) ([]job.Job, error) {
			ty, tm := m.arrivals(cs, cfg.Jobs, cfg.Seed, k)
			return build(ty, tm), nil
		})
		if err != nil {
			return nil, err
		}
		arrivalNote += fmt.Sprintf("; rush-hour gaps multiplied by %.6g so that the offered load is %.4f (target %g; the daily cycle is kept)", k, l, cfg.Load)
	default:
		jobs = build(types, times)
	}
	w.Notes = append(w.Notes, arrivalNote)
	if clamped > 0 {
		w.Notes = append(w.Notes, fmt.Sprintf("%d jobs larger than P (a power of two above a P that is not one) got size P", clamped))
	}
	model.Finish(jobs, nil)
	w.Jobs = jobs
	w.OfferedLoad = model.OfferedLoad(jobs, P)
	return w, nil
}

// classGen draws sizes and runtimes of one class.
type classGen struct {
	c       Class
	P       int
	u       *rand.Rand
	g1, g2  dist.Gamma
	pickRun *rand.Rand
}

func newClassGen(c Class, P int, seed uint64, name string) *classGen {
	rs := model.Stream(seed, "lublin.runtime."+name)
	return &classGen{
		c: c, P: P,
		u:       rand.New(model.Stream(seed, "lublin.size."+name)),
		g1:      dist.NewGamma(c.A1, 1/c.B1, rs),
		g2:      dist.NewGamma(c.A2, 1/c.B2, rs),
		pickRun: rand.New(model.Stream(seed, "lublin.branch."+name)),
	}
}

// next returns a size, a runtime and whether the size was clamped to P.
func (g *classGen) next() (int, int64, bool) {
	c := g.c
	size := 1
	clamped := false
	u := g.u.Float64()
	if u > c.Serial {
		// two-stage uniform of log2(size)
		lo, hi := c.UMed, c.UHi
		if g.u.Float64() <= c.UProb {
			lo, hi = c.ULow, c.UMed
		}
		par := lo + g.u.Float64()*(hi-lo)
		if u <= c.Serial+c.Pow2 {
			par = math.Floor(par + 0.5)
		}
		size = int(math.Floor(math.Pow(2, par) + 0.5))
		if size < 1 {
			size = 1
		}
		if size > g.P {
			size, clamped = g.P, true
		}
	}
	p := c.PA*float64(size) + c.PB
	p = max(0, min(1, p))
	var hg float64
	for {
		if g.pickRun.Float64() <= p {
			hg = g.g1.Rand()
		} else {
			hg = g.g2.Rand()
		}
		if hg <= tooMuchTime {
			break
		}
	}
	return size, int64(math.Exp(hg)), clamped
}

// arrivals returns the class (0 interactive, 1 batch) and the arrival time
// of n jobs, with rush-hour gaps multiplied by k.
func (m *Model) arrivals(cs []Class, n int, seed uint64, k float64) ([]int, []float64) {
	type stream struct {
		weights          [buckets]float64
		gam              dist.Gamma
		points, reminder float64
		bucket           int
		t                float64
	}
	ss := make([]*stream, len(cs))
	for i, c := range cs {
		s := &stream{
			gam:    dist.NewGamma(c.AArr*c.ARAR, 1/c.BArr, model.Stream(seed, "lublin.arrival."+classNames[i])),
			bucket: m.Start * buckets / 24,
		}
		cycle := dist.NewGamma(c.ANum, 1/c.BNum, nil)
		mean := 0.0
		for b := cyclicStart; b < buckets+cyclicStart; b++ {
			idx := (b - 1) % buckets
			s.weights[idx] = cycle.CDF(float64(b)+0.5) - cycle.CDF(float64(b)-0.5)
			mean += s.weights[idx]
		}
		mean /= buckets
		for b := range s.weights {
			s.weights[b] /= mean
		}
		ss[i] = s
	}
	next := func(s *stream) {
		var g float64
		for {
			g = s.gam.Rand()
			if g <= tooMuchArrive {
				break
			}
		}
		s.points += math.Exp(g) / bucketSeconds * k
		gap := 0.0
		for s.points > s.weights[s.bucket] {
			s.points -= s.weights[s.bucket]
			s.bucket = (s.bucket + 1) % buckets
			gap += bucketSeconds
		}
		rem := s.points / s.weights[s.bucket]
		gap += bucketSeconds * (rem - s.reminder)
		s.reminder = rem
		s.t += gap
	}
	for _, s := range ss {
		next(s)
	}
	types := make([]int, n)
	times := make([]float64, n)
	for i := 0; i < n; i++ {
		t := 0 // interactive, unless batch comes strictly first (as the published code)
		if len(ss) == 2 && ss[1].t < ss[0].t {
			t = 1
		}
		types[i], times[i] = t, ss[t].t
		next(ss[t])
	}
	return types, times
}

// String is the spec.
func (m *Model) String() string { return m.spec + " (" + strconv.Itoa(m.Classes) + " classes)" }
