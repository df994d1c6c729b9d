package simulate

import (
	"fmt"
	"os"
	"strings"

	"github.com/backfill-hpc/backfill/machine"
	"github.com/backfill-hpc/backfill/workload"
	deadlinewl "github.com/backfill-hpc/backfill/workload/deadline"
	"github.com/backfill-hpc/backfill/workload/estimate"
)

// TraceOptions say how a trace is read and prepared for simulation
// (LoadTrace). Errors name each setting by the command-line flag that sets
// it (--estimate, --mem, --mem-per-proc, --load), as the user gave it there.
type TraceOptions struct {
	// Ingest are package workload's reading options (Procs,
	// EstimateFallback, Clamp, Lenient, MemMissing); LoadTrace sets its
	// Estimate, Mem, MemCap and MemPerProc from the fields below.
	Ingest workload.Options
	// Estimate is the runtime estimate: user (the trace's requested
	// time, also for ""), exact (= runtime), or a model of package
	// workload/estimate applied to the user estimates with Seed.
	Estimate string
	Seed     uint64
	// Mem is the machine memory (workload.ParseMem, or auto: from the
	// trace), MemPerProc the same per processor; one of them, or neither
	// for processors only.
	Mem, MemPerProc string
	// Load, when > 0, scales the inter-arrival times to this offered load
	// (workload.ScaleLoad).
	Load float64
	// Priorities is a priority spec (workload.ApplyPriorities); "" or
	// none for none.
	Priorities string
}

// ingestEstimate is the estimate option given to package workload: user
// and exact are ingestion rules; the other models are applied afterwards
// to the user estimates (package workload/estimate).
func ingestEstimate(est string) string {
	if est == "exact" || est == "" {
		return est
	}
	return "user"
}

// memOptions parses Mem and MemPerProc into w.
func (o TraceOptions) memOptions(w *workload.Options) error {
	if o.Mem != "" && o.MemPerProc != "" {
		return fmt.Errorf("--mem and --mem-per-proc: give one of them")
	}
	w.Mem = o.Mem != "" || o.MemPerProc != ""
	if o.Mem != "" && o.Mem != "auto" {
		v, err := workload.ParseMem(o.Mem)
		if err != nil {
			return fmt.Errorf("--mem: %w (or auto)", err)
		}
		w.MemCap = v
	}
	if o.MemPerProc != "" {
		v, err := workload.ParseMem(o.MemPerProc)
		if err != nil {
			return fmt.Errorf("--mem-per-proc: %w", err)
		}
		w.MemPerProc = v
	}
	return nil
}

// emptyWhy says why a trace has no jobs: no records at all, or every
// record skipped (the reasons are in the trace's rules).
func emptyWhy(tr *workload.Trace) string {
	for _, r := range tr.Rules {
		if strings.HasPrefix(r, "skipped:") && r != "skipped: none" {
			return "every record was skipped; " + r
		}
	}
	return "the file holds no job records"
}

// LoadTrace reads the SWF trace at path (the embedded default when path
// is empty) as o says, and prepares it for simulation: the offered load,
// the estimate model and the priorities, each noted in the trace's rules.
// A trace without jobs is an error that says why it has none.
func LoadTrace(path string, o TraceOptions) (*workload.Trace, error) {
	model := ingestEstimate(o.Estimate) != o.Estimate
	if model {
		if _, err := estimate.Parse(o.Estimate); err != nil {
			return nil, fmt.Errorf("--estimate: %w", err)
		}
	}
	opts := o.Ingest
	opts.Estimate = ingestEstimate(o.Estimate)
	if err := o.memOptions(&opts); err != nil {
		return nil, err
	}
	var tr *workload.Trace
	var err error
	if path == "" {
		tr, err = workload.Builtin(opts)
	} else {
		tr, err = workload.Load(path, opts)
	}
	if err != nil {
		return nil, err
	}
	if len(tr.Jobs) == 0 {
		return nil, fmt.Errorf("%s: no jobs to simulate (%s): expected SWF records, one job per line (see docs/workload.md)", tr.Name, emptyWhy(tr))
	}
	if o.Load != 0 {
		if _, err := workload.ScaleLoad(tr, o.Load); err != nil {
			return nil, fmt.Errorf("--load: %w", err)
		}
	}
	if model {
		notes, err := estimate.Apply(tr.Jobs, o.Estimate, o.Seed)
		if err != nil {
			return nil, fmt.Errorf("--estimate: %w", err)
		}
		tr.Rules = append(tr.Rules, notes...)
	}
	if o.Priorities != "" && o.Priorities != "none" {
		if err := workload.ApplyPriorities(tr.Jobs, o.Priorities); err != nil {
			return nil, err
		}
		tr.Rules = append(tr.Rules, "priorities: "+o.Priorities)
	}
	return tr, nil
}

// Nodes is the node-level machine of a run: which nodes and cores the
// started jobs are given, by which rule, and the jobs' node-level requests
// (docs/simulator.md). Its fields up to Trace are settings, named for the
// command-line flags that set them (and that its errors name); Resolve
// and Apply fill in the rest. The zero value is a machine of processors
// only.
type Nodes struct {
	// File is a machine file (machine.Load), CoresPerNode the uniform
	// case without one (nodes of this many cores); one or neither.
	File         string
	CoresPerNode int
	// Alloc is the core selection rule (a key of machine.Rules);
	// AllocGiven is whether the user chose it (it then needs a machine).
	Alloc      string
	AllocGiven bool
	// Sidecar is the node-level requests' CSV (machine.ReadDemands):
	// "" for the one beside an imported Trace (TRACE.sidecar.csv beside
	// TRACE.swf or TRACE.swf.gz) when present, "none" for none.
	Sidecar string
	Trace   string

	// Machine and Rule are the machine and its rule, nil without one.
	Machine *machine.Machine
	Rule    machine.Rule
	// Demands are the jobs' node-level requests by job ID (Options.Demands).
	Demands []machine.Demand
}

// errAlloc refuses an unknown allocation rule.
func errAlloc(alloc string) error {
	return fmt.Errorf("--alloc: expected firstfit, bestfit or contiguous, found %q", alloc)
}

// Resolve reads the machine file and the allocation rule, and returns the
// machine size P to read the trace with: procs (0 for the trace's own),
// or the machine file's core count, which an explicit procs (procsGiven)
// must equal.
func (n *Nodes) Resolve(procs int, procsGiven bool) (int, error) {
	rule, ok := machine.Rules[n.Alloc]
	switch {
	case n.File != "":
		m, err := machine.Load(n.File)
		if err != nil {
			return 0, err
		}
		if !ok {
			return 0, errAlloc(n.Alloc)
		}
		if procsGiven && procs != m.Procs() {
			return 0, fmt.Errorf("--procs %d disagrees with the machine file %s (%d cores)", procs, n.File, m.Procs())
		}
		if n.CoresPerNode > 0 {
			return 0, fmt.Errorf("--cores-per-node and --machine: give one")
		}
		n.Machine, n.Rule = m, rule
		return m.Procs(), nil
	case n.CoresPerNode > 0:
		if !ok {
			return 0, errAlloc(n.Alloc)
		}
		n.Rule = rule
	case n.AllocGiven:
		return 0, fmt.Errorf("--alloc needs --machine or --cores-per-node")
	}
	return procs, nil
}

// Apply builds the uniform machine of CoresPerNode for tr's P processors,
// notes the machine in tr's rules and applies the node-level requests of
// the sidecar to tr's jobs (Demands). Call it after Resolve.
func (n *Nodes) Apply(tr *workload.Trace) error {
	name := n.File
	if n.CoresPerNode > 0 {
		if tr.Procs%n.CoresPerNode != 0 {
			return fmt.Errorf("--cores-per-node %d: the machine's %d processors are not a whole number of nodes", n.CoresPerNode, tr.Procs)
		}
		var err error
		if n.Machine, err = machine.Uniform(tr.Procs/n.CoresPerNode, n.CoresPerNode); err != nil {
			return err
		}
		name = fmt.Sprintf("--cores-per-node %d", n.CoresPerNode)
	}
	if n.Machine != nil {
		tr.Rules = append(tr.Rules, fmt.Sprintf("machine: %s: %d nodes, %d cores; cores assigned by rule %s", name, len(n.Machine.Nodes), n.Machine.Procs(), n.Rule))
	}
	return n.applySidecar(tr)
}

// sidecarPath is the sidecar to read, "" for none.
func (n *Nodes) sidecarPath() (string, error) {
	switch {
	case n.Sidecar == "none":
		return "", nil
	case n.Sidecar != "" && n.Machine == nil:
		return "", fmt.Errorf("--sidecar needs --machine or --cores-per-node (node-level requests need nodes)")
	case n.Machine == nil || n.Sidecar != "":
		return n.Sidecar, nil
	}
	base := strings.TrimSuffix(strings.TrimSuffix(n.Trace, ".gz"), ".swf")
	if n.Trace == "" || base == strings.TrimSuffix(n.Trace, ".gz") {
		return "", nil
	}
	if _, err := os.Stat(base + ".sidecar.csv"); err != nil {
		return "", nil
	}
	return base + ".sidecar.csv", nil
}

// applySidecar reads the node-level requests of the sidecar and applies
// them to tr's jobs.
func (n *Nodes) applySidecar(tr *workload.Trace) error {
	path, err := n.sidecarPath()
	if path == "" || err != nil {
		return err
	}
	dem, err := machine.ReadDemands(path)
	if err != nil {
		return err
	}
	ap, err := machine.Apply(n.Machine, tr.Jobs, dem)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	n.Demands = ap.Demands
	tr.Rules = append(tr.Rules, fmt.Sprintf("node-level requests: %s: %d jobs (%d exclusive, %d sized to their whole nodes); a job the policy starts waits until its nodes are free (docs/simulator.md)",
		path, ap.Jobs, ap.Exclusive, ap.Resized))
	return nil
}

// ApplyDeadlines makes tr a deadline workload (package workload/deadline)
// of the spec dl, with the EASY response times of tr (EASYResponses), and
// notes how in tr's rules; dl "" leaves tr as it is.
func ApplyDeadlines(tr *workload.Trace, dl string) error {
	if dl == "" {
		return nil
	}
	sp, err := deadlinewl.ParseSpec(dl)
	if err != nil {
		return fmt.Errorf("--deadlines: %w", err)
	}
	b, err := deadlinewl.Build(tr.Jobs, tr.Procs, sp, EASYResponses)
	if err != nil {
		return fmt.Errorf("--deadlines: %w", err)
	}
	tr.Jobs = b.Jobs
	tr.Rules = append(tr.Rules, b.Notes...)
	return nil
}

// DefaultRunNote explains the default run of `backfill simulate` (no
// --trace, no --policy) to a newcomer: what it compares, and why FCFS's
// waits are days.
func DefaultRunNote(tr *workload.Trace) []string {
	return []string{
		fmt.Sprintf("note: the default run: FCFS, EASY and conservative backfilling on the embedded %s trace (%d jobs, %d processors).", workload.BuiltinName, len(tr.Jobs), tr.Procs),
		"note: FCFS waits are days: a wide job at the head of the queue keeps processors idle until enough are free, every job behind it waits,",
		"note: and at this trace's load the backlog takes days to drain. Backfilling starts later jobs on idle processors when that delays",
		"note: neither the head job (EASY) nor any earlier job (conservative). Other runs: --trace, --policy; --human prints days and hours.",
	}
}
