package machine

import (
	"fmt"
	"slices"
)

// charge is what a job holds on one node beyond its cores.
type charge struct {
	node int32
	gpus int32
	mem  int64
}

// nodeFree is a node and its free cores.
type nodeFree struct{ node, free int32 }

// nodeState is the node-level bookkeeping of an Allocator with demands.
type nodeState struct {
	dem     []Demand // by job ID
	memFree []int64
	gpuFree []int
	charges map[int][]charge // by job ID, while it runs
	pick    []int32          // scratch: the nodes chosen
	cand    []nodeFree       // scratch: the feasible nodes (BestFit)
}

// SetDemands makes the allocator place the jobs with a demand (by job ID;
// Apply) on whole nodes, memory, GPUs and partitions by the rules of
// Demand; jobs without one still take any free cores. It must be called
// before the first Place.
func (a *Allocator) SetDemands(d []Demand) error {
	if a.Stats.Jobs > 0 || a.nfree != a.m.Procs() {
		return fmt.Errorf("machine: SetDemands after jobs were placed")
	}
	ns := &nodeState{dem: d, memFree: make([]int64, len(a.m.Nodes)), gpuFree: make([]int, len(a.m.Nodes)), charges: map[int][]charge{}}
	for i, n := range a.m.Nodes {
		ns.memFree[i], ns.gpuFree[i] = n.MemoryKB, n.GPUs
	}
	a.ns = ns
	return nil
}

// Constrained reports whether some job may fit the free core count and
// still not be placeable now (SetDemands was called): the simulator then
// holds such a job until its nodes are free (docs/simulator.md).
func (a *Allocator) Constrained() bool { return a.ns != nil }

// demand returns job id's demand (Set false for none).
func (a *Allocator) demand(id int) Demand {
	if a.ns == nil || id < 0 || id >= len(a.ns.dem) {
		return Demand{}
	}
	return a.ns.dem[id]
}

// Fits reports whether job id of k cores can be placed now.
func (a *Allocator) Fits(id, k int) bool {
	if k < 1 || k > a.nfree {
		return false
	}
	d := a.demand(id)
	if !d.Set {
		return true
	}
	return a.choose(d, k) != nil
}

// choose returns the nodes a job of demand d and k cores would take now,
// in the rule's order, or nil.
func (a *Allocator) choose(d Demand, k int) []int32 {
	s := a.m.shapeOf(d, k)
	ns := a.ns
	if s.n < 1 {
		return nil
	}
	ok := func(n int) bool {
		return a.m.eligible(n, d.Partition) && s.fitsNode(&a.m.Nodes[n], a.freeOf(n), ns.memFree[n], ns.gpuFree[n])
	}
	ns.pick = ns.pick[:0]
	switch a.rule {
	case BestFit:
		// the feasible nodes with the fewest free cores first (ties: the
		// lowest index)
		ns.cand = ns.cand[:0]
		for n := range a.m.Nodes {
			if ok(n) {
				ns.cand = append(ns.cand, nodeFree{int32(n), int32(a.freeOf(n))})
			}
		}
		if len(ns.cand) < s.n {
			return nil
		}
		slices.SortStableFunc(ns.cand, func(x, y nodeFree) int { return int(x.free - y.free) })
		for _, c := range ns.cand[:s.n] {
			ns.pick = append(ns.pick, c.node)
		}
		return ns.pick
	case Contiguous:
		// the lowest run of N consecutive feasible nodes
		run := 0
		for n := range a.m.Nodes {
			if !ok(n) {
				run = 0
				continue
			}
			if run++; run == s.n {
				for x := n - s.n + 1; x <= n; x++ {
					ns.pick = append(ns.pick, int32(x))
				}
				return ns.pick
			}
		}
	}
	for n := range a.m.Nodes {
		if ok(n) {
			if ns.pick = append(ns.pick, int32(n)); len(ns.pick) == s.n {
				return ns.pick
			}
		}
	}
	return nil
}

// placeNodes places job id (k cores, demand d) on the nodes choose picks:
// the first k mod N nodes take ⌈k/N⌉ cores, the others ⌊k/N⌋ (an
// exclusive job: all their cores), lowest free cores first; and its
// memory and GPUs per node (exclusive: all of the node's).
func (a *Allocator) placeNodes(id, k int, d Demand) error {
	pick := a.choose(d, k)
	if pick == nil {
		return fmt.Errorf("machine: job %d (%s) does not fit the free nodes now", id, d.describe(a.m, k))
	}
	s := a.m.shapeOf(d, k)
	start := len(a.ivs)
	base, extra := k/s.n, k%s.n
	ch := make([]charge, 0, len(pick))
	for i, n := range pick {
		c := base
		if i < extra {
			c++
		}
		a.takeNode(int(n), c, start)
		cg := charge{node: n, mem: s.mem, gpus: int32(s.gpus)}
		if s.excl {
			cg.mem, cg.gpus = a.ns.memFree[n], int32(a.ns.gpuFree[n])
		}
		if a.m.Nodes[n].MemoryKB == 0 {
			cg.mem = 0 // memory not modelled on this node
		}
		a.ns.memFree[n] -= cg.mem
		a.ns.gpuFree[n] -= int(cg.gpus)
		ch = append(ch, cg)
	}
	a.ns.charges[id] = ch
	a.sortLast(start)
	return nil
}

// releaseCharges gives back job id's memory and GPUs.
func (a *Allocator) releaseCharges(id int) {
	if a.ns == nil {
		return
	}
	for _, c := range a.ns.charges[id] {
		a.ns.memFree[c.node] += c.mem
		a.ns.gpuFree[c.node] += int(c.gpus)
	}
	delete(a.ns.charges, id)
}

// NodeUse is one node's use at a moment: cores, memory and GPUs held.
type NodeUse struct {
	Cores, GPUs int
	MemKB       int64
}

// Use returns every node's use now, computed from the jobs' cores and
// charges (for audits and tests).
func (a *Allocator) Use() []NodeUse {
	u := make([]NodeUse, len(a.m.Nodes))
	for i, n := range a.m.Nodes {
		u[i].Cores = n.Cores - a.freeOf(i)
		if a.ns != nil {
			u[i].MemKB = n.MemoryKB - a.ns.memFree[i]
			u[i].GPUs = n.GPUs - a.ns.gpuFree[i]
		}
	}
	return u
}
