package audit_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
)

// TestCheckFile: two jobs of 3 processors started together at 0 on a
// machine of 4 hold 6 > 4 at instant 0, one capacity violation; run
// apart, none. The table, JSON and CSV outputs say so.
func TestCheckFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, jobs string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte("; MaxProcs: 4\n"+jobs), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	bad := write("bad.swf", "1 0 0 100 3 -1 -1 3 100 -1 1 1 1 -1 1 -1 -1 -1\n2 0 0 100 3 -1 -1 3 100 -1 1 1 1 -1 1 -1 -1 -1\n")
	c, err := audit.CheckFile(bad, 0, false, audit.Options{Kill: true, Expect: -1, Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if c.Jobs != 2 || c.Procs != 4 || c.Report.OK() || c.Report.Counts[audit.KindCapacity] != 1 || c.Report.Total() != 1 {
		t.Fatalf("check %+v", c)
	}
	var b bytes.Buffer
	if err := c.Write(&b, "table", "v"); err != nil {
		t.Fatal(err)
	}
	if s := b.String(); !strings.HasPrefix(s, bad+": 2 jobs on 4 processors\n") || !strings.HasSuffix(s, "summary: 1 violations: capacity 1\n") {
		t.Errorf("table:\n%s", s)
	}
	b.Reset()
	if err := c.Write(&b, "json", "v"); err != nil {
		t.Fatal(err)
	}
	var j struct {
		Version string         `json:"version"`
		OK      bool           `json:"ok"`
		Total   int            `json:"violations_total"`
		Counts  map[string]int `json:"counts"`
		Listed  int            `json:"listed_per_kind"`
	}
	if err := json.Unmarshal(b.Bytes(), &j); err != nil || j.Version != "v" || j.OK || j.Total != 1 || j.Counts["capacity"] != 1 || j.Listed != 5 {
		t.Errorf("json %v: %s", err, b.String())
	}
	b.Reset()
	if err := c.Write(&b, "csv", "v"); err != nil || !strings.HasPrefix(b.String(), "kind,swf_id,time,message\ncapacity,") {
		t.Errorf("csv %v: %s", err, b.String())
	}

	good := write("good.swf", "1 0 0 100 3 -1 -1 3 100 -1 1 1 1 -1 1 -1 -1 -1\n2 0 100 100 3 -1 -1 3 100 -1 1 1 1 -1 1 -1 -1 -1\n")
	c, err = audit.CheckFile(good, 0, false, audit.Options{Kill: true, Expect: -1, Limit: 5})
	if err != nil || !c.Report.OK() {
		t.Fatalf("%v %+v", err, c)
	}
	b.Reset()
	if err := c.Write(&b, "table", "v"); err != nil || strings.Contains(b.String(), "summary:") {
		t.Errorf("clean table %v:\n%s", err, b.String())
	}
	if _, err := audit.CheckFile(filepath.Join(dir, "none.swf"), 0, false, audit.Options{}); err == nil {
		t.Error("a missing file audited")
	}
}
