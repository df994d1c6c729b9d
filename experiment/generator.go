package experiment

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"backfill/workload"
)

// Generator builds a synthetic workload from its parameters and a seed.
// The same parameters and seed must give the same trace, job for job.
type Generator func(params map[string]string, seed uint64) (*workload.Trace, error)

var (
	genMu      sync.RWMutex
	generators = map[string]Generator{}
)

// RegisterGenerator makes a workload model available to sweeps as
// "model: NAME" (with "params" and the sweep's seeds). Synthetic workload
// models register here from their package's init function, so that sweeps
// can use them with no change to this package. Registering a name twice
// panics (a programming error).
func RegisterGenerator(name string, g Generator) {
	genMu.Lock()
	defer genMu.Unlock()
	if _, dup := generators[name]; dup {
		panic("experiment: duplicate generator " + name)
	}
	generators[name] = g
}

func lookupGenerator(name string) (Generator, bool) {
	genMu.RLock()
	defer genMu.RUnlock()
	g, ok := generators[name]
	return g, ok
}

func generatorNames() string {
	genMu.RLock()
	defer genMu.RUnlock()
	names := make([]string, 0, len(generators))
	for n := range generators {
		names = append(names, n)
	}
	if len(names) == 0 {
		return "none"
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

func generate(name string, params map[string]string, seed uint64) (*workload.Trace, error) {
	g, ok := lookupGenerator(name)
	if !ok {
		return nil, fmt.Errorf("no workload generator %q in this build (known: %s)", name, generatorNames())
	}
	tr, err := g(params, seed)
	if err != nil {
		return nil, fmt.Errorf("model %s: %w", name, err)
	}
	return tr, nil
}
