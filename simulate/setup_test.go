package simulate_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/simulate"
	"github.com/backfill-hpc/backfill/workload"
)

// swf is two jobs of 4 processors, 100 s each, submitted 100 s apart on
// a machine of 8 processors, requesting 200 s: offered load
// (4·100 + 4·100) / (8 · 100) = 1.
const swf = "; MaxProcs: 8\n" +
	"1 0 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n" +
	"2 100 0 100 4 -1 -1 4 200 -1 1 1 1 -1 1 -1 -1 -1\n"

func write(t *testing.T, dir, name, text string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestLoadTrace: the estimate models, the load scaling and the priorities
// are applied as worked by hand, and the setting at fault is named.
func TestLoadTrace(t *testing.T) {
	path := write(t, t.TempDir(), "t.swf", swf)
	tr, err := simulate.LoadTrace(path, simulate.TraceOptions{Estimate: "double", Load: 2, Priorities: "every:2"})
	if err != nil {
		t.Fatal(err)
	}
	// double: 2 × the requested 200 s; load 2 halves the span: 100 → 50
	if tr.Procs != 8 || len(tr.Jobs) != 2 || tr.Jobs[0].Estimate != 400 || tr.Jobs[1].Submit != 50 || tr.Jobs[1].Estimate != 400 {
		t.Errorf("P %d, jobs %+v", tr.Procs, tr.Jobs)
	}
	if r := strings.Join(tr.Rules, "\n"); !strings.Contains(r, "priorities: every:2") {
		t.Errorf("rules lack the priorities:\n%s", r)
	}
	tr, err = simulate.LoadTrace(path, simulate.TraceOptions{Estimate: "exact", Ingest: workload.Options{Procs: 16}})
	if err != nil || tr.Procs != 16 || tr.Jobs[0].Estimate != 100 {
		t.Errorf("exact on 16: %v %+v", err, tr)
	}
	for o, want := range map[*simulate.TraceOptions]string{
		{Estimate: "factor:0.5"}:             "--estimate: ",
		{Mem: "1G", MemPerProc: "1M"}:        "--mem and --mem-per-proc: give one of them",
		{Mem: "lots"}:                        "--mem: ",
		{MemPerProc: "lots"}:                 "--mem-per-proc: ",
		{Priorities: "every:0"}:              `priorities "every:0"`,
		{Estimate: "user", Load: -1}:         "--load: ",
		{Ingest: workload.Options{Procs: 2}}: path + ": no jobs to simulate (every record was skipped; skipped: ",
	} {
		if _, err := simulate.LoadTrace(path, *o); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v: error %v, want %q…", *o, err, want)
		}
	}
	empty := write(t, t.TempDir(), "e.swf", "; MaxProcs: 8\n")
	if _, err := simulate.LoadTrace(empty, simulate.TraceOptions{}); err == nil || err.Error() != empty+": no jobs to simulate (the file holds no job records): expected SWF records, one job per line (see docs/workload.md)" {
		t.Errorf("empty trace: %v", err)
	}
}

// TestNodes: a machine file sets P and must agree with an explicit one;
// the uniform machine needs a whole number of nodes; the sidecar beside an
// imported trace is found and applied, and refused without nodes.
func TestNodes(t *testing.T) {
	dir := t.TempDir()
	mf := write(t, dir, "m.yaml", "nodes:\n  - count: 2\n    cores: 4\n")
	trace := write(t, dir, "t.swf", swf)
	write(t, dir, "t.sidecar.csv", "job_number,partition,req_nodes,alloc_nodes,req_cpus,alloc_cpus,gpus,req_mem_kb\n"+
		"1,,2,2,4,4,0,0\n")
	for _, c := range []struct {
		n     simulate.Nodes
		procs int
		given bool
		want  string
	}{
		{simulate.Nodes{File: mf, Alloc: "firstfit"}, 16, true, "--procs 16 disagrees with the machine file " + mf + " (8 cores)"},
		{simulate.Nodes{File: mf, Alloc: "worstfit"}, 0, false, `--alloc: expected firstfit, bestfit or contiguous, found "worstfit"`},
		{simulate.Nodes{File: mf, Alloc: "firstfit", CoresPerNode: 4}, 0, false, "--cores-per-node and --machine: give one"},
		{simulate.Nodes{CoresPerNode: 4, Alloc: "x"}, 0, false, `--alloc: expected firstfit, bestfit or contiguous, found "x"`},
		{simulate.Nodes{Alloc: "bestfit", AllocGiven: true}, 0, false, "--alloc needs --machine or --cores-per-node"},
	} {
		if _, err := c.n.Resolve(c.procs, c.given); err == nil || err.Error() != c.want {
			t.Errorf("%+v: error %v, want %q", c.n, err, c.want)
		}
	}
	n := simulate.Nodes{File: mf, Alloc: "bestfit", Trace: trace}
	p, err := n.Resolve(8, true)
	if err != nil || p != 8 {
		t.Fatalf("P %d, %v", p, err)
	}
	tr, _ := simulate.LoadTrace(trace, simulate.TraceOptions{Ingest: workload.Options{Procs: p}})
	if err := n.Apply(tr); err != nil {
		t.Fatal(err)
	}
	// job 1 asks for 4 cores on 2 nodes; job 2 has no request
	if len(n.Demands) != 2 || n.Demands[0].Nodes != 2 || n.Demands[1].Set {
		t.Errorf("demands %+v", n.Demands)
	}
	rules := strings.Join(tr.Rules, "\n")
	if !strings.Contains(rules, "machine: "+mf+": 2 nodes, 8 cores; cores assigned by rule bestfit") ||
		!strings.Contains(rules, "node-level requests: "+filepath.Join(dir, "t.sidecar.csv")+": 1 jobs (0 exclusive, 0 sized") {
		t.Errorf("rules:\n%s", rules)
	}

	u := simulate.Nodes{CoresPerNode: 4, Alloc: "firstfit", Sidecar: "none", Trace: trace}
	if p, err := u.Resolve(0, false); err != nil || p != 0 {
		t.Fatalf("uniform: P %d, %v", p, err)
	}
	tr, _ = simulate.LoadTrace(trace, simulate.TraceOptions{})
	if err := u.Apply(tr); err != nil || u.Machine == nil || len(u.Machine.Nodes) != 2 || u.Demands != nil {
		t.Errorf("uniform 2 × 4: %v %+v", err, u)
	}
	if !strings.Contains(strings.Join(tr.Rules, "\n"), "machine: --cores-per-node 4: 2 nodes, 8 cores; cores assigned by rule firstfit") {
		t.Errorf("rules:\n%s", strings.Join(tr.Rules, "\n"))
	}
	u = simulate.Nodes{CoresPerNode: 3, Alloc: "firstfit"}
	if err := u.Apply(tr); err == nil || err.Error() != "--cores-per-node 3: the machine's 8 processors are not a whole number of nodes" {
		t.Errorf("8 processors in nodes of 3: %v", err)
	}
	s := simulate.Nodes{Sidecar: "x.csv"}
	if err := s.Apply(tr); err == nil || !strings.HasPrefix(err.Error(), "--sidecar needs --machine") {
		t.Errorf("sidecar without nodes: %v", err)
	}
	var none simulate.Nodes
	if err := none.Apply(tr); err != nil || none.Demands != nil {
		t.Errorf("no machine, sidecar beside nothing: %v", err)
	}
}

// TestApplyDeadlines: no spec leaves the jobs; a bad spec names --deadlines.
func TestApplyDeadlines(t *testing.T) {
	tr, err := simulate.LoadTrace(write(t, t.TempDir(), "t.swf", swf), simulate.TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := simulate.ApplyDeadlines(tr, ""); err != nil || len(tr.Jobs) != 2 || tr.Jobs[0].Deadline != 0 {
		t.Errorf("no spec: %v %+v", err, tr.Jobs)
	}
	if err := simulate.ApplyDeadlines(tr, "s=x"); err == nil || !strings.HasPrefix(err.Error(), "--deadlines: ") {
		t.Errorf("bad spec: %v", err)
	}
}
