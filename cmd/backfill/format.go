package main

import (
	"bufio"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sort"
	"strconv"
)

// checkFormat accepts table (the default text), json or csv.
func checkFormat(format string) error {
	switch format {
	case "table", "json", "csv":
		return nil
	}
	return fmt.Errorf("--format: expected table, json or csv, found %q", format)
}

// writeJSON writes v as indented JSON.
func writeJSON(w io.Writer, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	_, err = w.Write(b)
	return err
}

// writeCSV writes a header and rows.
func writeCSV(w io.Writer, header []string, rows [][]string) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(header); err != nil {
		return err
	}
	if err := cw.WriteAll(rows); err != nil {
		return err
	}
	cw.Flush()
	return cw.Error()
}

// writeFlatCSV writes v (anything json.Marshal accepts) as key,value rows:
// nested objects and arrays are flattened into dotted keys
// (summary.jobs, distributions.0.sizes.2.count), in sorted key order.
func writeFlatCSV(w io.Writer, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	var tree any
	if err := json.Unmarshal(b, &tree); err != nil {
		return err
	}
	var rows [][]string
	var walk func(prefix string, x any)
	walk = func(prefix string, x any) {
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
				walk(join(k), t[k])
			}
		case []any:
			for i, e := range t {
				walk(join(strconv.Itoa(i)), e)
			}
		case nil:
			rows = append(rows, []string{prefix, ""})
		case float64:
			rows = append(rows, []string{prefix, strconv.FormatFloat(t, 'g', -1, 64)})
		default:
			rows = append(rows, []string{prefix, fmt.Sprint(t)})
		}
	}
	walk("", tree)
	return writeCSV(w, []string{"key", "value"}, rows)
}

// writeFile creates path and writes it through a buffer with fill; an
// error names the file.
func writeFile(path string, fill func(io.Writer) error) error {
	fh, err := os.Create(path)
	if err != nil {
		return err
	}
	bw := newBufWriter(fh)
	if err := fill(bw); err != nil {
		fh.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		fh.Close()
		return fmt.Errorf("%s: %w", path, err)
	}
	return fh.Close()
}

// newBufWriter is a 64 KiB buffered writer on w.
func newBufWriter(w io.Writer) *bufio.Writer { return bufio.NewWriterSize(w, 1<<16) }
