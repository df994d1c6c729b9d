// Package estimate replaces the runtime estimates of a workload.
//
// It replaces the runtime estimates of a workload before it
// is simulated: the models that Feitelson's slides use to study how much
// the accuracy of estimates matters.
//
// Each model is one small seeded component. On entry every job's Estimate
// is the user's estimate as package workload read it (the requested time,
// or its fallback); a model rewrites the estimates in place. Models:
//
//	user        the user's estimate, unchanged
//	exact       estimate = runtime (at least 1 s)
//	factor:F    uniform integer in [r, ⌊F·r⌋] for runtime r, F ≥ 1 (at
//	            least 1 s); factor:1 is exact. The slides' model of
//	            controlled inaccuracy (Mu'alem & Feitelson).
//	double      the user's estimate × 2 (the slides' "multiply user
//	            estimates by 2")
//	modal[:atmax=P][:max=S]
//	            the model of real user estimates of Tsafrir, Etsion &
//	            Feitelson (2005): a few popular round values and a large
//	            share at the maximum; see Modal.
//
// The same spec and seed give the same estimates, byte for byte: every
// model draws from its own PCG stream seeded with (seed, a constant of the
// model) and visits jobs in a fixed order.
//
// Estimates are never below 1 s and never above MaxEstimate (unless the
// user's estimate already was). In kill mode a job whose runtime exceeds
// its new estimate is killed at it, as with user estimates.
package estimate

import (
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/spec"
)

// MaxEstimate caps the estimates the models produce (about 34,800 years),
// so that no time computation can overflow.
const MaxEstimate int64 = 1 << 40

// Model rewrites the estimates of a workload.
type Model interface {
	// Spec is the model's canonical spec, as Parse accepts it.
	Spec() string
	// Apply sets jobs[i].Estimate for every job, drawing from rng. On
	// entry the estimates are the users'. It returns human-readable notes
	// on what it did (parameters derived from the workload, adjustments),
	// for the header of outputs.
	Apply(jobs []job.Job, rng *rand.Rand) []string
}

// Parse builds the model named by text (see the package documentation),
// in the grammar of package spec: name:key=value:…; factor:F is short for
// factor:f=F.
func Parse(text string) (Model, error) {
	parts := strings.Split(strings.TrimSpace(text), ":")
	name, items := strings.TrimSpace(parts[0]), parts[1:]
	if name == "factor" && len(items) == 1 && !strings.Contains(items[0], "=") {
		items = []string{"f=" + items[0]}
	}
	args, err := spec.Args("estimate model", text, items)
	if err != nil {
		return nil, err
	}
	switch name {
	case "user", "exact", "double":
		if len(args) > 0 {
			return nil, fmt.Errorf("estimate model %q takes no parameters", name)
		}
		return map[string]Model{"user": User{}, "exact": Exact{}, "double": Double{}}[name], nil
	case "factor":
		return parseFactor(text, args)
	case "modal":
		return parseModal(args)
	}
	return nil, fmt.Errorf("unknown estimate model %q (want user, exact, factor:F, double or modal)", text)
}

// parseFactor reads the parameter f of factor:F (1 ≤ F ≤ 1000).
func parseFactor(text string, args map[string]string) (Model, error) {
	v, ok := args["f"]
	if k, bad := spec.Unknown(args, "f"); bad || !ok {
		if bad {
			return nil, fmt.Errorf("estimate model factor has no parameter %q (f, or factor:F)", k)
		}
		return nil, fmt.Errorf("estimate model factor: want factor:F with F ≥ 1, found %q", text)
	}
	f, err := spec.Float("f", v, 1, 1000)
	if err != nil {
		return nil, fmt.Errorf("estimate model factor: %w", err)
	}
	return Factor{F: f}, nil
}

// parseModal reads the parameters max (whole seconds, 3600 to
// MaxEstimate) and atmax (a percentage in (0, HeadShare], or trace).
func parseModal(args map[string]string) (Model, error) {
	if k, bad := spec.Unknown(args, "max", "atmax"); bad {
		return nil, fmt.Errorf("estimate model modal has no parameter %q (max, atmax)", k)
	}
	m := Modal{}
	if v, ok := args["max"]; ok {
		n, err := spec.Int64("max", v, 3600, MaxEstimate)
		if err != nil {
			return nil, fmt.Errorf("estimate model modal: %w", err)
		}
		m.Max = n
	}
	switch v, ok := args["atmax"]; {
	case v == "trace":
		m.AtMaxTrace = true
	case ok:
		p, err := strconv.ParseFloat(v, 64)
		if err != nil || !(p > 0 && p <= HeadShare) {
			return nil, fmt.Errorf("estimate model modal: %w", spec.Expected("atmax", v, fmt.Sprintf("a percentage in (0, %g] or \"trace\"", HeadShare)))
		}
		m.AtMax = p
	}
	return m, nil
}

// Rand returns the random source of model spec for seed: a PCG stream
// seeded with seed and a hash of the model's name, so that two models never
// share a stream.
func Rand(spec string, seed uint64) *rand.Rand {
	name, _, _ := strings.Cut(spec, ":")
	h := fnv.New64a()
	h.Write([]byte(name))
	return rand.New(rand.NewPCG(seed, h.Sum64()))
}

// Apply parses spec and applies it to jobs with seed. It returns the notes
// of the model, preceded by a line naming the model and the seed.
func Apply(jobs []job.Job, spec string, seed uint64) ([]string, error) {
	m, err := Parse(spec)
	if err != nil {
		return nil, err
	}
	notes := []string{fmt.Sprintf("estimate model %s, seed %d (applied after ingestion; the user's estimates are its input)", m.Spec(), seed)}
	return append(notes, m.Apply(jobs, Rand(m.Spec(), seed))...), nil
}

// User keeps the users' estimates.
type User struct{}

// Spec implements Model.
func (User) Spec() string { return "user" }

// Apply implements Model: nothing changes.
func (User) Apply([]job.Job, *rand.Rand) []string { return nil }

// Exact sets every estimate to the job's runtime, at least 1 s.
type Exact struct{}

// Spec implements Model.
func (Exact) Spec() string { return "exact" }

// Apply implements Model.
func (Exact) Apply(jobs []job.Job, _ *rand.Rand) []string {
	for i := range jobs {
		jobs[i].Estimate = clampEst(jobs[i].Runtime)
	}
	return []string{"estimate = runtime (at least 1 s)"}
}

// Factor draws each estimate uniformly among the integers of [r, ⌊F·r⌋]
// for runtime r (at least 1 s): the f-model of the slides ("for a given
// inaccuracy factor f ≥ 1 and a job with real runtime r, generate an
// estimate in the range [r, f·r]").
type Factor struct {
	// F is the inaccuracy factor, in [1, 1000].
	F float64
}

// Spec implements Model.
func (f Factor) Spec() string { return "factor:" + strconv.FormatFloat(f.F, 'g', -1, 64) }

// Apply implements Model.
func (f Factor) Apply(jobs []job.Job, rng *rand.Rand) []string {
	for i := range jobs {
		r := max(jobs[i].Runtime, 0)
		hi := r
		if x := math.Floor(f.F * float64(r)); x > float64(r) {
			hi = int64(min(x, float64(MaxEstimate)))
		}
		e := r
		if hi > r {
			e = r + rng.Int64N(hi-r+1)
		}
		jobs[i].Estimate = clampEst(e)
	}
	return []string{fmt.Sprintf("estimate uniform integer in [r, floor(%s r)] for runtime r (at least 1 s)", strconv.FormatFloat(f.F, 'g', -1, 64))}
}

// Double multiplies the users' estimates by 2.
type Double struct{}

// Spec implements Model.
func (Double) Spec() string { return "double" }

// Apply implements Model.
func (Double) Apply(jobs []job.Job, _ *rand.Rand) []string {
	for i := range jobs {
		e := jobs[i].Estimate
		if e <= MaxEstimate/2 {
			e *= 2
		} else if e < MaxEstimate {
			e = MaxEstimate
		}
		jobs[i].Estimate = max(e, 1)
	}
	return []string{"estimate = 2 × the user's estimate (jobs that overran their estimate now run up to twice as long before being killed)"}
}

func clampEst(e int64) int64 { return max(1, min(e, MaxEstimate)) }
