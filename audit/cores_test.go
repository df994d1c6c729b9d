package audit

import (
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// TestCores: hand-made allocations on a 4-core machine.
func TestCores(t *testing.T) {
	// job 0: cores 0-1 from 0 to 10; job 1: cores 2-3 from 0 to 5;
	// job 2: cores 2-3 from 5 to 9 (takes them as job 1 releases them)
	outs := []job.Outcome{mk(0, 0, 0, 2, 10), mk(1, 0, 0, 2, 5), mk(2, 0, 5, 2, 4)}
	cores := map[int][][2]int{0: {{0, 1}}, 1: {{2, 3}}, 2: {{2, 3}}}
	opt := Options{Procs: 4, Kill: true, KnownRuntime: true, Expect: 3, Cores: func(id int) [][2]int { return cores[id] }}
	if r := Audit(outs, opt); !r.OK() {
		t.Fatalf("valid allocation: %s", r.String())
	}
	// job 2 takes core 1, held by job 0 until 10
	cores[2] = [][2]int{{1, 1}, {3, 3}}
	r := Audit(outs, opt)
	if r.Counts[KindCoreTwice] != 1 || r.Total() != 1 || r.Violations[0].JobID != 2 || r.Violations[0].Time != 5 {
		t.Errorf("core twice: %s", r.String())
	}
	// job 2 holds 3 cores for 2 processors; job 1 a core beyond the machine
	cores[2] = [][2]int{{1, 3}}
	cores[1] = [][2]int{{3, 4}}
	r = Audit(outs, opt)
	if r.Counts[KindCoreCount] != 2 {
		t.Errorf("core count: %s", r.String())
	}
}
