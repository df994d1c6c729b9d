package experiment

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/backfill-hpc/backfill/internal/parquet"

	"github.com/backfill-hpc/backfill/policy"
)

// Kind is the type of a table column.
type Kind int

// Column kinds.
const (
	String Kind = iota
	Int
	Float
	Bool
)

// Column is a named, typed column.
type Column struct {
	Name string
	Kind Kind
}

// Table is a result table: one row per run. A cell holds a string, an
// int64, a float64, a bool, or nil (no value: a failed run's metrics, a
// parameter the run's policy does not have).
type Table struct {
	Cols []Column
	Rows [][]any
}

// Col returns the index of the column called name, or -1.
func (t *Table) Col(name string) int {
	return slices.IndexFunc(t.Cols, func(c Column) bool { return c.Name == name })
}

// ParamPrefix starts the name of the column of a policy parameter
// (p_depth for EASY's depth).
const ParamPrefix = "p_"

// summaryCols are the fixed columns of a run row; the policy parameters
// follow "policy_name".
var summaryCols = []Column{
	{"run", String}, {"index", Int}, {"status", String}, {"error", String},
	{"workload", String}, {"trace", String}, {"model", String},
	{"month", String}, {"subset_skip", Int}, {"subset_jobs", Int},
	{"estimate", String}, {"load", Float}, {"priorities", String}, {"deadlines", String}, {"seed", Int}, {"kill", Bool}, {"extend", Bool},
	{"procs", Int}, {"mem_cap", Int}, {"jobs", Int}, {"offered_load", Float},
	{"policy", String}, {"policy_name", String},
}

var metricCols = []Column{
	{"measured_jobs", Int}, {"mean_wait", Float}, {"median_wait", Float}, {"p90_wait", Float}, {"p99_wait", Float},
	{"max_wait", Int}, {"mean_response", Float}, {"mean_bsld", Float}, {"killed", Int},
	{"utilization", Float}, {"makespan", Int}, {"first_submit", Int}, {"last_end", Int}, {"excluded", Int},
	{"short_jobs", Int}, {"short_mean_wait", Float}, {"short_mean_response", Float}, {"short_mean_bsld", Float},
	{"long_jobs", Int}, {"long_mean_wait", Float}, {"long_mean_response", Float}, {"long_mean_bsld", Float},
	{"pred_jobs", Int}, {"pred_mae", Float}, {"pred_under_rate", Float}, {"pred_corrections", Int},
	{"passes", Int}, {"version", String},
}

// StoredRun is a run read from a results store.
type StoredRun struct {
	Index  int // plan index, -1 when the run is not in the plan
	Config *RunConfig
	Result *Result
}

// RunTable builds the table of runs: the sweep's dimensions, the policy
// parameters (one column each, typed int or float when every value is a
// number), and the metrics (docs/metrics.md).
func RunTable(runs []StoredRun) *Table {
	// parameter columns, in order of first appearance
	var keys []string
	vals := map[string][]string{}
	for _, r := range runs {
		_, params, err := policy.Parse(r.Config.Config.Policy)
		if err != nil {
			continue
		}
		for _, k := range sortedKeys(params) {
			if _, ok := vals[k]; !ok {
				keys = append(keys, k)
			}
			vals[k] = append(vals[k], params[k])
		}
	}
	t := &Table{Cols: slices.Clone(summaryCols)}
	paramKind := map[string]Kind{}
	for _, k := range keys {
		kind := Int
		for _, v := range vals[k] {
			if _, err := strconv.ParseInt(v, 10, 64); err == nil {
				continue
			}
			if _, err := strconv.ParseFloat(v, 64); err == nil {
				kind = Float
				continue
			}
			kind = String
			break
		}
		paramKind[k] = kind
		t.Cols = append(t.Cols, Column{ParamPrefix + k, kind})
	}
	t.Cols = append(t.Cols, metricCols...)
	for _, r := range runs {
		t.Rows = append(t.Rows, runRow(r, keys, paramKind))
	}
	return t
}

func nonZero[T comparable](v T) any {
	var zero T
	if v == zero {
		return nil
	}
	return v
}

func runRow(r StoredRun, keys []string, kinds map[string]Kind) []any {
	c := &r.Config.Config
	res := r.Result
	var index, trace, errs any
	if r.Index >= 0 {
		index = int64(r.Index)
	}
	if c.Trace != nil {
		trace = c.Trace.File
	}
	if res.Error != "" {
		errs = res.Error
	}
	name, params, _ := policy.Parse(c.Policy)
	row := []any{
		r.Config.ID, index, res.Status, errs,
		r.Config.Label, trace, nonZero(c.Model),
		nonZero(c.Month), int64(c.Skip), int64(c.Jobs),
		c.Estimate, nonZero(c.Load), c.Priorities, nonZero(c.Deadlines), int64(c.Seed), c.Kill, c.Extend,
	}
	if w := res.Workload; w != nil {
		row = append(row, int64(w.Procs), nonZero(w.MemCap), int64(w.Jobs), w.OfferedLoad)
	} else {
		row = append(row, nil, nil, nil, nil)
	}
	row = append(row, c.Policy, name)
	for _, k := range keys {
		v, ok := params[k]
		switch {
		case !ok:
			row = append(row, nil)
		case kinds[k] == Int:
			n, _ := strconv.ParseInt(v, 10, 64)
			row = append(row, n)
		case kinds[k] == Float:
			f, _ := strconv.ParseFloat(v, 64)
			row = append(row, f)
		default:
			row = append(row, v)
		}
	}
	s := res.Summary
	if s == nil {
		for range metricCols[:len(metricCols)-1] {
			row = append(row, nil)
		}
		return append(row, r.Config.Version)
	}
	row = append(row,
		int64(s.All.Jobs), s.All.MeanWait, s.All.MedianWait, s.All.P90Wait, s.All.P99Wait,
		s.All.MaxWait, s.All.MeanResponse, s.All.MeanBSLD, int64(s.All.Killed),
		s.Utilization, s.Makespan, s.FirstSubmit, s.LastEnd, int64(s.Excluded),
		int64(s.Short.Jobs), s.Short.MeanWait, s.Short.MeanResponse, s.Short.MeanBSLD,
		int64(s.Long.Jobs), s.Long.MeanWait, s.Long.MeanResponse, s.Long.MeanBSLD)
	if p := s.Prediction; p != nil {
		row = append(row, int64(p.Jobs), p.MAE, p.Under, int64(p.Corrections))
	} else {
		row = append(row, nil, nil, nil, nil)
	}
	var passes any
	if res.Sim != nil {
		passes = int64(res.Sim.Passes)
	}
	return append(row, passes, r.Config.Version)
}

// Cell formats a cell as text: integers in decimal, floats in the
// shortest decimal form that reads back exactly, nil as "".
func Cell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case int64:
		return strconv.FormatInt(x, 10)
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case bool:
		return strconv.FormatBool(x)
	}
	return fmt.Sprint(v)
}

// WriteCSV writes t as CSV with a header line.
func (t *Table) WriteCSV(w io.Writer) error {
	cw := csv.NewWriter(w)
	head := make([]string, len(t.Cols))
	for i, c := range t.Cols {
		head[i] = c.Name
	}
	if err := cw.Write(head); err != nil {
		return err
	}
	rec := make([]string, len(t.Cols))
	for _, row := range t.Rows {
		for i, v := range row {
			rec[i] = Cell(v)
		}
		if err := cw.Write(rec); err != nil {
			return err
		}
	}
	cw.Flush()
	return cw.Error()
}

// WriteJSON writes t as an indented JSON array of objects whose keys
// follow the column order.
func (t *Table) WriteJSON(w io.Writer) error {
	var b strings.Builder
	b.WriteString("[")
	for ri, row := range t.Rows {
		if ri > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  {")
		for i, v := range row {
			if i > 0 {
				b.WriteString(",")
			}
			k, _ := json.Marshal(t.Cols[i].Name)
			val, err := json.Marshal(v)
			if err != nil {
				return err
			}
			fmt.Fprintf(&b, "\n    %s: %s", k, val)
		}
		b.WriteString("\n  }")
	}
	if len(t.Rows) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("]\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// WriteParquet writes t as a Parquet file (zstd, internal/parquet): one
// column per table column, in order, optional where some cell is nil.
func (t *Table) WriteParquet(w io.Writer) error {
	cols := make([]parquet.Column, len(t.Cols))
	for i, c := range t.Cols {
		pc := &cols[i]
		pc.Name = c.Name
		switch c.Kind {
		case String:
			pc.Type = parquet.String
		case Int:
			pc.Type = parquet.Int64
		case Float:
			pc.Type = parquet.Double
		case Bool:
			pc.Type = parquet.Bool
		default:
			return fmt.Errorf("column %s: unknown kind %v", c.Name, c.Kind)
		}
		for _, row := range t.Rows {
			if row[i] == nil {
				pc.Optional = true
			}
		}
		for _, row := range t.Rows {
			cell := row[i]
			if pc.Optional {
				pc.Null = append(pc.Null, cell == nil)
			}
			var ok bool
			switch pc.Type {
			case parquet.String:
				var v string
				v, ok = cell.(string)
				pc.Strings = append(pc.Strings, v)
			case parquet.Int64:
				var v int64
				v, ok = cell.(int64)
				pc.Int64s = append(pc.Int64s, v)
			case parquet.Double:
				var v float64
				v, ok = cell.(float64)
				pc.Doubles = append(pc.Doubles, v)
			case parquet.Bool:
				var v bool
				v, ok = cell.(bool)
				pc.Bools = append(pc.Bools, v)
			}
			if !ok && cell != nil {
				return fmt.Errorf("column %s: cell %v (%T) is not a %v", c.Name, cell, cell, pc.Type)
			}
		}
	}
	return parquet.Write(w, cols)
}

// WriteText writes the columns cols of t (all when nil) as an aligned
// text table: numbers right-aligned, floats with up to 4 decimals.
func (t *Table) WriteText(w io.Writer, cols []string) error {
	idx := make([]int, 0, len(t.Cols))
	if cols == nil {
		for i := range t.Cols {
			idx = append(idx, i)
		}
	} else {
		for _, c := range cols {
			i := t.Col(c)
			if i < 0 {
				return fmt.Errorf("no column %q", c)
			}
			idx = append(idx, i)
		}
	}
	cells := make([][]string, len(t.Rows)+1)
	width := make([]int, len(idx))
	for j, i := range idx {
		cells[0] = append(cells[0], t.Cols[i].Name)
		width[j] = utf8.RuneCountInString(t.Cols[i].Name)
	}
	for r, row := range t.Rows {
		for j, i := range idx {
			s := Cell(row[i])
			if f, ok := row[i].(float64); ok {
				s = strconv.FormatFloat(f, 'f', 4, 64)
				s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
			}
			if row[i] == nil {
				s = "-"
			}
			s = strings.ReplaceAll(s, "\n", " ")
			if utf8.RuneCountInString(s) > 60 {
				s = string([]rune(s)[:57]) + "..."
			}
			cells[r+1] = append(cells[r+1], s)
			width[j] = max(width[j], utf8.RuneCountInString(s))
		}
	}
	var b strings.Builder
	for _, line := range cells {
		for j, s := range line {
			pad := strings.Repeat(" ", width[j]-utf8.RuneCountInString(s))
			if j > 0 {
				b.WriteString("  ")
			}
			if k := t.Cols[idx[j]].Kind; k == Int || k == Float {
				b.WriteString(pad + s)
			} else if j == len(line)-1 {
				b.WriteString(s)
			} else {
				b.WriteString(s + pad)
			}
		}
		b.WriteString("\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
