package machine

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// site: nodes 0-1 batch (4 cores, 8G: cores 0-3, 4-7), node 2 gpu (4
// cores, 32G, 2 GPUs: cores 8-11).
const site = `nodes:
  - count: 2
    cores: 4
    memory: 8G
    partitions: [batch]
  - cores: 4
    memory: 32G
    gpus: 2
    partitions: [gpu]
`

func siteAlloc(t *testing.T, rule Rule, dem ...Demand) *Allocator {
	t.Helper()
	m, err := Parse([]byte(site), "site.yaml")
	if err != nil {
		t.Fatal(err)
	}
	a := NewAllocator(m, rule, len(dem))
	if err := a.SetDemands(dem); err != nil {
		t.Fatal(err)
	}
	return a
}

const gb = 1 << 20 // KB

// TestNodeRequests: the four constraints, worked by hand on site.
func TestNodeRequests(t *testing.T) {
	t.Run("partition", func(t *testing.T) {
		// job 0: 2 cores of gpu → node 2 although node 0 is free
		a := siteAlloc(t, FirstFit, Demand{Set: true, Partition: "gpu"})
		if got := place(t, a, [2]int{0, 2}); got[0] != "8-9" {
			t.Errorf("gpu job on %s, want 8-9", got[0])
		}
		// job 0 of batch, 6 cores: N = ⌈6/4⌉ = 2 nodes, 3 + 3
		a = siteAlloc(t, FirstFit, Demand{Set: true, Partition: "batch"})
		if got := place(t, a, [2]int{0, 6}); got[0] != "0-2 4-6" {
			t.Errorf("batch job on %s, want 0-2 4-6", got[0])
		}
	})
	t.Run("exclusive", func(t *testing.T) {
		// job 0: 1 core (cores only) → core 0; job 1: one whole batch node
		// → node 1; job 2: another → does not fit while node 0 has 3 free
		// cores (6 batch cores free in all)
		ex := Demand{Set: true, Nodes: 1, Exclusive: true, Partition: "batch"}
		a := siteAlloc(t, FirstFit, Demand{}, ex, ex)
		if got := place(t, a, [2]int{0, 1}, [2]int{1, 4}); got[1] != "4-7" {
			t.Errorf("exclusive job on %s, want 4-7", got[1])
		}
		if a.Fits(2, 4) || a.Free() != 7 {
			t.Errorf("second exclusive job fits with %d free", a.Free())
		}
		if err := a.Place(2, 4); err == nil {
			t.Error("Place accepted what Fits refused")
		}
		// a cores-only job may not take the exclusive node's cores: they are all held
		if err := a.Release(0); err != nil {
			t.Fatal(err)
		}
		if !a.Fits(2, 4) || place(t, a, [2]int{2, 4})[0] != "0-3" {
			t.Error("exclusive job not on node 0 once it is free")
		}
		if u := a.Use(); u[0].MemKB != 8*gb || u[1].MemKB != 8*gb {
			t.Errorf("exclusive jobs hold %+v, want all of both nodes' memory", u)
		}
	})
	t.Run("memory", func(t *testing.T) {
		// jobs of 1 core and 6G of batch: the first on node 0, the second
		// on node 1 (node 0 has 3 cores but 2G free), the third nowhere
		// although 6 batch cores are free
		mem := Demand{Set: true, Nodes: 1, MemKB: 6 * gb, Partition: "batch"}
		a := siteAlloc(t, FirstFit, mem, mem, mem)
		if got := place(t, a, [2]int{0, 1}, [2]int{1, 1}); got[0] != "0" || got[1] != "4" {
			t.Errorf("memory jobs on %q, want 0 and 4", got)
		}
		if a.Fits(2, 1) {
			t.Error("third 6G job fits two 8G nodes holding 6G each")
		}
	})
	t.Run("gpu", func(t *testing.T) {
		// job 0: 1 core and 2 GPUs → node 2 (the only one with GPUs); job
		// 1: 1 core and 1 GPU → does not fit, though node 2 has 3 cores
		a := siteAlloc(t, FirstFit, Demand{Set: true, GPUs: 2}, Demand{Set: true, GPUs: 1})
		if got := place(t, a, [2]int{0, 1}); got[0] != "8" {
			t.Errorf("GPU job on %s, want 8", got[0])
		}
		if a.Fits(1, 1) {
			t.Error("a GPU job fits a node whose GPUs are all held")
		}
		if err := a.Release(0); err != nil || !a.Fits(1, 1) {
			t.Errorf("GPU job does not fit after the release: %v", err)
		}
	})
	t.Run("bestfit", func(t *testing.T) {
		// cores-only job 0 takes 3 cores of node 0 (bestfit: the fewest
		// free ≥ 3: all nodes have 4, lowest index); job 1 (1 core, 1
		// node, batch) goes to node 0, the batch node with the fewest free
		// cores; under firstfit too (lowest index); job 2 (2 cores, 1 node,
		// batch): node 0 has 0 free → node 1
		one := Demand{Set: true, Nodes: 1, Partition: "batch"}
		a := siteAlloc(t, BestFit, Demand{}, one, one)
		if got := place(t, a, [2]int{0, 3}, [2]int{1, 1}, [2]int{2, 2}); got[1] != "3" || got[2] != "4-5" {
			t.Errorf("bestfit: %q, want 3 then 4-5", got)
		}
		// contiguous: 2 nodes of batch with 1 core each, after job 0 holds
		// node 0's core 0: nodes 0 and 1 are consecutive → 1 and 4
		two := Demand{Set: true, Nodes: 2, Partition: "batch"}
		a = siteAlloc(t, Contiguous, Demand{}, two)
		if got := place(t, a, [2]int{0, 1}, [2]int{1, 2}); got[1] != "1 4" {
			t.Errorf("contiguous: %q, want 1 4", got)
		}
	})
}

// TestApply: exclusivity inferred from the sidecar's counts, sizes made
// whole nodes, unplaceable jobs refused with their SWF number and line.
func TestApply(t *testing.T) {
	m, _ := Parse([]byte(site), "site.yaml")
	sc := "job_number,partition,req_nodes,alloc_nodes,req_cpus,alloc_cpus,gpus,req_mem_kb\n" +
		"1,batch,1,1,1,4,0,0\n" + // got the whole node: exclusive
		"2,batch,-1,2,5,5,0,0\n" + // 5 cores on 2 nodes: not exclusive
		"3,gpu,1,1,1,1,2,1048576\n"
	dem, err := ParseDemands(strings.NewReader(sc), "s.csv")
	if err != nil {
		t.Fatal(err)
	}
	jobs := []job.Job{{Request: job.Request{ID: 0, SWFID: 1, Procs: 1}}, {Request: job.Request{ID: 1, SWFID: 2, Procs: 5}},
		{Request: job.Request{ID: 2, SWFID: 3, Procs: 1}}, {Request: job.Request{ID: 3, SWFID: 4, Procs: 2}}}
	ap, err := Apply(m, jobs, dem)
	if err != nil {
		t.Fatal(err)
	}
	if ap.Jobs != 3 || ap.Exclusive != 1 || ap.Resized != 1 || jobs[0].Procs != 4 || !ap.Demands[0].Exclusive || ap.Demands[1].Nodes != 2 || ap.Demands[3].Set {
		t.Errorf("applied %+v, sizes %d %d", ap, jobs[0].Procs, jobs[1].Procs)
	}
	bad := "job_number,partition,req_nodes,alloc_nodes,req_cpus,alloc_cpus,gpus,req_mem_kb\n9,batch,1,1,1,1,1,0\n"
	dem, _ = ParseDemands(strings.NewReader(bad), "s.csv")
	_, err = Apply(m, []job.Job{{Request: job.Request{SWFID: 9, Procs: 1}, Line: 7}}, dem)
	if err == nil || !strings.HasPrefix(err.Error(), `job 9 (line 7): 1 nodes with 1 cores, 0 KB of memory and 1 GPUs each (partition "batch")`) {
		t.Errorf("GPU job in a partition without GPUs: %v", err)
	}
	for in, want := range map[string]string{
		"job_number,partition\n":                                         `s.csv:1: the header has no column "req_nodes"`,
		bad[:strings.IndexByte(bad, '\n')+1] + "x\n":                     "s.csv:2: expected 8 fields, found 1",
		bad[:strings.IndexByte(bad, '\n')+1] + "9,batch,one,1,1,1,1,0\n": `s.csv:2: req_nodes: expected a count (-1 unknown), found "one"`,
	} {
		if _, err := ParseDemands(strings.NewReader(in), "s.csv"); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%q: %v, want %s", in, err, want)
		}
	}
}

// TestNodesNeverOvercommitted: random jobs with random demands placed and
// released on a mixed machine under each rule; after every step the use
// recomputed from the jobs' cores never exceeds a node's cores, memory and
// GPUs are within [0, capacity], an exclusive job shares none of its nodes,
// every job with a demand spans exactly its N nodes, and everything is
// free at the end.
func TestNodesNeverOvercommitted(t *testing.T) {
	mix := `nodes:
  - count: 5
    cores: 4
    memory: 16G
    partitions: [a]
  - count: 3
    cores: 8
    memory: 64G
    gpus: 4
    partitions: [b]
  - count: 2
    cores: 2
    partitions: [a, b]
`
	m, err := Parse([]byte(mix), "mix.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, rule := range []Rule{FirstFit, BestFit, Contiguous} {
		rng := rand.New(rand.NewPCG(uint64(rule)+1, 7))
		const n = 3000
		jobs := make([]job.Job, n)
		dem := map[int64]Demand{}
		for i := range jobs {
			jobs[i] = job.Job{Request: job.Request{ID: i, SWFID: int64(i + 1), Procs: 1 + rng.IntN(12)}}
			if rng.IntN(5) == 0 {
				continue // cores only
			}
			d := Demand{Set: true, Partition: []string{"", "a", "b"}[rng.IntN(3)]}
			if rng.IntN(2) == 0 {
				d.Nodes = 1 + rng.IntN(3)
			}
			d.Exclusive = rng.IntN(4) == 0
			d.MemKB = int64(rng.IntN(3)) * int64(rng.IntN(20)) * gb
			if d.Partition != "a" && rng.IntN(3) == 0 {
				d.GPUs = rng.IntN(5)
			}
			if !m.placeableEmpty(d, jobs[i].Procs) && !d.Exclusive {
				continue
			}
			dem[int64(i+1)] = d
		}
		// drop the demands Apply refuses (keep the job cores-only)
		for {
			_, err := Apply(m, jobs, dem)
			if err == nil {
				break
			}
			var sw int64
			if _, e := fmtSscan(err.Error(), &sw); e != nil {
				t.Fatal(err)
			}
			delete(dem, sw)
		}
		ap, _ := Apply(m, jobs, dem)
		a := NewAllocator(m, rule, n)
		if err := a.SetDemands(ap.Demands); err != nil {
			t.Fatal(err)
		}
		var running []int
		next := 0
		for step := 0; next < n || len(running) > 0; step++ {
			if next < n && (len(running) == 0 || rng.IntN(2) == 0) {
				j := &jobs[next]
				if a.Fits(next, j.Procs) {
					if err := a.Place(next, j.Procs); err != nil {
						t.Fatalf("%v: job %d fits but: %v", rule, next, err)
					}
					running = append(running, next)
					next++
				} else if len(running) == 0 {
					t.Fatalf("%v: job %d does not fit the empty machine", rule, next)
				}
			} else {
				k := rng.IntN(len(running))
				if err := a.Release(running[k]); err != nil {
					t.Fatal(err)
				}
				running = append(running[:k], running[k+1:]...)
			}
			checkNodes(t, m, a, jobs, ap.Demands, running, rule, step)
		}
		for i, u := range a.Use() {
			if u != (NodeUse{}) {
				t.Fatalf("%v: node %d still holds %+v at the end", rule, i, u)
			}
		}
	}
}

func checkNodes(t *testing.T, m *Machine, a *Allocator, jobs []job.Job, dem []Demand, running []int, rule Rule, step int) {
	t.Helper()
	cores := make([]int, len(m.Nodes))
	owners := make([][]int, len(m.Nodes))
	for _, id := range running {
		nodes := map[int]bool{}
		got := 0
		for _, iv := range a.Intervals(id) {
			for c := iv[0]; c <= iv[1]; c++ {
				nd := int(a.node[c])
				cores[nd]++
				got++
				if !nodes[nd] {
					owners[nd] = append(owners[nd], id)
				}
				nodes[nd] = true
			}
		}
		if got != jobs[id].Procs {
			t.Fatalf("%v step %d: job %d holds %d cores, wants %d", rule, step, id, got, jobs[id].Procs)
		}
		if d := dem[id]; d.Set {
			if s := m.shapeOf(d, jobs[id].Procs); len(nodes) != s.n {
				t.Fatalf("%v step %d: job %d on %d nodes, wants %d", rule, step, id, len(nodes), s.n)
			}
			for nd := range nodes {
				if !m.eligible(nd, d.Partition) {
					t.Fatalf("%v step %d: job %d of partition %q on node %d", rule, step, id, d.Partition, nd)
				}
			}
		}
	}
	use := a.Use()
	for nd, n := range m.Nodes {
		u := use[nd]
		if cores[nd] > n.Cores || u.Cores != cores[nd] || u.MemKB < 0 || u.GPUs < 0 || u.GPUs > n.GPUs || (n.MemoryKB > 0 && u.MemKB > n.MemoryKB) {
			t.Fatalf("%v step %d: node %d (%d cores, %d KB, %d GPUs) holds %d cores (%+v)", rule, step, nd, n.Cores, n.MemoryKB, n.GPUs, cores[nd], u)
		}
		for _, id := range owners[nd] {
			if dem[id].Exclusive && len(owners[nd]) > 1 {
				t.Fatalf("%v step %d: exclusive job %d shares node %d with %v", rule, step, id, nd, owners[nd])
			}
		}
	}
}

// fmtSscan reads the SWF number from Apply's error "job N (line ...".
func fmtSscan(s string, n *int64) (int, error) { return fmt.Sscanf(s, "job %d", n) }
