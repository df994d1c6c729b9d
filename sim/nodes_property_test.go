package sim_test

import (
	"cmp"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/machine"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
)

// TestNodesRandomWorkloads runs policies on random workloads with random
// node-level requests (whole nodes, memory, GPUs, partitions) on random
// mixed machines, under each allocation rule, in kill and no-kill mode,
// and audits every schedule: the usual checks with the cores (no core
// held twice, each job holds its size), a policy start never after the
// launch (Start − NodeWait ≥ Submit), and, replayed from the outcomes and
// the cores alone, that no node ever holds more cores, memory or GPUs
// than it has, that a job runs in its partition on as many nodes as it
// asked, and that an exclusive job shares none of its nodes.
func TestNodesRandomWorkloads(t *testing.T) {
	seeds := 120
	if longtest.Short() {
		seeds = 4
	}
	allWaited := 0
	pols := []string{"fcfs", "easy", "conservative", "slack:awt=100", "lookahead", "multiqueue"}
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		rng := rand.New(rand.NewPCG(seed, 19))
		var y strings.Builder
		y.WriteString("nodes:\n")
		for k := 0; k < 1+rng.IntN(3); k++ {
			fmt.Fprintf(&y, "  - count: %d\n    cores: %d\n    memory: %dG\n    gpus: %d\n    partitions: [%s]\n",
				1+rng.IntN(5), []int{1, 2, 4, 8}[rng.IntN(4)], 4+rng.IntN(29), rng.IntN(3), []string{"a", "b", "a, b"}[rng.IntN(3)])
		}
		m, err := machine.Parse([]byte(y.String()), "random.yaml")
		if err != nil {
			t.Fatal(err)
		}
		P := m.Procs()
		n := 120
		jobs := make([]job.Job, n)
		dem := map[int64]machine.Demand{}
		var at int64
		for i := range jobs {
			at += int64(rng.IntN(40))
			run := int64(1 + rng.IntN(300))
			est := max(1, run+int64(rng.IntN(200))-50)
			jobs[i] = job.Job{Request: job.Request{ID: i, SWFID: int64(i + 1), Submit: at, Procs: 1 + rng.IntN(min(P, 12)), Estimate: est}, Runtime: run}
			if rng.IntN(4) == 0 {
				continue // cores only
			}
			d := machine.Demand{Set: true, Partition: []string{"", "a", "b"}[rng.IntN(3)], Exclusive: rng.IntN(4) == 0}
			if rng.IntN(2) == 0 {
				d.Nodes = 1 + rng.IntN(3)
			}
			d.MemKB = int64(rng.IntN(3)) * int64(rng.IntN(16)) << 20
			d.GPUs = rng.IntN(2) * rng.IntN(3)
			dem[int64(i+1)] = d
		}
		var ap *machine.Applied
		for {
			js := slices.Clone(jobs)
			if ap, err = machine.Apply(m, js, dem); err == nil {
				jobs = js
				break
			}
			var sw int64
			if _, e := fmt.Sscanf(err.Error(), "job %d", &sw); e != nil {
				t.Fatal(err)
			}
			delete(dem, sw)
		}
		for _, noKill := range []bool{false, true} {
			for _, rule := range []machine.Rule{machine.FirstFit, machine.BestFit, machine.Contiguous} {
				for _, ps := range pols {
					s, err := policy.New(ps, P)
					if err != nil {
						t.Fatal(err)
					}
					a := machine.NewAllocator(m, rule, n)
					if err := a.SetDemands(ap.Demands); err != nil {
						t.Fatal(err)
					}
					where := fmt.Sprintf("seed %d %s %v noKill=%v", seed, ps, rule, noKill)
					res, err := sim.Run(jobs, s, sim.Options{Procs: P, NoKill: noKill, Placer: a})
					if err != nil {
						t.Fatalf("%s: %v", where, err)
					}
					rep := audit.Audit(res.Outcomes, audit.Options{Procs: P, Kill: !noKill, KnownRuntime: true, FCFS: policy.InArrivalOrder(s), Expect: n, Cores: a.Intervals})
					if !rep.OK() {
						t.Fatalf("%s: %s", where, rep.String())
					}
					if bad := machine.AuditNodes(m, res.Outcomes, ap.Demands, a.Intervals); bad != nil {
						t.Fatalf("%s: node audit: %v", where, bad)
					}
					waited := replayNodes(t, where, m, res.Outcomes, ap.Demands, a)
					if waited != res.NodeWaited {
						t.Fatalf("%s: %d jobs waited for nodes, the result says %d", where, waited, res.NodeWaited)
					}
					allWaited += waited
				}
			}
		}
	}
	if allWaited == 0 {
		t.Error("no job ever waited for its nodes: the test does not exercise the node-level path")
	}
}

// replayNodes checks the node-level rules from the outcomes and the
// cores; it returns the number of jobs that waited for their nodes.
func replayNodes(t *testing.T, where string, m *machine.Machine, outs []job.Outcome, dem []machine.Demand, a *machine.Allocator) int {
	t.Helper()
	nodeOf := func(c int) int {
		for i := range m.Nodes {
			if c < m.Offset(i)+m.Nodes[i].Cores {
				return i
			}
		}
		return -1
	}
	type ev struct {
		t    int64
		take bool
		id   int
	}
	var evs []ev
	waited := 0
	for _, o := range outs {
		if o.Start-o.NodeWait < o.Submit || o.NodeWait < 0 {
			t.Fatalf("%s: job %d started by the policy at %d, submitted at %d", where, o.SWFID, o.Start-o.NodeWait, o.Submit)
		}
		if o.NodeWait > 0 {
			waited++
		}
		if o.End > o.Start {
			evs = append(evs, ev{o.Start, true, o.ID}, ev{o.End, false, o.ID})
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
		return cmp.Compare(x.id, y.id)
	})
	cores := make([]int, len(m.Nodes))
	mem := make([]int64, len(m.Nodes))
	gpus := make([]int, len(m.Nodes))
	jobsOn := make([]map[int]bool, len(m.Nodes))
	for i := range jobsOn {
		jobsOn[i] = map[int]bool{}
	}
	for _, e := range evs {
		d := dem[e.id]
		per := map[int]int{}
		for _, iv := range a.Intervals(e.id) {
			for c := iv[0]; c <= iv[1]; c++ {
				per[nodeOf(c)]++
			}
		}
		sign := 1
		if !e.take {
			sign = -1
		}
		for nd, k := range per {
			node := m.Nodes[nd]
			var mm int64
			var g int
			if d.Set {
				N := len(per)
				mm, g = (d.MemKB+int64(N)-1)/int64(N), (d.GPUs+N-1)/N
				if d.Exclusive {
					mm, g = node.MemoryKB, node.GPUs
				}
				if node.MemoryKB == 0 {
					mm = 0
				}
				if e.take && d.Partition != "" && len(node.Partitions) > 0 && !slices.Contains(node.Partitions, d.Partition) {
					t.Fatalf("%s: job %d of partition %s on node %d %v", where, outs[e.id].SWFID, d.Partition, nd, node.Partitions)
				}
				if e.take && d.Nodes > 0 && !d.Exclusive && N != min(d.Nodes, outs[e.id].Procs) {
					t.Fatalf("%s: job %d on %d nodes, asked %d", where, outs[e.id].SWFID, N, d.Nodes)
				}
			}
			cores[nd] += sign * k
			mem[nd] += int64(sign) * mm
			gpus[nd] += sign * g
			if e.take {
				for other := range jobsOn[nd] {
					if dem[other].Exclusive || d.Exclusive {
						t.Fatalf("%s: jobs %d and %d share node %d, one exclusive", where, outs[other].SWFID, outs[e.id].SWFID, nd)
					}
				}
				jobsOn[nd][e.id] = true
			} else {
				delete(jobsOn[nd], e.id)
			}
			if cores[nd] > node.Cores || gpus[nd] > node.GPUs || (node.MemoryKB > 0 && mem[nd] > node.MemoryKB) {
				t.Fatalf("%s: at %d node %d (%d cores, %d KB, %d GPUs) holds %d cores, %d KB, %d GPUs", where, e.t, nd, node.Cores, node.MemoryKB, node.GPUs, cores[nd], mem[nd], gpus[nd])
			}
		}
	}
	return waited
}
