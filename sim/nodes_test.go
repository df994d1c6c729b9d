package sim_test

import (
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/machine"
	"github.com/backfill-hpc/backfill/metrics"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// TestNodeWait: a job the counts let start waits for its nodes, worked by
// hand. Two nodes of 2 cores: node 0 (cores 0-1) in partition a, node 1
// (cores 2-3) in b; FCFS, first fit.
//
//	J0  submit 0, 1 core, cores only, run 10      → core 0 at 0
//	J1  submit 0, 1 core of partition b, run 6    → core 2 at 0
//	J2  submit 1, 1 whole node (2 cores), run 5   → FCFS starts it at 1 (2
//	    cores free on counts), but no node is wholly free: it waits; J1
//	    ends at 6, node 1 is free: launched at 6 (NodeWait 5), ends at 11
//	J3  submit 2, 1 core, run 1                   → 0 free on counts until 6
//	    (J2 counts); starts at 6 on core 1
//
// Fragmentation: 1 job waited 5 s for its nodes; 2 cores were free while
// it waited from 1 to 6: 10 core-seconds.
func TestNodeWait(t *testing.T) {
	m, err := machine.Parse([]byte("nodes:\n  - cores: 2\n    partitions: [a]\n  - cores: 2\n    partitions: [b]\n"), "m.yaml")
	if err != nil {
		t.Fatal(err)
	}
	mk := func(id int, submit int64, procs int, run int64) job.Job {
		return job.Job{Request: job.Request{ID: id, SWFID: int64(id), Submit: submit, Procs: procs, Estimate: run}, Runtime: run}
	}
	jobs := []job.Job{mk(0, 0, 1, 10), mk(1, 0, 1, 6), mk(2, 1, 2, 5), mk(3, 2, 1, 1)}
	dem := []machine.Demand{{}, {Set: true, Nodes: 1, Partition: "b"}, {Set: true, Nodes: 1, Exclusive: true}, {}}
	for _, permute := range []bool{false, true} {
		js := append([]job.Job(nil), jobs...)
		ds := append([]machine.Demand(nil), dem...)
		if permute {
			// J0 and J1 swap ids (same submit time): the same schedule
			js[0], js[1] = js[1], js[0]
			js[0].ID, js[1].ID = 0, 1
			ds[0], ds[1] = ds[1], ds[0]
		}
		a := machine.NewAllocator(m, machine.FirstFit, len(js))
		if err := a.SetDemands(ds); err != nil {
			t.Fatal(err)
		}
		s, _ := policy.New("fcfs", 4)
		res, err := sim.Run(js, s, sim.Options{Procs: 4, Placer: a})
		if err != nil {
			t.Fatal(err)
		}
		want := map[int64][3]int64{0: {0, 10, 0}, 1: {0, 6, 0}, 2: {6, 11, 5}, 3: {6, 7, 0}} // by SWF id: start, end, node wait
		for _, o := range res.Outcomes {
			if w := want[o.SWFID]; o.Start != w[0] || o.End != w[1] || o.NodeWait != w[2] {
				t.Errorf("permute %v: job %d: start %d end %d wait %d, want %v", permute, o.SWFID, o.Start, o.End, o.NodeWait, w)
			}
		}
		if res.NodeWaited != 1 || res.NodeWait != 5 || res.NodeIdle != 10 {
			t.Errorf("permute %v: %d jobs waited %d s, %d core-s idle; want 1, 5, 10", permute, res.NodeWaited, res.NodeWait, res.NodeIdle)
		}
		// fragmentation: 1 job, 5 s (5/4 per started job), 10 unusable
		// core-seconds of the 10 idle while jobs waited (J2 and J3 wait
		// from 1 and 2 to 6 with 2 cores idle): 100 %
		f := metrics.NodeFragmentation(res.Outcomes, res.NodeIdle, machine.IdleWhileWaiting(res.Outcomes, 4).CoreSeconds)
		if f != (metrics.Fragmentation{Jobs: 1, Wait: 5, MeanWait: 1.25, UnusableCoreSeconds: 10, UnusableShare: 100}) {
			t.Errorf("permute %v: %+v", permute, f)
		}
		if got := a.String(2); got != "2-3" {
			t.Errorf("J2 on %s, want 2-3", got)
		}
		rep := audit.Audit(res.Outcomes, audit.Options{Procs: 4, Kill: true, KnownRuntime: true, FCFS: true, Expect: 4, Cores: a.Intervals})
		if !rep.OK() {
			t.Errorf("audit: %s", rep.String())
		}
	}
}
