// Package spec parses the "name:key=value:key=value" specs of policies and workload models.
//
// One grammar for every registry (policy.New, model.New): a name, then
// parameters after colons, each key=value with a non-empty key, no key
// twice, surrounding spaces ignored. Values are typed by the helpers
// (Int, Float, Bool, Enum), which give errors of one shape: "parameter k:
// expected …, found "v"".
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

// Float parses v, the value of parameter key, as a number in [lo, hi].
func Float(key, v string, lo, hi float64) (float64, error) {
	x, err := strconv.ParseFloat(v, 64)
	if err != nil || math.IsNaN(x) || x < lo || x > hi {
		return 0, fmt.Errorf("parameter %s: expected a number in [%g, %g], found %q", key, lo, hi, v)
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
	return false, fmt.Errorf("parameter %s: expected true or false, found %q", key, v)
}

// Enum checks that v, the value of parameter key, is one of values.
func Enum(key, v string, values ...string) (string, error) {
	if slices.Contains(values, v) {
		return v, nil
	}
	return "", fmt.Errorf("parameter %s: expected %s, found %q", key, orList(values), v)
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
