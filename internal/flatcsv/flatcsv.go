// Package flatcsv writes nested data as key,value CSV rows.
//
// A value that encoding/json accepts is flattened: nested objects and
// arrays become dotted keys (summary.jobs, distributions.0.sizes.2.count),
// objects in sorted key order, numbers in their shortest form, null as an
// empty value. It is the csv format of `backfill info`.
package flatcsv

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
)

// Write writes v as a key,value header and one row per leaf.
func Write(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return err
	}
	cw := csv.NewWriter(w)
	if err := cw.Write([]string{"key", "value"}); err != nil {
		return err
	}
	if err := cw.WriteAll(rows("", tree, nil)); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// rows appends the leaves of x under prefix to out.
func rows(prefix string, x any, out [][]string) [][]string {
	join := func(k string) string {
		if prefix == "" {
			return k
		}
		return prefix + "." + k
	}
	switch t := x.(type) {
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			out = rows(join(k), t[k], out)
		}
	case []any:
		for i, e := range t {
			out = rows(join(strconv.Itoa(i)), e, out)
		}
	case nil:
		out = append(out, []string{prefix, ""})
	case float64:
		out = append(out, []string{prefix, strconv.FormatFloat(t, 'g', -1, 64)})
	default:
		out = append(out, []string{prefix, fmt.Sprint(t)})
	}
	return out
}
