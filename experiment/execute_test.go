package experiment

import (
	"bytes"
	"context"
	"fmt"
	"io/fs"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"

	"github.com/backfill-hpc/backfill/internal/parquet"
)

const smallSweep = `
name: small
workloads:
  - trace: builtin
    subset: {jobs: 400}
    load: [original, 0.9]
  - trace: builtin
    name: kth-month
    months: [1996-10]
    subset: {jobs: 300}
    estimate: [user, "factor:2"]
seeds: [1, 2]
policies:
  - fcfs
  - name: easy
    params: {depth: [1, 4]}
  - conservative
`

func execute(t *testing.T, s *Spec, p *Plan, out string, opt Options) *Report {
	t.Helper()
	opt.Out = out
	if opt.Workers == 0 {
		opt.Workers = 2
	}
	opt.Version = "test"
	opt.Audit = true
	rep, err := Execute(context.Background(), s, p, opt)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

// snapshot reads every file of a results directory except timing.json
// (wall times) and the Slurm logs, keyed by relative path.
func snapshot(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	files := map[string][]byte{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || d.Name() == TimingFile {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		b, err := os.ReadFile(p)
		files[rel] = b
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return files
}

func sameFiles(t *testing.T, a, b map[string][]byte, what string) {
	t.Helper()
	var ka, kb []string
	for k := range a {
		ka = append(ka, k)
	}
	for k := range b {
		kb = append(kb, k)
	}
	slices.Sort(ka)
	slices.Sort(kb)
	if !slices.Equal(ka, kb) {
		t.Fatalf("%s: different files:\n%v\n%v", what, ka, kb)
	}
	for _, k := range ka {
		if !bytes.Equal(a[k], b[k]) {
			t.Errorf("%s: %s differs", what, k)
		}
	}
}

func collectOK(t *testing.T, dirs []string, out string) *CollectReport {
	t.Helper()
	rep, err := Collect(dirs, out)
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Complete() {
		t.Fatalf("incomplete: %v", rep.Problems())
	}
	return rep
}

// Same sweep → byte-identical results with 1 or 3 workers, and when run
// in 4 shards into one directory or in 3 shards into three directories
// merged by Collect.
func TestDeterministicAcrossWorkersAndShards(t *testing.T) {
	s, p := mustPlan(t, smallSweep)
	if len(p.Runs) != 4*2+4*3 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	one := t.TempDir()
	rep := execute(t, s, p, one, Options{Workers: 1})
	if rep.Ran != len(p.Runs) || rep.Failed != 0 {
		t.Fatalf("report %+v", rep)
	}
	collectOK(t, []string{one}, one)
	want := snapshot(t, one)
	if len(want) != 4+3*len(p.Runs) {
		t.Errorf("%d files", len(want))
	}

	three := t.TempDir()
	execute(t, s, p, three, Options{Workers: 3})
	collectOK(t, []string{three}, three)
	sameFiles(t, want, snapshot(t, three), "3 workers")

	shared := t.TempDir()
	for i := range 4 {
		execute(t, s, p, shared, Options{Workers: 2, Shard: Shard{i, 4}})
	}
	collectOK(t, []string{shared}, shared)
	sameFiles(t, want, snapshot(t, shared), "4 shards in one directory")

	var dirs []string
	for i := range 3 {
		d := t.TempDir()
		execute(t, s, p, d, Options{Workers: 1, Shard: Shard{i, 3}})
		dirs = append(dirs, d)
	}
	merged := filepath.Join(t.TempDir(), "merged")
	crep := collectOK(t, dirs, merged)
	if crep.Copied != len(p.Runs) {
		t.Errorf("copied %d", crep.Copied)
	}
	sameFiles(t, want, snapshot(t, merged), "3 shards in three directories, collected")
}

// Results do not depend on where the trace lies: the same trace under two
// paths gives the same run IDs and results.
func TestTracePathIndependent(t *testing.T) {
	src, err := os.ReadFile("../workload/builtin/KTH-SP2-1996-2.1-cln.swf.gz")
	if err != nil {
		t.Fatal(err)
	}
	var snaps []map[string][]byte
	for _, sub := range []string{"a", "b/c"} {
		dir := filepath.Join(t.TempDir(), sub)
		os.MkdirAll(dir, 0o755)
		os.WriteFile(filepath.Join(dir, "KTH-SP2-1996-2.1-cln.swf.gz"), src, 0o644)
		specPath := filepath.Join(dir, "e.yaml")
		os.WriteFile(specPath, []byte("workloads:\n  - trace: KTH-SP2-1996-2.1-cln.swf.gz\n    subset: {jobs: 200}\npolicies: [easy]\n"), 0o644)
		s, err := ParseFile(specPath, ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		p, err := Expand(s)
		if err != nil {
			t.Fatal(err)
		}
		out := filepath.Join(dir, "out")
		execute(t, s, p, out, Options{})
		collectOK(t, []string{out}, out)
		snap := snapshot(t, out)
		delete(snap, SpecFile) // the files differ in nothing, but keep the test about runs
		snaps = append(snaps, snap)
	}
	sameFiles(t, snaps[0], snaps[1], "trace moved")
}

func TestResumeAfterInterrupt(t *testing.T) {
	s, p := mustPlan(t, smallSweep)
	out := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	done := 0
	rep, err := Execute(ctx, s, p, Options{Out: out, Workers: 1, Version: "test", OnEvent: func(e Event) {
		if e.Kind == RunDone {
			done++
			if done == 3 {
				cancel()
			}
		}
	}})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Interrupted || rep.Ran < 3 || rep.Ran >= len(p.Runs) {
		t.Fatalf("report %+v", rep)
	}
	rep2 := execute(t, s, p, out, Options{Workers: 2})
	if rep2.Finished != rep.Ran || rep2.Ran != len(p.Runs)-rep.Ran {
		t.Fatalf("resume: %+v after %+v", rep2, rep)
	}
	collectOK(t, []string{out}, out)
	clean := t.TempDir()
	execute(t, s, p, clean, Options{})
	collectOK(t, []string{clean}, clean)
	sameFiles(t, snapshot(t, clean), snapshot(t, out), "resumed")
}

// The child process of TestResumeAfterKill: it runs the sweep and kills
// itself with SIGKILL when the third run ends (a worker is in the middle
// of another run).
func TestMain(m *testing.M) {
	if dir := os.Getenv("BACKFILL_TEST_KILLED_SWEEP"); dir != "" {
		s, err := Parse([]byte(smallSweep), filepath.Join(dir, "exp.yaml"), ParseOptions{})
		if err != nil {
			panic(err)
		}
		p, err := Expand(s)
		if err != nil {
			panic(err)
		}
		done := 0
		Execute(context.Background(), s, p, Options{Out: filepath.Join(dir, "out"), Workers: 2, Version: "test", Audit: true,
			OnEvent: func(e Event) {
				if e.Kind == RunDone {
					if done++; done == 3 {
						syscall.Kill(os.Getpid(), syscall.SIGKILL)
					}
				}
			}})
		os.Exit(0) // not reached when the kill works
	}
	os.Exit(m.Run())
}

func TestResumeAfterKill(t *testing.T) {
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "BACKFILL_TEST_KILLED_SWEEP="+dir)
	err := cmd.Run()
	if ee, ok := err.(*exec.ExitError); !ok || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the child was not killed: %v", err)
	}
	out := filepath.Join(dir, "out")
	ids, _, err := Store{Dir: out}.RunIDs()
	if err != nil {
		t.Fatal(err)
	}
	s, p := mustPlan(t, smallSweep)
	if len(ids) < 3 || len(ids) >= len(p.Runs) {
		t.Fatalf("%d runs stored after the kill", len(ids))
	}
	// a half-written run left by a kill (as if killed while saving)
	stale := filepath.Join(out, RunsDir, tmpPrefix+p.Runs[len(p.Runs)-1].ID+"-0123456789ab")
	os.MkdirAll(stale, 0o755)
	os.WriteFile(filepath.Join(stale, RunConfigFile), []byte("{"), 0o644)
	rep := execute(t, s, p, out, Options{})
	if rep.Finished != len(ids) || rep.Ran != len(p.Runs)-len(ids) || rep.Failed != 0 {
		t.Fatalf("resume: %+v with %d stored", rep, len(ids))
	}
	if _, err := os.Stat(stale); !os.IsNotExist(err) {
		t.Errorf("the temporary directory of the killed run is still there")
	}
	crep := collectOK(t, []string{out}, out)
	if crep.Temp != 0 {
		t.Errorf("%d temporary directories left", crep.Temp)
	}
	clean := t.TempDir()
	execute(t, s, p, clean, Options{})
	collectOK(t, []string{clean}, clean)
	sameFiles(t, snapshot(t, clean), snapshot(t, out), "after a kill")
}

// A changed parameter reruns only the runs it changes.
func TestChangedParameterRerunsOnlyChanged(t *testing.T) {
	s, p := mustPlan(t, smallSweep)
	out := t.TempDir()
	execute(t, s, p, out, Options{})
	changed := strings.Replace(smallSweep, "load: [original, 0.9]", "load: [original, 0.8]", 1)
	changed = strings.Replace(changed, "depth: [1, 4]", "depth: [1, 4, 8]", 1)
	s2, p2 := mustPlan(t, changed)
	rep := execute(t, s2, p2, out, Options{})
	// new: load 0.8 × 5 policies, and depth 8 on the 4 other workload variants
	if rep.Ran != 5+4 || rep.Finished != len(p2.Runs)-9 {
		t.Fatalf("report %+v (plan of %d)", rep, len(p2.Runs))
	}
	crep := collectOK(t, []string{out}, out)
	if crep.Extra != 4 { // the load 0.9 runs are no longer in the plan
		t.Errorf("extra %d", crep.Extra)
	}
	// --force reruns all
	rep = execute(t, s2, p2, out, Options{Force: true})
	if rep.Ran != len(p2.Runs) || rep.Finished != 0 {
		t.Errorf("force: %+v", rep)
	}
}

// A failing run is recorded with its error and does not stop the others;
// Collect reports it; the next execution retries it.
func TestFailureRecorded(t *testing.T) {
	s, p := mustPlan(t, `
workloads:
  - trace: builtin
    subset: {jobs: 200}
  - trace: builtin
    months: [1997-12]
policies: [fcfs, easy]
`)
	out := t.TempDir()
	rep := execute(t, s, p, out, Options{})
	if rep.Ran != 4 || rep.Failed != 2 || len(rep.Failures) != 2 {
		t.Fatalf("report %+v", rep)
	}
	if !strings.Contains(rep.Failures[0].Err, "month 1997-12: the trace has no jobs submitted in it") {
		t.Errorf("error %q", rep.Failures[0].Err)
	}
	crep, err := Collect([]string{out}, out)
	if err != nil {
		t.Fatal(err)
	}
	if crep.Complete() || len(crep.Failed) != 2 || crep.OK != 2 {
		t.Errorf("collect %+v", crep)
	}
	runs, _, err := ReadStore(out, false)
	if err != nil {
		t.Fatal(err)
	}
	tab := RunTable(runs)
	if tab.Rows[2][tab.Col("status")] != StatusFailed || tab.Rows[2][tab.Col("mean_wait")] != nil || tab.Rows[0][tab.Col("mean_wait")] == nil {
		t.Errorf("table rows %v", tab.Rows)
	}
	rep = execute(t, s, p, out, Options{})
	if rep.Finished != 2 || rep.Ran != 2 {
		t.Errorf("retry: %+v", rep)
	}
}

func TestCollectProblems(t *testing.T) {
	s, p := mustPlan(t, "workloads:\n  - trace: builtin\n    subset: {jobs: 100}\npolicies: [fcfs, easy, conservative]\n")
	a, b := t.TempDir(), t.TempDir()
	execute(t, s, p, a, Options{})
	execute(t, s, p, b, Options{Shard: Shard{0, 3}})
	// run 0 in both directories, run 1 missing, run 2 edited
	os.RemoveAll(filepath.Join(a, RunsDir, p.Runs[1].ID))
	cfg := filepath.Join(a, RunsDir, p.Runs[2].ID, RunConfigFile)
	src, _ := os.ReadFile(cfg)
	os.WriteFile(cfg, bytes.Replace(src, []byte(`"tau": 10`), []byte(`"tau": 11`), 1), 0o644)
	rep, err := Collect([]string{a, b}, filepath.Join(t.TempDir(), "m"))
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Missing) != 1 || rep.Missing[0].ID != p.Runs[1].ID || len(rep.Duplicated) != 1 || len(rep.Duplicated[p.Runs[0].ID]) != 2 || len(rep.Corrupt) != 1 {
		t.Fatalf("report %+v", rep)
	}
	probs := strings.Join(rep.Problems(), "\n")
	for _, w := range []string{"missing run " + p.Runs[1].ID, "duplicated run " + p.Runs[0].ID, "does not hash to its ID"} {
		if !strings.Contains(probs, w) {
			t.Errorf("problems lack %q:\n%s", w, probs)
		}
	}
	// different plans are refused
	s2, p2 := mustPlan(t, "workloads:\n  - trace: builtin\n    subset: {jobs: 100}\npolicies: [fcfs]\n")
	c := t.TempDir()
	execute(t, s2, p2, c, Options{})
	if _, err := Collect([]string{a, c}, a); err == nil || !strings.Contains(err.Error(), "different plans") {
		t.Errorf("different plans: %v", err)
	}
}

// The Parquet files read back: per-job rows match result.json, and the
// summary has one row per run with the metrics.
func TestParquetRoundTrip(t *testing.T) {
	s, p := mustPlan(t, "workloads:\n  - trace: builtin\n    subset: {jobs: 300}\npolicies:\n  - name: easy\n    params: {depth: [1, all]}\n")
	out := t.TempDir()
	execute(t, s, p, out, Options{})
	collectOK(t, []string{out}, out)
	_, res, err := Store{Dir: out}.ReadRun(p.Runs[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := ReadJobs(filepath.Join(out, RunsDir, p.Runs[0].ID, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	var sumWait int64
	for i, r := range rows {
		if r.ID != int64(i) || r.Wait != r.Start-r.Submit || r.End < r.Start {
			t.Fatalf("row %d: %+v", i, r)
		}
		sumWait += r.Wait
	}
	if len(rows) != 300 || fmt.Sprint(float64(sumWait)/300) != fmt.Sprint(res.Summary.All.MeanWait) {
		t.Errorf("%d rows, mean wait %v vs %v", len(rows), float64(sumWait)/300, res.Summary.All.MeanWait)
	}
	f, err := os.Open(filepath.Join(out, SummaryParquet))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	pf, err := parquet.Open(f, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	if pf.Rows != 2 {
		t.Errorf("%d summary rows", pf.Rows)
	}
	// depth is "1" and "all": a string column
	for _, w := range []parquet.Field{{Name: "run", Type: parquet.String}, {Name: "error", Type: parquet.String, Optional: true},
		{Name: "p_depth", Type: parquet.String}, {Name: "mean_wait", Type: parquet.Double}} {
		if i, ok := pf.Lookup(w.Name); !ok || pf.Schema[i] != w {
			t.Errorf("schema lacks %+v:\n%+v", w, pf.Schema)
		}
	}
	type summaryRow struct {
		Run      string  `parquet:"run"`
		PDepth   string  `parquet:"p_depth"`
		MeanWait float64 `parquet:"mean_wait"`
	}
	got, err := parquet.ReadRows[summaryRow](pf)
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Run != p.Runs[0].ID || got[0].PDepth != "1" || got[1].PDepth != "all" || got[0].MeanWait != res.Summary.All.MeanWait {
		t.Errorf("summary rows %+v", got)
	}
}

// Generated workloads: the seed multiplies the runs, the load is the
// model's calibration, and the results are deterministic.
func TestModelWorkloads(t *testing.T) {
	s, p := mustPlan(t, `
seeds: [1, 2]
workloads:
  - model: lublin
    jobs: 400
    procs: 128
    load: [0.6, 0.8]
    estimate: [user, "factor:2"]
policies: [fcfs, easy]
`)
	if len(p.Runs) != 2*2*2*2 {
		t.Fatalf("%d runs", len(p.Runs))
	}
	out := t.TempDir()
	rep := execute(t, s, p, out, Options{})
	if rep.Failed != 0 {
		t.Fatalf("failures %+v", rep.Failures)
	}
	runs, _, err := ReadStore(out, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range runs {
		w := r.Result.Workload
		if w.Procs != 128 || w.Jobs != 400 || math.Abs(w.OfferedLoad-r.Config.Config.Load) > 0.05*r.Config.Config.Load { // the model calibrates within a few % on 400 jobs
			t.Errorf("run %s: %d jobs on %d, load %g (target %g)", r.Config.ID, w.Jobs, w.Procs, w.OfferedLoad, r.Config.Config.Load)
		}
	}
	if a, b := runs[0].Result.Summary.All.MeanWait, runs[4].Result.Summary.All.MeanWait; a == b {
		t.Errorf("seeds 1 and 2 gave the same mean wait %g", a)
	}
	again := t.TempDir()
	execute(t, s, p, again, Options{Workers: 1})
	collectOK(t, []string{out}, out)
	collectOK(t, []string{again}, again)
	sameFiles(t, snapshot(t, out), snapshot(t, again), "model runs")
}

// Deadline workloads (workload/deadline) as a transformation, with the
// deadline policies' admission control audited.
func TestDeadlineWorkloads(t *testing.T) {
	s, p := mustPlan(t, `
workloads:
  - trace: builtin
    subset: {jobs: 400}
    estimate: exact
    deadlines: [none, "s=0.2:l=1.3:frac=0.5"]
policies: [easy, qops]
`)
	if len(p.Runs) != 4 || p.Runs[2].Config.Deadlines != "s=0.2:l=1.3:load=dup:frac=0.5:offset=0:n=0:seed=1" {
		t.Fatalf("runs %+v", p.Runs)
	}
	out := t.TempDir()
	rep := execute(t, s, p, out, Options{})
	if rep.Failed != 0 {
		t.Fatalf("failures %+v", rep.Failures)
	}
	rows, err := ReadJobs(filepath.Join(out, RunsDir, p.Runs[3].ID, JobsFile))
	if err != nil {
		t.Fatal(err)
	}
	rejected := 0
	for _, r := range rows {
		if r.Rejected {
			rejected++
		}
	}
	// l = 1.3 by duplication: 520 jobs; QoPS rejects some deadline jobs
	if len(rows) != 520 || rejected == 0 {
		t.Errorf("%d jobs, %d rejected", len(rows), rejected)
	}
	if _, err := parseText(t, "workloads:\n  - trace: t.swf\n    deadlines: [s=2]\npolicies: [qops]\n"); err == nil || !strings.Contains(err.Error(), "exp.yaml:3: workloads[0].deadlines[0]:") {
		t.Errorf("bad deadline spec: %v", err)
	}
}

// Memory as a second resource (K = 2) and the tick strategy (extend).
func TestMemoryAndExtend(t *testing.T) {
	abs, _ := filepath.Abs("testdata")
	s, p := mustPlan(t, `
traces: `+abs+`
simulation: {kill: [true, false], extend: [false, true]}
workloads:
  - trace: mem.swf
    mem: 256M
policies: [fcfs, ff-easy]
`)
	// kill × extend, without kill extend collapses: 3 variants × 2 policies
	if len(p.Runs) != 6 || p.Collapsed != 2 || p.Runs[0].Config.Mem != "262144" || p.Runs[0].Config.MemMissing != "mode" {
		t.Fatalf("%d runs, %d collapsed: %+v", len(p.Runs), p.Collapsed, p.Runs[0].Config)
	}
	out := t.TempDir()
	rep := execute(t, s, p, out, Options{})
	if rep.Failed != 0 {
		t.Fatalf("failures %+v", rep.Failures)
	}
	_, res, err := Store{Dir: out}.ReadRun(p.Runs[1].ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Workload.MemCap != 262144 || res.Policy != "ff-easy" {
		t.Errorf("workload %+v, policy %s", res.Workload, res.Policy)
	}
	// a policy that cannot schedule memory is refused at parse time
	_, err = parseText(t, "workloads:\n  - trace: t.swf\n    mem: auto\npolicies: [fcfs, easy]\n")
	if err == nil || !strings.Contains(err.Error(), "exp.yaml:4: policies[1]: easy: a workload schedules memory") {
		t.Errorf("easy with memory: %v", err)
	}
	for _, bad := range []string{"mem: lots", "mem_missing: maybe", "mem: 1G\n    mem_per_proc: 1M"} {
		if _, err := parseText(t, "workloads:\n  - trace: t.swf\n    "+bad+"\npolicies: [fcfs]\n"); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}
