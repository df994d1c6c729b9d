package workload

import "testing"

func TestSplitMonthsKTH(t *testing.T) {
	tr, err := Builtin(Options{})
	if err != nil {
		t.Fatal(err)
	}
	parts, err := SplitMonths(tr)
	if err != nil {
		t.Fatal(err)
	}
	if len(parts) != 12 || parts[0].Name != "1996-09" || parts[11].Name != "1997-08" {
		var names []string
		for _, p := range parts {
			names = append(names, p.Name)
		}
		t.Fatalf("months %v, want 1996-09 … 1997-08", names)
	}
	total := 0
	for _, p := range parts {
		for i, j := range p.Jobs {
			if j.ID != i {
				t.Fatalf("%s: job %d has ID %d", p.Name, i, j.ID)
			}
		}
		total += len(p.Jobs)
	}
	if total != len(tr.Jobs) {
		t.Fatalf("%d jobs in the months, %d in the trace", total, len(tr.Jobs))
	}
	tr.Header.UnixStartTime = -1
	if _, err := SplitMonths(tr); err == nil {
		t.Fatal("split without UnixStartTime succeeded")
	}
}
