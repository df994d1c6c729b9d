package audit

import (
	"bytes"
	"testing"
)

func TestReportOutputs(t *testing.T) {
	r := Report{
		Violations: []Violation{{Kind: KindCapacity, JobID: 0, SWFID: 7, Time: 10, Msg: "5 busy > 4"}, {Kind: "fcfs-order", JobID: 1, SWFID: 8, Time: 20, Msg: "started, before \"x\""}},
		Counts:     map[string]int{KindCapacity: 1, "fcfs-order": 3},
	}
	if s := r.Summary(); s != "4 violations: capacity 1, fcfs-order 3" {
		t.Errorf("summary %q", s)
	}
	l := r.Listed()
	if len(l) != 2 || l[1] != (Listed{"fcfs-order", 8, 20, "started, before \"x\""}) {
		t.Errorf("listed %+v", l)
	}
	if l := (&Report{}).Listed(); l == nil || len(l) != 0 {
		t.Errorf("no violations: %#v, want an empty list", l)
	}
	var buf bytes.Buffer
	if err := r.WriteCSV(&buf); err != nil {
		t.Fatal(err)
	}
	want := "kind,swf_id,time,message\ncapacity,7,10,5 busy > 4\nfcfs-order,8,20,\"started, before \"\"x\"\"\"\n"
	if buf.String() != want {
		t.Errorf("CSV\n%s\nwant\n%s", buf.String(), want)
	}
}
