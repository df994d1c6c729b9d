package experiment

import (
	"fmt"
	"io"
	"strings"
)

// Select is the table of runs (read from the results directory dir) for
// `backfill results`: the rows that match every filter of where (COLUMN OP
// VALUE, ParseFilter), with the columns cols (checked; projected for
// formats other than the text table). For the text table (text), nil cols
// become DefaultColumns; the columns returned are those to print. Errors
// name the flag (--where, --columns) the filter or column came from; when
// no row matches, the error says which values the filtered columns hold.
func Select(runs []StoredRun, dir string, where, cols []string, text bool) (*Table, []string, error) {
	t := RunTable(runs)
	if err := t.where(where, dir); err != nil {
		return nil, nil, err
	}
	if cols != nil {
		for _, c := range cols {
			if t.Col(c) < 0 {
				return nil, nil, fmt.Errorf("--columns: no column %q (columns: %s)", c, strings.Join(t.ColNames(), ", "))
			}
		}
	} else if text {
		cols = t.DefaultColumns()
	}
	if cols != nil && !text {
		t = t.Project(cols)
	}
	return t, cols, nil
}

// where keeps the rows of t that match every filter of where; when none
// matches, the error says which values the filtered columns hold.
func (t *Table) where(where []string, dir string) error {
	var filters []Filter
	for _, w := range where {
		fl, err := ParseFilter(w)
		if err != nil {
			return fmt.Errorf("--where %q: %w", w, err)
		}
		if t.Col(fl.Col) < 0 {
			return fmt.Errorf("--where: no column %q (columns: %s)", fl.Col, strings.Join(t.ColNames(), ", "))
		}
		filters = append(filters, fl)
	}
	all := &Table{Cols: t.Cols, Rows: t.Rows}
	if err := t.Keep(filters); err != nil {
		return fmt.Errorf("--where %w", err)
	}
	if len(t.Rows) == 0 && len(filters) > 0 && len(all.Rows) > 0 {
		// nothing matched: say which values the filtered columns hold, and
		// fail (as grep does), rather than print "no runs"
		var hints []string
		for _, fl := range filters {
			hints = append(hints, fmt.Sprintf("%s holds %s", fl.Col, strings.Join(all.Values(fl.Col, 12), ", ")))
		}
		return fmt.Errorf("--where %s: no run of the %d in %s matches (%s)", strings.Join(where, " --where "), len(all.Rows), dir, strings.Join(hints, "; "))
	}
	return nil
}

// Write writes t on w in format: csv, json, parquet, or else the text
// table of the columns cols ("no runs" when t has no row).
func (t *Table) Write(w io.Writer, format string, cols []string) error {
	switch format {
	case "csv":
		return t.WriteCSV(w)
	case "json":
		return t.WriteJSON(w)
	case "parquet":
		return t.WriteParquet(w)
	}
	if len(t.Rows) == 0 {
		fmt.Fprintln(w, "no runs")
		return nil
	}
	return t.WriteText(w, cols)
}
