package simulate_test

import (
	"reflect"
	"testing"

	"github.com/backfill-hpc/backfill/machine"
	"github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
)

// TestMachineSameSchedule: with a machine (one core per node, or nodes of
// several cores) and any rule, the schedule is byte-identical to the run
// on counts only; the audit checks every allocation (no core held twice).
func TestMachineSameSchedule(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	jobs := tr.Jobs
	if testing.Short() {
		jobs = jobs[:4000]
	}
	ones, _ := machine.Uniform(tr.Procs, 1)
	fours, _ := machine.Uniform(tr.Procs/4, 4)
	for _, spec := range []string{"easy", "conservative", "fcfs"} {
		ref, err := simulate.Run(jobs, spec, simulate.Options{Procs: tr.Procs})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []*machine.Machine{ones, fours} {
			for _, rule := range []machine.Rule{machine.FirstFit, machine.BestFit, machine.Contiguous} {
				r, err := simulate.Run(jobs, spec, simulate.Options{Procs: tr.Procs, Machine: m, Alloc: rule})
				if err != nil {
					t.Fatalf("%s %v on %d nodes: %v", spec, rule, len(m.Nodes), err)
				}
				if !reflect.DeepEqual(r.Sim.Outcomes, ref.Sim.Outcomes) {
					t.Errorf("%s %v on %d nodes: the schedule differs from the run on counts", spec, rule, len(m.Nodes))
				}
				if r.Alloc.Stats.Jobs != len(jobs) {
					t.Errorf("%s %v: %d jobs placed of %d", spec, rule, r.Alloc.Stats.Jobs, len(jobs))
				}
				if len(m.Nodes) == tr.Procs && (r.Alloc.Stats.Split != 0 || r.Alloc.Stats.ExtraNodes != 0) {
					t.Errorf("one core per node: %+v", r.Alloc.Stats)
				}
			}
		}
	}
}
