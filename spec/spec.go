// Package spec parses the name:key=value specs of every registry.
//
// One grammar for policies (policy.New), workload models (model.New),
// estimate models (estimate.Parse) and deadline workloads
// (deadline.ParseSpec, parameters without a name): a name, then
// parameters after colons, each key=value with a non-empty key, no key
// twice, surrounding spaces ignored. Values are typed by the helpers
// (Int, Int64, Int64s, Uint64, Float, Bool, Switch, Enum), which give errors of one shape
// (Expected): "parameter k: expected …, found "v"". Params, with the
// same getters taking a default, is what every policy is built from
// (policy.Params).
package spec

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Parse splits text into its name and parameters; kind names what is
// parsed in errors ("policy", "model").
func Parse(kind, text string) (name string, args map[string]string, err error) {
	parts := strings.Split(strings.TrimSpace(text), ":")
	name = strings.TrimSpace(parts[0])
	args, err = Args(kind, text, parts[1:])
	return name, args, err
}

// Args parses key=value items (already split) into a map; kind and text
// are for errors.
func Args(kind, text string, items []string) (map[string]string, error) {
	args := make(map[string]string, len(items))
	for _, kv := range items {
		k, v, ok := strings.Cut(kv, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" {
			return nil, fmt.Errorf("%s %q: expected key=value after ':', found %q", kind, text, kv)
		}
		if _, dup := args[k]; dup {
			return nil, fmt.Errorf("%s %q: parameter %s given twice", kind, text, k)
		}
		args[k] = v
	}
	return args, nil
}

// Int parses v, the value of parameter key, as an integer in [lo, hi];
// "all" and "inf" mean hi.
func Int(key, v string, lo, hi int) (int, error) {
	if v == "all" || v == "inf" {
		return hi, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < lo || n > hi {
		if hi == math.MaxInt {
			return 0, fmt.Errorf("parameter %s: expected an integer ≥ %d or \"all\", found %q", key, lo, v)
		}
		return 0, fmt.Errorf("parameter %s: expected an integer in [%d, %d] or \"all\", found %q", key, lo, hi, v)
	}
	return n, nil
}

// Int64 parses v, the value of parameter key, as a whole number in
// [lo, hi] (no "all": for counts and seconds where "all" means nothing).
func Int64(key, v string, lo, hi int64) (int64, error) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < lo || n > hi {
		if hi == math.MaxInt64 {
			return 0, Expected(key, v, fmt.Sprintf("an integer ≥ %d", lo))
		}
		return 0, Expected(key, v, fmt.Sprintf("an integer in [%d, %d]", lo, hi))
	}
	return n, nil
}

// Uint64 parses v, the value of parameter key, as a non-negative integer
// of 64 bits (a seed).
func Uint64(key, v string) (uint64, error) {
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, Expected(key, v, "a non-negative integer")
	}
	return n, nil
}

// Int64s parses v, the value of parameter key, as whole numbers of at
// least lo separated by '/' (e.g. queue bounds 100/1000/10000).
func Int64s(key, v string, lo int64) ([]int64, error) {
	var out []int64
	for _, f := range strings.Split(v, "/") {
		n, err := strconv.ParseInt(strings.TrimSpace(f), 10, 64)
		if err != nil || n < lo {
			return nil, Expected(key, v, fmt.Sprintf("integers ≥ %d separated by '/'", lo))
		}
		out = append(out, n)
	}
	return out, nil
}

// Expected is the error of one shape for a bad value v of parameter key:
// `parameter key: expected want, found "v"`.
func Expected(key, v, want string) error {
	return fmt.Errorf("parameter %s: expected %s, found %q", key, want, v)
}

// Unknown returns the first (in sorted order) key of args that is not
// one of keys, and whether there is one.
func Unknown(args map[string]string, keys ...string) (string, bool) {
	var bad []string
	for k := range args {
		if !slices.Contains(keys, k) {
			bad = append(bad, k)
		}
	}
	if len(bad) == 0 {
		return "", false
	}
	slices.Sort(bad)
	return bad[0], true
}

// Float parses v, the value of parameter key, as a number in [lo, hi].
func Float(key, v string, lo, hi float64) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || x < lo || x > hi {
		return 0, Expected(key, v, fmt.Sprintf("a number in [%g, %g]", lo, hi))
	}
	return x, nil
}

// Bool parses v, the value of parameter key: true or false.
func Bool(key, v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, Expected(key, v, "true or false")
}

// Switch parses v, the value of parameter key, as on or off (also
// true/false, yes/no, 1/0).
func Switch(key, v string) (bool, error) {
	switch v {
	case "on", "true", "1", "yes":
		return true, nil
	case "off", "false", "0", "no":
		return false, nil
	}
	return false, Expected(key, v, "on or off")
}

// Enum checks that v, the value of parameter key, is one of values.
func Enum(key, v string, values ...string) (string, error) {
	if slices.Contains(values, v) {
		return v, nil
	}
	return "", Expected(key, v, orList(values))
}

func orList(vs []string) string {
	switch len(vs) {
	case 0:
		return "nothing"
	case 1:
		return vs[0]
	}
	return strings.Join(vs[:len(vs)-1], ", ") + " or " + vs[len(vs)-1]
}

// Params are the parameters of a spec (Parse's args), read with typed
// getters that take the default for an absent key: the one shape every
// policy is built from (policy.Params).
type Params map[string]string

// Int returns parameter key as an int, def when absent. The special value
// "all" (or "inf") maps to allValue.
func (p Params) Int(key string, def, allValue int) (int, error) {
	v, ok := p[key]
	if !ok {
		return def, nil
	}
	if v == "all" || v == "inf" {
		return allValue, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return 0, Expected(key, v, `an integer or "all"`)
	}
	return n, nil
}

// Float returns parameter key as a number in [lo, hi], def when absent.
func (p Params) Float(key string, def, lo, hi float64) (float64, error) {
	v, ok := p[key]
	if !ok {
		return def, nil
	}
	return Float(key, v, lo, hi)
}

// Bool returns parameter key (true or false), def when absent.
func (p Params) Bool(key string, def bool) (bool, error) {
	v, ok := p[key]
	if !ok {
		return def, nil
	}
	return Bool(key, v)
}

// Switch returns parameter key (on or off, see Switch), def when absent.
func (p Params) Switch(key string, def bool) (bool, error) {
	v, ok := p[key]
	if !ok {
		return def, nil
	}
	return Switch(key, v)
}

// Enum returns parameter key, one of values, def when absent.
func (p Params) Enum(key, def string, values ...string) (string, error) {
	v, ok := p[key]
	if !ok {
		return def, nil
	}
	return Enum(key, v, values...)
}
