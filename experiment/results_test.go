package experiment

import (
	"bytes"
	"strings"
	"testing"
)

// TestSelect: the 8 runs of report/testdata/sweep-small (4 per policy)
// filtered by --where, checked --columns, the text table's default
// columns, and the errors naming the flag and what the columns hold.
func TestSelect(t *testing.T) {
	dir := "../report/testdata/sweep-small"
	runs, _, err := ReadStore(dir, false)
	if err != nil {
		t.Fatal(err)
	}
	tb, cols, err := Select(runs, dir, []string{"policy_name==easy"}, nil, true)
	if err != nil || len(tb.Rows) != 4 || len(cols) == 0 || len(cols) != len(tb.DefaultColumns()) {
		t.Fatalf("easy: %v rows, columns %v, err %v", tb, cols, err)
	}
	tb, cols, err = Select(runs, dir, nil, []string{"run", "policy_name"}, false)
	if err != nil || len(tb.Rows) != 8 || len(tb.Cols) != 2 || len(cols) != 2 {
		t.Fatalf("projected: %+v %v %v", tb, cols, err)
	}
	for _, c := range []struct {
		where, cols []string
		want        string
	}{
		{[]string{"policy_name=easyx"}, nil, "--where policy_name=easyx: no run of the 8 in " + dir + " matches (policy_name holds "},
		{[]string{"nosuch=1"}, nil, `--where: no column "nosuch"`},
		{[]string{"policy_name"}, nil, `--where "policy_name": expected COLUMN OP VALUE`},
		{nil, []string{"nosuch"}, `--columns: no column "nosuch"`},
	} {
		if _, _, err := Select(runs, dir, c.where, c.cols, true); err == nil || !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("where %v columns %v: %v, want %q", c.where, c.cols, err, c.want)
		}
	}
	var b bytes.Buffer
	if err := (&Table{}).Write(&b, "table", nil); err != nil || b.String() != "no runs\n" {
		t.Errorf("empty table: %q %v", b.String(), err)
	}
	b.Reset()
	tb, _, _ = Select(runs, dir, []string{"policy_name=easy"}, []string{"run"}, false)
	if err := tb.Write(&b, "csv", nil); err != nil || strings.Count(b.String(), "\n") != 5 || !strings.HasPrefix(b.String(), "run\n") {
		t.Errorf("csv: %q %v", b.String(), err)
	}
}
