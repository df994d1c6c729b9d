package machine

import (
	"cmp"
	"fmt"
	"maps"
	"slices"

	"github.com/backfill-hpc/backfill/job"
)

// AuditNodes checks a schedule's node-level allocation from the outcomes
// and each job's cores alone (cores: Allocator.Intervals), independently
// of the allocator's bookkeeping. Sweeping starts and ends in time order
// (ends first at an instant), it checks that no node ever holds more
// cores, memory or GPUs than it has — a job with a demand holds ⌈MemKB/N⌉
// and ⌈GPUs/N⌉ on each of the N nodes its cores are on, all of a node's
// memory and GPUs when exclusive, and memory only where the machine file
// gives it — that an exclusive job shares none of its nodes, that a job
// with a partition runs only on that partition's nodes, and that a job
// that asked for N nodes got N (at most its core count). It returns the
// violations found (at most 10), nil when there are none.
func AuditNodes(m *Machine, outs []job.Outcome, dem []Demand, cores func(id int) [][2]int) []string {
	var bad []string
	add := func(format string, a ...any) {
		if len(bad) < 10 {
			bad = append(bad, fmt.Sprintf(format, a...))
		}
	}
	nodeOf := func(c int) int {
		n, _ := slices.BinarySearchFunc(m.offset, c+1, cmp.Compare[int])
		return n - 1
	}
	type ev struct {
		t    int64
		take bool
		i    int // index in outs
	}
	var evs []ev
	for i := range outs {
		o := &outs[i]
		if !o.Rejected && o.Start >= 0 && o.End > o.Start {
			evs = append(evs, ev{o.Start, true, i}, ev{o.End, false, i})
		}
	}
	slices.SortFunc(evs, func(x, y ev) int {
		if c := cmp.Compare(x.t, y.t); c != 0 {
			return c
		}
		if x.take != y.take {
			if x.take {
				return 1
			}
			return -1
		}
		return cmp.Compare(outs[x.i].ID, outs[y.i].ID)
	})
	demOf := func(id int) Demand {
		if id >= 0 && id < len(dem) {
			return dem[id]
		}
		return Demand{}
	}
	used := make([]NodeUse, len(m.Nodes))
	on := make([]map[int]bool, len(m.Nodes)) // jobs (index in outs) on each node
	for _, e := range evs {
		o := &outs[e.i]
		d := demOf(o.ID)
		per := map[int]int{}
		for _, iv := range cores(o.ID) {
			for c := iv[0]; c <= iv[1] && c < m.Procs(); c++ {
				per[nodeOf(c)]++
			}
		}
		N := len(per)
		if e.take && d.Set && d.Nodes > 0 && !d.Exclusive && N != min(d.Nodes, o.Procs) {
			add("job %d: on %d nodes, asked for %d", o.SWFID, N, d.Nodes)
		}
		sign := 1
		if !e.take {
			sign = -1
		}
		for _, nd := range slices.Sorted(maps.Keys(per)) {
			node := &m.Nodes[nd]
			var mem int64
			var gpus int
			if d.Set && N > 0 {
				mem, gpus = (d.MemKB+int64(N)-1)/int64(N), (d.GPUs+N-1)/N
				if d.Exclusive {
					mem, gpus = node.MemoryKB, node.GPUs
				}
				if node.MemoryKB == 0 {
					mem = 0
				}
				if e.take && !m.eligible(nd, d.Partition) {
					add("job %d: partition %q on node %s (partitions %v)", o.SWFID, d.Partition, node.Name, node.Partitions)
				}
			}
			u := &used[nd]
			u.Cores += sign * per[nd]
			u.MemKB += int64(sign) * mem
			u.GPUs += sign * gpus
			if on[nd] == nil {
				on[nd] = map[int]bool{}
			}
			if e.take {
				for other := range on[nd] {
					if d.Exclusive || demOf(outs[other].ID).Exclusive {
						add("at %d: jobs %d and %d share node %s, one of them exclusive", e.t, outs[other].SWFID, o.SWFID, node.Name)
					}
				}
				on[nd][e.i] = true
			} else {
				delete(on[nd], e.i)
			}
			if u.Cores > node.Cores || u.GPUs > node.GPUs || (node.MemoryKB > 0 && u.MemKB > node.MemoryKB) {
				add("at %d: node %s (%d cores, %d KB, %d GPUs) holds %d cores, %d KB, %d GPUs (job %d starting)",
					e.t, node.Name, node.Cores, node.MemoryKB, node.GPUs, u.Cores, u.MemKB, u.GPUs, o.SWFID)
			}
		}
	}
	return bad
}
