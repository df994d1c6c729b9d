package audit

import (
	"github.com/backfill-hpc/backfill/job"
	"strings"
	"testing"
)

// TestResourceCapacity: a two-resource schedule (4 processors, 10 units of
// memory) that is valid, then broken once per rule.
func TestResourceCapacity(t *testing.T) {
	base := func() []jobSpec {
		return []jobSpec{
			{0, 0, 0, 1, 10, []int{6}},  // [0,10) mem 6
			{1, 0, 0, 1, 5, []int{4}},   // [0,5) mem 4: exactly full
			{2, 2, 10, 1, 5, []int{10}}, // starts when job 0 ends: full again
			{3, 0, 5, 1, 3, nil},        // no memory at all
		}
	}
	opt := Options{Procs: 4, Kill: true, KnownRuntime: true, Expect: 4, Res: []int{10}}
	if r := Audit(build(base()), opt); !r.OK() {
		t.Fatalf("valid schedule: %s", r.String())
	}
	// job 1 asks one unit more: resource over capacity on [0,5)
	s := base()
	s[1].res = []int{5}
	r := Audit(build(s), opt)
	if r.Counts[KindResCapacity] != 1 || r.Total() != 1 {
		t.Fatalf("over capacity: %s", r.String())
	}
	v := r.Violations[0]
	if v.Time != 0 || !strings.Contains(v.Msg, "resource 1: 11 units in use > 10") {
		t.Errorf("violation %v", v)
	}
	// job 2 starts one second early, overlapping job 0
	s = base()
	s[2].start = 9
	if r := Audit(build(s), opt); r.Counts[KindResCapacity] != 1 || r.Violations[0].Time != 9 {
		t.Fatalf("overlap: %s", r.String())
	}
	// a job needing more than the machine has, and a resource it lacks
	s = base()
	s[3].res = []int{11}
	if r := Audit(build(s), opt); r.Counts[KindResource] != 1 {
		t.Fatalf("too big: %s", r.String())
	}
	s = base()
	s[3].res = []int{0, 1}
	if r := Audit(build(s), opt); r.Counts[KindResource] != 1 {
		t.Fatalf("unknown resource: %s", r.String())
	}
	// without Options.Res the resource is not checked, but a job that
	// names one is reported
	opt.Res = nil
	if r := Audit(build(base()), opt); r.Counts[KindResource] != 3 || r.Counts[KindResCapacity] != 0 {
		t.Fatalf("no machine resources: %s", r.String())
	}
}

type jobSpec struct {
	id            int
	submit, start int64
	procs         int
	run           int64
	res           []int
}

func build(s []jobSpec) []job.Outcome {
	out := make([]job.Outcome, len(s))
	for i, j := range s {
		out[i] = mk(j.id, j.submit, j.start, j.procs, j.run)
		out[i].Res = j.res
	}
	return out
}
