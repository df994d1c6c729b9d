// Package machine describes a machine as nodes of cores and assigns cores to jobs.
//
// It describes a machine as nodes of cores (with memory, GPUs
// and partitions) and assigns concrete core ids to the jobs a schedule
// starts (Allocator), so that outputs can say where each job ran.
//
// A machine file is YAML:
//
//	name: mysite            # optional
//	nodes:
//	  - count: 96           # nodes of this kind (default 1)
//	    cores: 32           # cores per node (required, >= 1)
//	    memory: 192G        # per node, optional (K, M, G, T; binary)
//	    gpus: 0             # per node, optional
//	    partitions: [batch] # optional
//	    prefix: cn          # names cn0, cn1, ... (default "node")
//	  - count: 8
//	    cores: 32
//	    gpus: 4
//	    partitions: [gpu]
//
// Nodes are numbered from 0 in file order; cores are numbered globally,
// node i holding the cores [Offset(i), Offset(i)+Cores) — the ids in
// allocated_resources. Policies schedule on the total core count P.
//
// Jobs may also ask for whole nodes, memory, GPUs and a partition
// (Demand, read from an import's sidecar by ReadDemands and matched to
// the jobs by Apply); an Allocator given them (SetDemands) places such a
// job only where its nodes really are free, and Fits tells the simulator
// when a job the policy started must wait for its nodes.
package machine

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// Node is one node.
type Node struct {
	Name       string
	Cores      int
	MemoryKB   int64
	GPUs       int
	Partitions []string
}

// Machine is a list of nodes.
type Machine struct {
	Name   string
	Nodes  []Node
	offset []int // first core id of each node, plus the total at the end
	// the smallest and largest node of each partition named by a node
	// ("" for all nodes), and of the nodes without partitions (any other
	// name); 0 when none
	cmin, cmax     map[string]int
	anyMin, anyMax int
}

// Procs is the total number of cores P.
func (m *Machine) Procs() int { return m.offset[len(m.Nodes)] }

// Offset is the id of node i's first core.
func (m *Machine) Offset(i int) int { return m.offset[i] }

// MaxCores is the largest number of cores of a node.
func (m *Machine) MaxCores() int {
	c := 0
	for _, n := range m.Nodes {
		c = max(c, n.Cores)
	}
	return c
}

// Uniform returns a machine of n nodes of c cores each.
func Uniform(n, c int) (*Machine, error) {
	if n < 1 || c < 1 {
		return nil, fmt.Errorf("machine: %d nodes of %d cores: both must be at least 1", n, c)
	}
	m := &Machine{Nodes: make([]Node, n)}
	for i := range m.Nodes {
		m.Nodes[i] = Node{Name: "node" + strconv.Itoa(i), Cores: c}
	}
	return m, m.index()
}

// maxProcs bounds the total core count (a machine file is input).
const maxProcs = 1 << 26

func (m *Machine) index() error {
	m.cmin, m.cmax = map[string]int{}, map[string]int{}
	note := func(p string, c int) {
		if v := m.cmin[p]; v == 0 || c < v {
			m.cmin[p] = c
		}
		m.cmax[p] = max(m.cmax[p], c)
	}
	for _, n := range m.Nodes {
		note("", n.Cores)
		for _, p := range n.Partitions {
			note(p, n.Cores)
		}
		if len(n.Partitions) == 0 {
			if m.anyMin == 0 || n.Cores < m.anyMin {
				m.anyMin = n.Cores
			}
			m.anyMax = max(m.anyMax, n.Cores)
		}
	}
	// nodes without partitions take every partition's jobs
	for p := range m.cmin {
		if m.anyMin > 0 {
			m.cmin[p] = min(m.cmin[p], m.anyMin)
			m.cmax[p] = max(m.cmax[p], m.anyMax)
		}
	}
	m.offset = make([]int, len(m.Nodes)+1)
	for i, n := range m.Nodes {
		m.offset[i+1] = m.offset[i] + n.Cores
		if m.offset[i+1] > maxProcs {
			return fmt.Errorf("machine: more than %d cores", maxProcs)
		}
	}
	return nil
}

// fileNode is one entry of the machine file's nodes list.
type fileNode struct {
	Count      *int     `yaml:"count"`
	Cores      int      `yaml:"cores"`
	Memory     string   `yaml:"memory"`
	GPUs       int      `yaml:"gpus"`
	Partitions []string `yaml:"partitions"`
	Prefix     string   `yaml:"prefix"`
}

type file struct {
	Name  string     `yaml:"name"`
	Nodes []fileNode `yaml:"nodes"`
}

// Load reads a machine file.
func Load(path string) (*Machine, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(data, path)
}

// Parse reads a machine file's content; name is used in errors
// ("FILE:LINE: ..." for YAML errors, "FILE: nodes[i]: ..." for values).
func Parse(data []byte, name string) (*Machine, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, fmt.Errorf("%s: %v", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(root.Content) == 0 {
		return nil, fmt.Errorf("%s: empty machine file: expected a nodes: list", name)
	}
	if err := wholeNumbers(root.Content[0]); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	var f file
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&f); err != nil {
		var te *yaml.TypeError
		if errors.As(err, &te) && len(te.Errors) > 0 {
			msg := te.Errors[0]
			if i := strings.Index(msg, " in type machine."); i >= 0 {
				msg = msg[:i] + " (known: name; nodes: count, cores, memory, gpus, partitions, prefix)"
			}
			return nil, fmt.Errorf("%s: %s", name, msg)
		}
		return nil, fmt.Errorf("%s: %v", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(f.Nodes) == 0 {
		return nil, fmt.Errorf("%s: nodes: expected at least one entry (count, cores, ...)", name)
	}
	m := &Machine{Name: f.Name}
	total := 0
	for i, fn := range f.Nodes {
		where := fmt.Sprintf("%s: nodes[%d]", name, i)
		count := 1
		if fn.Count != nil {
			count = *fn.Count
		}
		switch {
		case count < 1:
			return nil, fmt.Errorf("%s: count: expected at least 1, found %d", where, count)
		case fn.Cores < 1:
			return nil, fmt.Errorf("%s: cores: expected at least 1, found %d", where, fn.Cores)
		case fn.GPUs < 0:
			return nil, fmt.Errorf("%s: gpus: expected 0 or more, found %d", where, fn.GPUs)
		}
		total += count
		if total > maxProcs {
			return nil, fmt.Errorf("%s: count: more than %d nodes", where, maxProcs)
		}
		var mem int64
		if fn.Memory != "" {
			v, err := parseSize(fn.Memory)
			if err != nil {
				return nil, fmt.Errorf("%s: memory: %v", where, err)
			}
			mem = v
		}
		prefix := fn.Prefix
		if prefix == "" {
			prefix = "node"
		}
		for k := 0; k < count; k++ {
			m.Nodes = append(m.Nodes, Node{Name: prefix + strconv.Itoa(len(m.Nodes)), Cores: fn.Cores,
				MemoryKB: mem, GPUs: fn.GPUs, Partitions: fn.Partitions})
		}
	}
	if err := m.index(); err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	return m, nil
}

// wholeNumbers checks that count, cores and gpus of every nodes entry are
// YAML integers: yaml.v3 would truncate "cores: 2.5" to 2 without a word.
func wholeNumbers(doc *yaml.Node) error {
	if doc.Kind != yaml.MappingNode {
		return nil // the decoder names the wrong shape
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != "nodes" || doc.Content[i+1].Kind != yaml.SequenceNode {
			continue
		}
		for _, n := range doc.Content[i+1].Content {
			if n.Kind != yaml.MappingNode {
				continue
			}
			for k := 0; k+1 < len(n.Content); k += 2 {
				key, v := n.Content[k].Value, n.Content[k+1]
				if (key == "count" || key == "cores" || key == "gpus") && v.Kind == yaml.ScalarNode && v.ShortTag() != "!!int" {
					return fmt.Errorf("line %d: %s: expected a whole number, found %s", v.Line, key, v.Value)
				}
			}
		}
	}
	return nil
}

// parseSize parses "192G", "512M", "1T", "1048576K" or a plain number of
// KB, into KB.
func parseSize(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.TrimSpace(s), "B"), "b")
	shift := 0
	if n := len(t); n > 0 {
		switch t[n-1] {
		case 'K', 'k':
			shift = 0
			t = t[:n-1]
		case 'M', 'm':
			shift = 10
			t = t[:n-1]
		case 'G', 'g':
			shift = 20
			t = t[:n-1]
		case 'T', 't':
			shift = 30
			t = t[:n-1]
		}
	}
	v, err := strconv.ParseInt(t, 10, 64)
	if err != nil || v < 0 || v > 1<<40>>shift {
		return 0, fmt.Errorf("expected a size such as 192G or 512M, found %q", s)
	}
	return v << shift, nil
}
