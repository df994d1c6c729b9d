package experiment

import (
	"fmt"
	"math"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/workload"
	"github.com/backfill-hpc/backfill/workload/model"
)

func mustPlan(t *testing.T, text string) (*Spec, *Plan) {
	t.Helper()
	s, err := parseText(t, text)
	if err != nil {
		t.Fatal(err)
	}
	p, err := Expand(s)
	if err != nil {
		t.Fatal(err)
	}
	return s, p
}

func TestExpandGrid(t *testing.T) {
	_, p := mustPlan(t, `
seeds: [1, 2, 3]
simulation: {kill: [true, false]}
workloads:
  - trace: builtin
    procs: [100, 128]
    estimate: [user, "factor:2"]
    load: [original, 0.7, 0.9]
    months: [1996-10, 1996-11]
policies:
  - fcfs
  - name: easy
    params: {depth: [1, 2]}
`)
	// procs 2 × months 2 × (user: 1 seed + factor: 3 seeds) × load 3 × kill 2 × policies 3
	if want := 2 * 2 * (1 + 3) * 3 * 2 * 3; len(p.Runs) != want {
		t.Fatalf("%d runs, want %d", len(p.Runs), want)
	}
	// the seeds of the deterministic estimate collapse: 2 of 3 per combination
	if want := 2 * 2 * 2 * 3 * 2 * 3; p.Collapsed != want {
		t.Errorf("collapsed %d, want %d", p.Collapsed, want)
	}
	ids := map[string]bool{}
	for i, r := range p.Runs {
		if r.Index != i || ids[r.ID] || len(r.ID) != IDLength || r.Hash[:IDLength] != r.ID || r.Config.Hash() != r.Hash {
			t.Fatalf("run %d: %+v", i, r)
		}
		ids[r.ID] = true
	}
	// order: policies vary fastest, then kill, seeds, load, estimate, months, procs
	first := p.Runs[:6]
	want := []string{"fcfs", "easy:depth=1", "easy:depth=2", "fcfs", "easy:depth=1", "easy:depth=2"}
	for i, r := range first {
		if r.Config.Policy != want[i] || r.Config.Kill != (i < 3) || r.Config.Procs != 100 || r.Config.Month != "1996-10" || r.Config.Load != 0 || r.Config.Seed != 0 {
			t.Errorf("run %d: %+v", i, r.Config)
		}
	}
	if c := p.Runs[6].Config; c.Load != 0.7 {
		t.Errorf("run 6 should have load 0.7: %+v", c)
	}
	last := p.Runs[len(p.Runs)-1].Config
	if last.Procs != 128 || last.Month != "1996-11" || last.Estimate != "factor:2" || last.Load != 0.9 || last.Seed != 3 || last.Kill || last.Policy != "easy:depth=2" {
		t.Errorf("last run %+v", last)
	}
}

func TestExpandAllMonths(t *testing.T) {
	_, p := mustPlan(t, "workloads:\n  - trace: builtin\n    months: all\npolicies: [fcfs]\n")
	var months []string
	for _, r := range p.Runs {
		months = append(months, r.Config.Month)
	}
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	parts, _ := workload.SplitMonths(tr)
	if len(months) != len(parts) || months[0] != "1996-09" || months[len(months)-1] != parts[len(parts)-1].Name {
		t.Errorf("months %v", months)
	}
}

// Golden hashes: a run's ID must not change unless its configuration
// does (renaming a workload, moving the file or reordering the grid keeps
// it). If this test fails after a deliberate change of Config, bump
// ConfigFormat and update the hashes.
func TestGoldenHashes(t *testing.T) {
	_, p := mustPlan(t, `
workloads:
  - trace: builtin
    name: renamed-label-does-not-matter
    subset: {jobs: 1000}
    load: [original, 0.8]
    estimate: [user, "factor:3"]
policies:
  - fcfs
  - name: easy
    params: {order: [sjbf], depth: [4]}
`)
	got := map[string]string{}
	for _, r := range p.Runs {
		got[r.Config.Describe()] = r.ID
	}
	want := map[string]string{
		"fcfs subset=0+1000":                                                      "947fb7b458b74345",
		"easy:depth=4:order=sjbf subset=0+1000":                                   "0bab77320b9b5219",
		"fcfs subset=0+1000 load=0.8":                                             "7ccbe0cf2142f273",
		"easy:depth=4:order=sjbf subset=0+1000 load=0.8":                          "7984484dffcd9bae",
		"fcfs estimate=factor:3 subset=0+1000 seed=1":                             "8b66ec7ec5ae4c38",
		"easy:depth=4:order=sjbf estimate=factor:3 subset=0+1000 seed=1":          "00229ac45c768921",
		"fcfs estimate=factor:3 subset=0+1000 load=0.8 seed=1":                    "fe702f2dc38a5854",
		"easy:depth=4:order=sjbf estimate=factor:3 subset=0+1000 load=0.8 seed=1": "eaf3e28e885d799c",
	}
	for k, w := range want {
		if got[k] != w {
			t.Errorf("%s: ID %s, want %s", k, got[k], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("%d runs, want %d: %v", len(got), len(want), got)
	}
}

func TestConfigCanonical(t *testing.T) {
	c := Config{Format: 1, Trace: &TraceRef{File: "a.swf", SHA256: "00"}, Fallback: "runtime", Estimate: "user", Load: 0.75,
		Priorities: "none", Policy: "easy:depth=2", Kill: true, Tau: 10}
	want := `{"format":1,"trace":{"file":"a.swf","sha256":"00"},"procs":0,"estimate_fallback":"runtime","clamp":false,"lenient":false,"estimate":"user","load":0.75,"priorities":"none","seed":0,"policy":"easy:depth=2","kill":true,"tau":10,"warmup":0,"drain":0}`
	if got := string(c.Canonical()); got != want {
		t.Errorf("canonical\n%s\nwant\n%s", got, want)
	}
	if got := c.Hash(); got != "" && len(got) != 64 {
		t.Errorf("hash %q", got)
	}
}

func TestCanonicalPolicy(t *testing.T) {
	got, err := CanonicalPolicy("easy:order=sjbf:depth=2")
	if err != nil || got != "easy:depth=2:order=sjbf" {
		t.Errorf("%q %v", got, err)
	}
}

func TestShardPartition(t *testing.T) {
	plan := &Plan{}
	for i := range 101 {
		plan.Runs = append(plan.Runs, Run{Index: i, ID: fmt.Sprint(i)})
	}
	for n := 1; n <= 120; n++ {
		count := make([]int, len(plan.Runs))
		sizes := []int{}
		for i := range n {
			s, err := ParseShard(fmt.Sprintf("%d/%d", i, n))
			if err != nil {
				t.Fatal(err)
			}
			runs := plan.Shard(s)
			sizes = append(sizes, len(runs))
			for _, r := range runs {
				count[r.Index]++
			}
		}
		for i, c := range count {
			if c != 1 {
				t.Fatalf("n=%d: run %d is in %d shards", n, i, c)
			}
		}
		if slices.Max(sizes)-slices.Min(sizes) > 1 {
			t.Errorf("n=%d: unbalanced shards %v", n, sizes)
		}
	}
	for _, bad := range []string{"3/3", "-1/2", "1/0", "a/b", "1", "0/2000000"} {
		if _, err := ParseShard(bad); err == nil {
			t.Errorf("ParseShard(%q) accepted", bad)
		}
	}
}

func TestShardFromEnv(t *testing.T) {
	cases := []struct {
		env   map[string]string
		count int
		want  Shard
		err   bool
	}{
		{env: map[string]string{}, want: Shard{}},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "10"}, want: Shard{3, 10}},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_COUNT": "10", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "9"}, want: Shard{3, 10}},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "10"}, want: Shard{0, 10}},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "10", "SLURM_ARRAY_TASK_MIN": "1", "SLURM_ARRAY_TASK_MAX": "10"}, want: Shard{9, 10}},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "4", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "8", "SLURM_ARRAY_TASK_STEP": "2", "SLURM_ARRAY_TASK_COUNT": "5"}, want: Shard{2, 5}},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "3", "SLURM_ARRAY_TASK_MIN": "0", "SLURM_ARRAY_TASK_MAX": "7", "SLURM_ARRAY_TASK_COUNT": "3"}, err: true}, // 0,3,7
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "3"}, err: true},
		{env: map[string]string{"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"}, err: true},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, count: 4, want: Shard{2, 4}},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "2", "BACKFILL_SHARDS": "3"}, want: Shard{2, 3}},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "2"}, err: true},
		{env: map[string]string{"JOB_COMPLETION_INDEX": "4", "BACKFILL_SHARDS": "4"}, err: true},
		// Slurm wins over Kubernetes
		{env: map[string]string{"JOB_COMPLETION_INDEX": "1", "BACKFILL_SHARDS": "4", "SLURM_ARRAY_TASK_ID": "0", "SLURM_ARRAY_TASK_COUNT": "2"}, want: Shard{0, 2}},
	}
	for i, c := range cases {
		s, src, err := ShardFromEnv(func(k string) string { return c.env[k] }, c.count)
		if (err != nil) != c.err || s != c.want {
			t.Errorf("case %d %v: got %v (%q), %v", i, c.env, s, src, err)
		}
	}
}

func TestScaleLoad(t *testing.T) {
	tr, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []float64{0.3, 0.68, 0.9, 1.2} {
		jobs := slices.Clone(tr.Jobs[:5000])
		note, err := ScaleLoad(jobs, tr.Procs, target)
		if err != nil {
			t.Fatal(err)
		}
		got := model.OfferedLoad(jobs, tr.Procs)
		if math.Abs(got-target)/target > 1e-3 {
			t.Errorf("target %g: load %g (%s)", target, got, note)
		}
		for i := range jobs {
			o := tr.Jobs[i]
			if jobs[i].Runtime != o.Runtime || jobs[i].Procs != o.Procs || jobs[i].Estimate != o.Estimate {
				t.Fatalf("job %d changed beyond its submit time", i)
			}
			if i > 0 && jobs[i].Submit < jobs[i-1].Submit {
				t.Fatalf("order broken at %d", i)
			}
		}
		if jobs[0].Submit != tr.Jobs[0].Submit {
			t.Errorf("the first submission moved")
		}
	}
	if _, err := ScaleLoad([]job.Job{{Runtime: 5}, {Runtime: 5}}, 1, 0.5); err == nil {
		t.Error("no error for simultaneous submissions")
	}
}
