package experiment

import (
	"slices"
	"testing"
)

func queryTable() *Table {
	return &Table{
		Cols: []Column{{"run", String}, {"status", String}, {"workload", String}, {"load", Float}, {"seed", Int}, {"policy", String}, {"mean_wait", Float}},
		Rows: [][]any{
			{"a", StatusOK, "kth", 0.5, int64(1), "easy", 10.0},
			{"b", StatusOK, "kth", 0.9, int64(1), "easy:depth=2", 30.0},
			{"c", "failed", "kth", 0.9, int64(1), "conservative", nil},
		},
	}
}

func TestParseFilter(t *testing.T) {
	for in, want := range map[string]Filter{
		"load>=0.8": {"load", ">=", "0.8"}, " policy = easy ": {"policy", "=", "easy"}, "policy==easy": {"policy", "=", "easy"},
		"status!=ok": {"status", "!=", "ok"}, "policy~depth": {"policy", "~", "depth"}, "seed<2": {"seed", "<", "2"},
	} {
		got, err := ParseFilter(in)
		if err != nil || got != want {
			t.Errorf("ParseFilter(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	for _, bad := range []string{"load", "=easy", "load>", "load=>1", "load!1"} {
		if _, err := ParseFilter(bad); err == nil {
			t.Errorf("ParseFilter(%q): no error", bad)
		}
	}
}

func TestKeep(t *testing.T) {
	for _, c := range []struct {
		where []string
		runs  []string
	}{
		{[]string{"load>=0.8"}, []string{"b", "c"}},
		{[]string{"load>0.5", "policy~depth"}, []string{"b"}},
		{[]string{"mean_wait<20"}, []string{"a"}}, // a failed run's empty metric matches no comparison
		{[]string{"mean_wait!=10"}, []string{"b", "c"}},
		{[]string{"seed=1"}, []string{"a", "b", "c"}},
		{[]string{"policy=nosuch"}, nil},
	} {
		tb := queryTable()
		var fs []Filter
		for _, w := range c.where {
			f, err := ParseFilter(w)
			if err != nil {
				t.Fatal(err)
			}
			fs = append(fs, f)
		}
		if err := tb.Keep(fs); err != nil {
			t.Fatal(err)
		}
		var runs []string
		for _, r := range tb.Rows {
			runs = append(runs, r[0].(string))
		}
		if !slices.Equal(runs, c.runs) {
			t.Errorf("%q kept %q, want %q", c.where, runs, c.runs)
		}
	}
	if err := queryTable().Keep([]Filter{{"nosuch", "=", "x"}}); err == nil {
		t.Error("a filter on no column: no error")
	}
	if err := queryTable().Keep([]Filter{{"load", "<", "x"}}); err == nil || err.Error() != "load<x: < needs a number" {
		t.Errorf("a comparison with text: %v", err)
	}
}

func TestProjectValuesAndDefaultColumns(t *testing.T) {
	tb := queryTable()
	p := tb.Project([]string{"policy", "run"})
	if !slices.Equal(p.ColNames(), []string{"policy", "run"}) || p.Rows[2][1] != "c" || p.Rows[0][0] != "easy" {
		t.Errorf("projection %+v", p)
	}
	if v := tb.Values("load", 5); !slices.Equal(v, []string{"0.5", "0.9"}) {
		t.Errorf("values %q", v)
	}
	// load varies, seed does not; a run failed: the error column too
	want := []string{"run", "status", "workload", "load", "policy", "jobs", "mean_wait", "p90_wait", "mean_bsld", "utilization", "killed", "error"}
	if got := tb.DefaultColumns(); !slices.Equal(got, want) {
		t.Errorf("default columns %q, want %q", got, want)
	}
}
