package metrics

import "github.com/backfill-hpc/backfill/job"

// Fragmentation is what node-level placement cost a schedule (a machine
// with node-level requests; docs/metrics.md, "Fragmentation"): a job the
// policy starts when the free core count fits may find no nodes that hold
// it (whole nodes, memory, GPUs, partitions) and wait for them.
type Fragmentation struct {
	// Jobs is the number of jobs that waited for their nodes (NodeWait >
	// 0): jobs delayed by fragmentation.
	Jobs int
	// Wait is the sum of their waits in seconds, MeanWait that sum over
	// the started jobs.
	Wait     int64
	MeanWait float64
	// UnusableCoreSeconds is the free core-seconds while some started job
	// waited for its nodes (sim.Result.NodeIdle): cores the counts said
	// were usable and the nodes were not. UnusableShare is it in percent
	// of the idle core-seconds while jobs waited (machine.Idle), 0 when
	// there were none.
	UnusableCoreSeconds int64
	UnusableShare       float64
}

// NodeFragmentation computes Fragmentation from the outcomes, the
// simulator's unusable core-seconds (sim.Result.NodeIdle) and the idle
// core-seconds while jobs waited (machine.IdleWhileWaiting).
func NodeFragmentation(outs []job.Outcome, unusable, idleWhileWaiting int64) Fragmentation {
	f := Fragmentation{UnusableCoreSeconds: unusable}
	started := 0
	for i := range outs {
		o := &outs[i]
		if o.Rejected || o.Start < 0 {
			continue
		}
		started++
		if o.NodeWait > 0 {
			f.Jobs++
			f.Wait += o.NodeWait
		}
	}
	if started > 0 {
		f.MeanWait = float64(f.Wait) / float64(started)
	}
	if idleWhileWaiting > 0 {
		f.UnusableShare = 100 * float64(unusable) / float64(idleWhileWaiting)
	}
	return f
}
