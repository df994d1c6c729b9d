package machine

import (
	"encoding/csv"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"

	"github.com/backfill-hpc/backfill/job"
)

// Demand is what a job asks of the nodes beyond its core count, from the
// sidecar of an imported trace (ReadDemands): the number of nodes,
// whether it wants them whole, its memory and GPUs, its partition.
//
// Placement rules (docs/simulator.md, "Node-level requests"): a job with
// a demand runs on exactly N nodes — Nodes when known, else the fewest
// nodes of its partition that hold its cores, ⌈k / the largest eligible
// node's cores⌉; N is at most k. An exclusive job takes N whole free nodes
// (all their cores, memory and GPUs) of one size C, the smallest node
// size of its partition, and counts N × C cores for the policies (Apply).
// Any other job takes ⌈k/N⌉ cores on each of N nodes that have that many
// free (the last nodes one fewer when N does not divide k: the first k mod
// N nodes take ⌈k/N⌉, the others ⌊k/N⌋), with ⌈MemKB/N⌉ free memory and
// ⌈GPUs/N⌉ free GPUs on each. A node whose memory the machine file does
// not give has its memory not modelled (any request fits); a node's GPUs
// are 0 unless given.
type Demand struct {
	// Set is false for a job without a demand (not in the sidecar): it
	// asks for cores only and may spread over any nodes, as without a
	// sidecar.
	Set bool
	// Nodes is the number of nodes, 0 when unknown.
	Nodes int
	// Exclusive asks for whole nodes.
	Exclusive bool
	// MemKB is the job's total memory in KB, 0 when none or unknown.
	MemKB int64
	// GPUs is the job's total number of GPUs.
	GPUs int
	// Partition is the partition's name, "" for any node.
	Partition string
	// ReqCPUs and AllocCPUs are the sidecar's counts (-1 unknown), from
	// which Apply infers exclusivity.
	ReqCPUs, AllocCPUs int64
}

// ReadDemands reads the sidecar CSV that `backfill import` writes beside
// an SWF file (columns job_number, partition, req_nodes, alloc_nodes,
// req_cpus, alloc_cpus, gpus, req_mem_kb; an optional exclusive column,
// 1 or 0, as the import writes it) and returns the demands by SWF job
// number. Errors name the file, the line and the field.
func ReadDemands(path string) (map[int64]Demand, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return ParseDemands(f, path)
}

// ParseDemands is ReadDemands on a reader (name for errors).
func ParseDemands(r io.Reader, name string) (map[int64]Demand, error) {
	cr := csv.NewReader(r)
	cr.FieldsPerRecord = -1
	cr.ReuseRecord = true
	head, err := cr.Read()
	if err != nil {
		return nil, fmt.Errorf("%s:1: expected the sidecar header (job_number,…): %v", name, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	need := []string{"job_number", "partition", "req_nodes", "alloc_nodes", "req_cpus", "alloc_cpus", "gpus", "req_mem_kb"}
	for _, c := range need {
		if _, ok := col[c]; !ok {
			return nil, fmt.Errorf("%s:1: the header has no column %q (want the sidecar of backfill import)", name, c)
		}
	}
	ncol := len(head)
	out := map[int64]Demand{}
	for line := 2; ; line++ {
		rec, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %v", name, line, err)
		}
		if len(rec) < ncol {
			return nil, fmt.Errorf("%s:%d: expected %d fields, found %d", name, line, ncol, len(rec))
		}
		num := func(c string) (int64, error) {
			v, err := strconv.ParseInt(rec[col[c]], 10, 64)
			if err != nil || v < -1 {
				return 0, fmt.Errorf("%s:%d: %s: expected a count (-1 unknown), found %q", name, line, c, rec[col[c]])
			}
			return v, nil
		}
		var v [8]int64
		for i, c := range need {
			if c == "partition" {
				continue
			}
			if v[i], err = num(c); err != nil {
				return nil, err
			}
		}
		d := Demand{Set: true, Partition: rec[col["partition"]], ReqCPUs: v[4], AllocCPUs: v[5]}
		if v[2] > 0 {
			d.Nodes = int(min(v[2], maxProcs))
		} else if v[3] > 0 {
			d.Nodes = int(min(v[3], maxProcs))
		}
		d.GPUs = int(min(max(v[6], 0), maxProcs))
		d.MemKB = max(v[7], 0)
		if c, ok := col["exclusive"]; ok {
			switch rec[c] {
			case "1":
				d.Exclusive = true
			case "0", "":
			default:
				return nil, fmt.Errorf("%s:%d: exclusive: expected 1 or 0, found %q", name, line, rec[c])
			}
		}
		if _, dup := out[v[0]]; dup {
			return nil, fmt.Errorf("%s:%d: job_number: %d listed twice", name, line, v[0])
		}
		out[v[0]] = d
	}
	return out, nil
}

// eligible reports whether node n may run a job of partition p: a job
// without a partition, or a node without partitions, matches any.
func (m *Machine) eligible(n int, p string) bool {
	parts := m.Nodes[n].Partitions
	return p == "" || len(parts) == 0 || slices.Contains(parts, p)
}

// Applied is the result of Apply.
type Applied struct {
	// Demands are the demands by job ID (Set false for jobs without one).
	Demands []Demand
	// Jobs with a demand; Exclusive of them asking for whole nodes (given
	// or inferred); Resized the exclusive jobs whose size became N × C.
	Jobs, Exclusive, Resized int
}

// Apply matches the demands (by SWF job number) to jobs, on machine m:
// it infers exclusivity (a job given more CPUs than it asked, all the
// cores of its nodes: AllocCPUs = N × C > ReqCPUs), sets an exclusive
// job's size to N × C (what it holds, and what a scheduler counts), and
// checks that every job can be placed on the empty machine. Errors name
// the job (SWF number and line).
func Apply(m *Machine, jobs []job.Job, dem map[int64]Demand) (*Applied, error) {
	ap := &Applied{Demands: make([]Demand, len(jobs))}
	type key struct {
		d Demand
		k int
	}
	ok := map[key]bool{}
	for i := range jobs {
		j := &jobs[i]
		d, found := dem[j.SWFID]
		if !found {
			continue
		}
		ap.Jobs++
		C, any := m.minCores(d.Partition)
		if !any {
			return nil, fmt.Errorf("job %d (line %d): partition %q: no node of the machine file is in it", j.SWFID, j.Line, d.Partition)
		}
		if !d.Exclusive && d.Nodes > 0 && d.AllocCPUs > 0 && d.AllocCPUs > d.ReqCPUs && d.AllocCPUs == int64(d.Nodes)*int64(C) {
			d.Exclusive = true
		}
		if d.Exclusive {
			ap.Exclusive++
			if d.Nodes < 1 {
				d.Nodes = (j.Procs + C - 1) / C
			}
			if size := d.Nodes * C; size != j.Procs {
				j.Procs = size
				ap.Resized++
			}
		}
		d.ReqCPUs, d.AllocCPUs = 0, 0 // not needed beyond here; equal demands share a check
		ap.Demands[i] = d
		kk := key{d, j.Procs}
		if _, seen := ok[kk]; !seen {
			ok[kk] = m.placeableEmpty(d, j.Procs)
		}
		if !ok[kk] {
			return nil, fmt.Errorf("job %d (line %d): %s: more than the machine file's nodes can hold even when all are free", j.SWFID, j.Line, d.describe(m, j.Procs))
		}
	}
	return ap, nil
}

// minCores is the smallest core count of the nodes eligible for partition
// p; false when none is.
func (m *Machine) minCores(p string) (int, bool) {
	c, ok := m.cmin[p]
	if !ok {
		c = m.anyMin
	}
	return c, c > 0
}

// maxCores is the largest core count of the nodes eligible for p.
func (m *Machine) maxCores(p string) int {
	if c, ok := m.cmax[p]; ok {
		return c
	}
	return m.anyMax
}

// shape is a demand's per-node request for k cores: N nodes, per node at
// most cpn cores, mem KB, gpus GPUs; whole nodes of size c when exclusive.
type shape struct {
	n, cpn, gpus int
	mem          int64
	excl         bool
	c            int // exclusive: node size
}

func (m *Machine) shapeOf(d Demand, k int) shape {
	var s shape
	if d.Exclusive {
		c, _ := m.minCores(d.Partition)
		s = shape{n: k / c, cpn: c, excl: true, c: c}
	} else {
		n := d.Nodes
		if n < 1 {
			big := max(m.maxCores(d.Partition), 1)
			n = (k + big - 1) / big
		}
		n = min(n, k)
		s = shape{n: n, cpn: (k + n - 1) / n}
	}
	if s.n > 0 {
		s.mem = (d.MemKB + int64(s.n) - 1) / int64(s.n)
		s.gpus = (d.GPUs + s.n - 1) / s.n
	}
	return s
}

func (d Demand) describe(m *Machine, k int) string {
	s := m.shapeOf(d, k)
	p := "any partition"
	if d.Partition != "" {
		p = "partition " + strconv.Quote(d.Partition)
	}
	if s.excl {
		return fmt.Sprintf("%d whole nodes of %d cores (%s)", s.n, s.c, p)
	}
	return fmt.Sprintf("%d nodes with %d cores, %d KB of memory and %d GPUs each (%s)", s.n, s.cpn, s.mem, s.gpus, p)
}

// placeableEmpty reports whether a job of demand d and k cores fits the
// empty machine.
func (m *Machine) placeableEmpty(d Demand, k int) bool {
	s := m.shapeOf(d, k)
	if s.n < 1 {
		return false
	}
	found := 0
	for n := range m.Nodes {
		nd := &m.Nodes[n]
		if m.eligible(n, d.Partition) && s.fitsNode(nd, nd.Cores, nd.MemoryKB, nd.GPUs) {
			found++
		}
	}
	return found >= s.n
}

// fitsNode reports whether node nd, with free cores, memory and GPUs,
// can take its share of a job of shape s (exclusive: nd wholly free).
func (s *shape) fitsNode(nd *Node, cores int, mem int64, gpus int) bool {
	if s.excl && (nd.Cores != s.c || cores != nd.Cores || mem != nd.MemoryKB || gpus != nd.GPUs) {
		return false
	}
	return cores >= s.cpn && (nd.MemoryKB == 0 || mem >= s.mem) && gpus >= s.gpus
}
