package machine

import "fmt"

// charge is what a job holds on one node beyond its cores.
type charge struct {
	node int32
	gpus int32
	mem  int64
}

// nodeState is the node-level bookkeeping of an Allocator with demands.
type nodeState struct {
	dem     []Demand // by job ID
	memFree []int64
	gpuFree []int
	charges map[int][]charge // by job ID, while it runs
	pick    []int32          // scratch: the nodes chosen
	// the last search's answer (choose), valid until the next Place or
	// Release
	memo     bool
	memoK    int
	memoD    Demand
	memoPick []int32
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
// in the rule's order, or nil. The answer is remembered until the next
// Place or Release, so that Place after Fits does not search again.
func (a *Allocator) choose(d Demand, k int) []int32 {
	ns := a.ns
	if ns.memo && ns.memoK == k && ns.memoD == d {
		return ns.memoPick
	}
	pick := a.search(d, k)
	ns.memo, ns.memoK, ns.memoD = true, k, d
	ns.memoPick = append(ns.memoPick[:0], pick...)
	if pick == nil {
		ns.memoPick = nil
	}
	return ns.memoPick
}

// search is choose without the memo. Nodes without a free core are
// skipped a word of cores at a time (firstfit, contiguous); bestfit walks
// the buckets of nodes by free count from ⌈k/N⌉ up, each in index order.
func (a *Allocator) search(d Demand, k int) []int32 {
	s := a.m.shapeOf(d, k)
	ns := a.ns
	if s.n < 1 {
		return nil
	}
	ok := func(n, free int) bool {
		return a.m.eligible(n, d.Partition) && s.fitsNode(&a.m.Nodes[n], free, ns.memFree[n], ns.gpuFree[n])
	}
	ns.pick = ns.pick[:0]
	if a.rule == BestFit {
		// the feasible nodes with the fewest free cores first (ties: the
		// lowest index)
		for f := a.fset.next(s.cpn); f >= 0; f = a.fset.next(f + 1) {
			for n := a.byF[f].next(0); n >= 0; n = a.byF[f].next(n + 1) {
				if ok(n, f) {
					if ns.pick = append(ns.pick, int32(n)); len(ns.pick) == s.n {
						return ns.pick
					}
				}
			}
		}
		return nil
	}
	// firstfit: the lowest feasible nodes; contiguous: the lowest run of N
	// consecutive feasible nodes (else as firstfit)
	for pass := 0; pass < 2; pass++ {
		run := 0
		contiguous := a.rule == Contiguous && pass == 0
		for n := 0; n < len(a.m.Nodes); n++ {
			// skip to the node of the next core word with a free core
			w := a.wsum.next(a.off(n) >> 6)
			if w < 0 {
				break
			}
			if nn := a.nodeOf(w << 6); nn > n {
				n, run = nn, 0
			}
			f := a.freeOf(n)
			if f == 0 || !ok(n, f) {
				run = 0
				continue
			}
			if !contiguous {
				if ns.pick = append(ns.pick, int32(n)); len(ns.pick) == s.n {
					return ns.pick
				}
				continue
			}
			if run++; run == s.n {
				for x := n - s.n + 1; x <= n; x++ {
					ns.pick = append(ns.pick, int32(x))
				}
				return ns.pick
			}
		}
		if a.rule != Contiguous {
			break
		}
		ns.pick = ns.pick[:0]
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
	a.ns.memo = false
	a.sortLast(start)
	return nil
}

// releaseCharges gives back job id's memory and GPUs.
func (a *Allocator) releaseCharges(id int) {
	if a.ns == nil {
		return
	}
	a.ns.memo = false
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
