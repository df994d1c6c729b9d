package experiment

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// Filter is a condition on one column of a Table: COLUMN OP VALUE, with
// OP = or != (the cell's text, Cell), <, <=, >, >= (numbers), or ~ (the
// text contains VALUE). A cell without value matches only COLUMN= (empty
// VALUE is refused by ParseFilter, so: nothing) and COLUMN!=VALUE.
type Filter struct {
	Col, Op, Val string
}

// ParseFilter reads COLUMN OP VALUE (blanks around COLUMN and VALUE are
// cut; == is the same as =).
func ParseFilter(s string) (Filter, error) {
	j := strings.IndexAny(s, "<>!=~")
	if j > 0 {
		op := s[j : j+1]
		if two := s[j:min(j+2, len(s))]; two == "<=" || two == ">=" || two == "!=" || two == "==" {
			op = two
		}
		if op != "!" {
			f := Filter{strings.TrimSpace(s[:j]), op, strings.TrimSpace(s[j+len(op):])}
			if f.Op == "==" { // as in most languages: the same as =
				f.Op = "="
			}
			if f.Val == "" || strings.ContainsAny(f.Val[:1], "<>=") {
				return Filter{}, fmt.Errorf("expected COLUMN OP VALUE with OP one of = != < <= > >= ~, found the value %q", f.Val)
			}
			return f, nil
		}
	}
	return Filter{}, fmt.Errorf("expected COLUMN OP VALUE with OP one of = != < <= > >= ~")
}

// Match reports whether cell (a Table cell) satisfies f; a comparison
// with a VALUE that is not a number is an error.
func (f Filter) Match(cell any) (bool, error) {
	text := Cell(cell)
	switch f.Op {
	case "=":
		return text == f.Val, nil
	case "!=":
		return text != f.Val, nil
	case "~":
		return cell != nil && strings.Contains(text, f.Val), nil
	}
	want, err := strconv.ParseFloat(f.Val, 64)
	if err != nil {
		return false, fmt.Errorf("%s%s%s: %s needs a number", f.Col, f.Op, f.Val, f.Op)
	}
	var got float64
	switch x := cell.(type) {
	case int64:
		got = float64(x)
	case float64:
		got = x
	default:
		return false, nil
	}
	switch f.Op {
	case "<":
		return got < want, nil
	case "<=":
		return got <= want, nil
	case ">":
		return got > want, nil
	default:
		return got >= want, nil
	}
}

// Keep keeps the rows of t that match every filter (each on a column of
// t, else an error).
func (t *Table) Keep(filters []Filter) error {
	for _, fl := range filters {
		if t.Col(fl.Col) < 0 {
			return fmt.Errorf("no column %q (columns: %s)", fl.Col, strings.Join(t.ColNames(), ", "))
		}
	}
	kept := t.Rows[:0:0]
	for _, row := range t.Rows {
		ok := true
		for _, fl := range filters {
			m, err := fl.Match(row[t.Col(fl.Col)])
			if err != nil {
				return err
			}
			ok = ok && m
		}
		if ok {
			kept = append(kept, row)
		}
	}
	t.Rows = kept
	return nil
}

// ColNames are the names of t's columns, in order.
func (t *Table) ColNames() []string {
	names := make([]string, len(t.Cols))
	for i, c := range t.Cols {
		names[i] = c.Name
	}
	return names
}

// Values are the first n distinct texts (Cell) of column col, in row
// order.
func (t *Table) Values(col string, n int) []string {
	var vals []string
	i := t.Col(col)
	for _, row := range t.Rows {
		v := Cell(row[i])
		if !slices.Contains(vals, v) && len(vals) < n {
			vals = append(vals, v)
		}
	}
	return vals
}

// Project is a table with only the columns cols of t, in that order
// (each must be a column of t).
func (t *Table) Project(cols []string) *Table {
	out := &Table{}
	idx := make([]int, len(cols))
	for j, c := range cols {
		idx[j] = t.Col(c)
		out.Cols = append(out.Cols, t.Cols[idx[j]])
	}
	for _, r := range t.Rows {
		row := make([]any, len(idx))
		for j, i := range idx {
			row[j] = r[i]
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// DefaultColumns are the columns `backfill results` shows by default in
// its text table: the run, its status, the workload, every configuration
// column whose value varies among the rows, the policy, and the main
// metrics; and the error when some run failed.
func (t *Table) DefaultColumns() []string {
	cols := []string{"run", "status", "workload"}
	varying := func(name string) bool {
		i := t.Col(name)
		if i < 0 || len(t.Rows) == 0 {
			return false
		}
		first := Cell(t.Rows[0][i])
		for _, r := range t.Rows[1:] {
			if Cell(r[i]) != first {
				return true
			}
		}
		return false
	}
	for _, c := range []string{"trace", "model", "month", "subset_skip", "subset_jobs", "estimate", "load", "priorities", "seed", "kill", "procs"} {
		if varying(c) {
			cols = append(cols, c)
		}
	}
	cols = append(cols, "policy", "jobs", "mean_wait", "p90_wait", "mean_bsld", "utilization", "killed")
	failed := slices.ContainsFunc(t.Rows, func(r []any) bool { return r[t.Col("status")] != StatusOK })
	if failed {
		cols = append(cols, "error")
	}
	return cols
}
