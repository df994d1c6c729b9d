// Package promtext keeps counters, gauges and histograms and writes them
// in the Prometheus text exposition format (version 0.0.4), the format
// every Prometheus-compatible scraper reads.
//
// It is the small subset of a Prometheus client the service needs: metric
// families with at most one label, fixed histogram buckets, gauges and
// counters read from functions at scrape time, and the Go runtime's
// metrics (GoCollector). Families are written sorted by name and the
// series of a family by label value, as the reference client does, so a
// scrape's layout does not depend on registration order.
package promtext

import (
	"fmt"
	"io"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
)

// Collector is a metric family (or several, for GoCollector) that a
// Registry writes.
type Collector interface {
	// names are the family names the collector writes, checked for
	// duplicates at registration.
	names() []string
	// families returns the exposition of each family, in names order.
	families() [][]byte
}

// Registry is a set of collectors written together.
type Registry struct {
	mu    sync.Mutex
	cs    []Collector
	names map[string]bool
}

// NewRegistry returns an empty Registry.
func NewRegistry() *Registry { return &Registry{names: map[string]bool{}} }

// MustRegister adds the collectors; it panics on a name registered
// twice or not a valid metric name (both programming errors).
func (r *Registry) MustRegister(cs ...Collector) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		for _, n := range c.names() {
			if !validName(n) {
				panic("promtext: invalid metric name " + strconv.Quote(n))
			}
			if r.names[n] {
				panic("promtext: metric " + n + " registered twice")
			}
			r.names[n] = true
		}
		r.cs = append(r.cs, c)
	}
}

// validName reports whether n matches [a-zA-Z_:][a-zA-Z0-9_:]*.
func validName(n string) bool {
	if n == "" {
		return false
	}
	for i, c := range n {
		if !(c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return false
		}
	}
	return true
}

// WriteTo writes every family, sorted by name.
func (r *Registry) WriteTo(w io.Writer) (int64, error) {
	r.mu.Lock()
	cs := slices.Clone(r.cs)
	r.mu.Unlock()
	type fam struct {
		name string
		text []byte
	}
	var fams []fam
	for _, c := range cs {
		for i, text := range c.families() {
			fams = append(fams, fam{c.names()[i], text})
		}
	}
	slices.SortFunc(fams, func(a, b fam) int { return strings.Compare(a.name, b.name) })
	var n int64
	for _, f := range fams {
		k, err := w.Write(f.text)
		n += int64(k)
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// ContentType is the media type of the text exposition format.
const ContentType = "text/plain; version=0.0.4; charset=utf-8"

// Handler serves the registry's exposition.
func (r *Registry) Handler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		var b strings.Builder
		r.WriteTo(&b)
		w.Header().Set("Content-Type", ContentType)
		io.WriteString(w, b.String())
	})
}

// header appends the HELP and TYPE lines of a family.
func header(b []byte, name, help, typ string) []byte {
	b = append(b, "# HELP "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, escapeHelp(help)...)
	b = append(b, "\n# TYPE "...)
	b = append(b, name...)
	b = append(b, ' ')
	b = append(b, typ...)
	return append(b, '\n')
}

var (
	helpEscaper  = strings.NewReplacer(`\`, `\\`, "\n", `\n`)
	labelEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)
)

func escapeHelp(s string) string { return helpEscaper.Replace(s) }

// sample appends one sample line: name{label="value",le="..."} v. An
// empty label name means no label; le is added when not empty.
func sample(b []byte, name, label, value, le string, v float64) []byte {
	b = append(b, name...)
	if label != "" || le != "" {
		b = append(b, '{')
		if label != "" {
			b = append(b, label...)
			b = append(b, `="`...)
			b = append(b, labelEscaper.Replace(value)...)
			b = append(b, '"')
			if le != "" {
				b = append(b, ',')
			}
		}
		if le != "" {
			b = append(b, `le="`...)
			b = append(b, le...)
			b = append(b, '"')
		}
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = append(b, FormatFloat(v)...)
	return append(b, '\n')
}

// FormatFloat formats v as the exposition format writes numbers: the
// shortest representation that reads back exactly, and +Inf, -Inf, NaN.
func FormatFloat(v float64) string {
	switch {
	case math.IsInf(v, 1):
		return "+Inf"
	case math.IsInf(v, -1):
		return "-Inf"
	case math.IsNaN(v):
		return "NaN"
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// atomicFloat is a float64 updated atomically.
type atomicFloat struct{ bits atomic.Uint64 }

func (f *atomicFloat) add(d float64) {
	for {
		old := f.bits.Load()
		if f.bits.CompareAndSwap(old, math.Float64bits(math.Float64frombits(old)+d)) {
			return
		}
	}
}

func (f *atomicFloat) load() float64 { return math.Float64frombits(f.bits.Load()) }

// Counter is a monotone count.
type Counter struct {
	name, help string
	v          atomicFloat
}

// NewCounter returns a counter family without labels.
func NewCounter(name, help string) *Counter { return &Counter{name: name, help: help} }

// Inc adds 1.
func (c *Counter) Inc() { c.v.add(1) }

// Add adds d, which must not be negative (a counter only grows); a
// negative d panics.
func (c *Counter) Add(d float64) {
	if d < 0 {
		panic("promtext: counter " + c.name + " decreased")
	}
	c.v.add(d)
}

// Value is the current count.
func (c *Counter) Value() float64 { return c.v.load() }

func (c *Counter) names() []string { return []string{c.name} }

func (c *Counter) families() [][]byte { return [][]byte{c.write(nil)} }

func (c *Counter) write(b []byte) []byte {
	b = header(b, c.name, c.help, "counter")
	return sample(b, c.name, "", "", "", c.v.load())
}

// CounterVec is a counter family with one label.
type CounterVec struct {
	name, help, label string
	mu                sync.Mutex
	series            map[string]*Counter
}

// NewCounterVec returns a counter family with the one label named label.
func NewCounterVec(name, help, label string) *CounterVec {
	return &CounterVec{name: name, help: help, label: label, series: map[string]*Counter{}}
}

// WithLabelValues returns the counter of the label value v, created at
// zero on first use.
func (c *CounterVec) WithLabelValues(v string) *Counter {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.series[v]
	if !ok {
		s = &Counter{name: c.name}
		c.series[v] = s
	}
	return s
}

func (c *CounterVec) names() []string { return []string{c.name} }

func (c *CounterVec) families() [][]byte { return [][]byte{c.write(nil)} }

func (c *CounterVec) write(b []byte) []byte {
	c.mu.Lock()
	keys := sortedKeys(c.series)
	vals := make([]float64, len(keys))
	for i, k := range keys {
		vals[i] = c.series[k].v.load()
	}
	c.mu.Unlock()
	b = header(b, c.name, c.help, "counter")
	for i, k := range keys {
		b = sample(b, c.name, c.label, k, "", vals[i])
	}
	return b
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// funcMetric is a gauge or counter read from a function at scrape time.
type funcMetric struct {
	name, help, typ string
	f               func() float64
}

// NewGaugeFunc returns a gauge whose value is f() at each scrape.
func NewGaugeFunc(name, help string, f func() float64) Collector {
	return &funcMetric{name, help, "gauge", f}
}

// NewCounterFunc returns a counter whose value is f() at each scrape; f
// must never decrease.
func NewCounterFunc(name, help string, f func() float64) Collector {
	return &funcMetric{name, help, "counter", f}
}

func (g *funcMetric) names() []string { return []string{g.name} }

func (g *funcMetric) families() [][]byte { return [][]byte{g.write(nil)} }

func (g *funcMetric) write(b []byte) []byte {
	b = header(b, g.name, g.help, g.typ)
	return sample(b, g.name, "", "", "", g.f())
}

// ExponentialBuckets returns n upper bounds start, start·factor, …,
// start·factor^(n−1). It panics unless n ≥ 1, start > 0 and factor > 1.
func ExponentialBuckets(start, factor float64, n int) []float64 {
	if n < 1 || start <= 0 || factor <= 1 {
		panic(fmt.Sprintf("promtext: bad exponential buckets start=%g factor=%g n=%d", start, factor, n))
	}
	b := make([]float64, n)
	for i := range b {
		b[i] = start
		start *= factor
	}
	return b
}

// Histogram counts observations in buckets of fixed upper bounds (an
// observation equal to a bound counts in that bucket), plus their sum and
// count.
type Histogram struct {
	name, help string
	upper      []float64 // strictly increasing, without +Inf
	mu         sync.Mutex
	counts     []uint64 // per bucket, not cumulative; last is +Inf
	sum        float64
	count      uint64
}

// NewHistogram returns a histogram family without labels; buckets are the
// upper bounds, strictly increasing (a final +Inf is implied). Bad buckets
// panic.
func NewHistogram(name, help string, buckets []float64) *Histogram {
	checkBuckets(name, buckets)
	return &Histogram{name: name, help: help, upper: buckets, counts: make([]uint64, len(buckets)+1)}
}

func checkBuckets(name string, buckets []float64) {
	for i, u := range buckets {
		if math.IsNaN(u) || math.IsInf(u, 0) || i > 0 && u <= buckets[i-1] {
			panic("promtext: histogram " + name + ": buckets must be finite and strictly increasing")
		}
	}
}

// Observe records v.
func (h *Histogram) Observe(v float64) {
	i, _ := slices.BinarySearch(h.upper, v) // first bound ≥ v
	h.mu.Lock()
	h.counts[i]++
	h.sum += v
	h.count++
	h.mu.Unlock()
}

func (h *Histogram) names() []string { return []string{h.name} }

func (h *Histogram) families() [][]byte { return [][]byte{h.write(nil)} }

func (h *Histogram) write(b []byte) []byte {
	b = header(b, h.name, h.help, "histogram")
	return h.series(b, "", "")
}

// series appends the bucket, sum and count lines of h under the label.
func (h *Histogram) series(b []byte, label, value string) []byte {
	h.mu.Lock()
	counts := slices.Clone(h.counts)
	sum, count := h.sum, h.count
	h.mu.Unlock()
	var cum uint64
	for i, c := range counts {
		cum += c
		le := "+Inf"
		if i < len(h.upper) {
			le = FormatFloat(h.upper[i])
		}
		b = sample(b, h.name+"_bucket", label, value, le, float64(cum))
	}
	b = sample(b, h.name+"_sum", label, value, "", sum)
	return sample(b, h.name+"_count", label, value, "", float64(count))
}

// HistogramVec is a histogram family with one label.
type HistogramVec struct {
	name, help, label string
	upper             []float64
	mu                sync.Mutex
	series            map[string]*Histogram
}

// NewHistogramVec returns a histogram family with the one label named
// label.
func NewHistogramVec(name, help, label string, buckets []float64) *HistogramVec {
	checkBuckets(name, buckets)
	return &HistogramVec{name: name, help: help, label: label, upper: buckets, series: map[string]*Histogram{}}
}

// WithLabelValues returns the histogram of the label value v, created
// empty on first use.
func (h *HistogramVec) WithLabelValues(v string) *Histogram {
	h.mu.Lock()
	defer h.mu.Unlock()
	s, ok := h.series[v]
	if !ok {
		s = &Histogram{name: h.name, upper: h.upper, counts: make([]uint64, len(h.upper)+1)}
		h.series[v] = s
	}
	return s
}

func (h *HistogramVec) names() []string { return []string{h.name} }

func (h *HistogramVec) families() [][]byte { return [][]byte{h.write(nil)} }

func (h *HistogramVec) write(b []byte) []byte {
	h.mu.Lock()
	keys := sortedKeys(h.series)
	hs := make([]*Histogram, len(keys))
	for i, k := range keys {
		hs[i] = h.series[k]
	}
	h.mu.Unlock()
	b = header(b, h.name, h.help, "histogram")
	for i, k := range keys {
		b = hs[i].series(b, h.label, k)
	}
	return b
}
