package experiment

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// writeSpec writes an experiment file (and an empty trace file t.swf)
// into a temporary directory and returns the file's path.
func writeSpec(t *testing.T, text string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "t.swf"), []byte("; Version: 2.2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "exp.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func parseText(t *testing.T, text string) (*Spec, error) {
	t.Helper()
	return ParseFile(writeSpec(t, text), ParseOptions{})
}

func TestParseErrors(t *testing.T) {
	cases := []struct {
		name, yaml string
		want       []string // substrings of the error, each "LINE: KEY: ..." style
	}{
		{"syntax", "policies: [fcfs]\nworkloads:\n\t- trace: x\n", []string{"exp.yaml:3: invalid YAML: found character that cannot start any token"}},
		{"empty", "", []string{"exp.yaml: the file is empty"}},
		{"not a mapping", "- a\n- b\n", []string{"exp.yaml:1: expected a mapping"}},
		{"unknown top key", "workload:\n  - trace: t.swf\npolicies: [fcfs]\n", []string{
			"exp.yaml:1: workload: unknown key (expected one of: name,", "exp.yaml:1: workloads: missing"}},
		{"unknown workload key", "workloads:\n  - trace: t.swf\n    lod: 0.5\npolicies: [fcfs]\n", []string{
			"exp.yaml:3: workloads[0].lod: unknown key"}},
		{"wrong type load", "workloads:\n  - trace: t.swf\n    load: [0.5, high]\npolicies: [fcfs]\n", []string{
			`exp.yaml:3: workloads[0].load[1]: expected a number, found "high"`}},
		{"load out of range", "workloads:\n  - trace: t.swf\n    load: -1\npolicies: [fcfs]\n", []string{
			`exp.yaml:3: workloads[0].load: expected a target offered load in (0, 100]`}},
		{"procs not integer", "workloads:\n  - trace: t.swf\n    procs: 1.5\npolicies: [fcfs]\n", []string{
			`exp.yaml:3: workloads[0].procs: expected an integer, found "1.5"`}},
		{"kill not bool", "simulation:\n  kill: yes please\nworkloads:\n  - trace: t.swf\npolicies: [fcfs]\n", []string{
			`exp.yaml:2: simulation.kill: expected true or false, found "yes please"`}},
		{"empty grid", "workloads:\n  - trace: t.swf\n    estimate: []\npolicies: [fcfs]\n", []string{
			"exp.yaml:3: workloads[0].estimate: empty grid"}},
		{"empty policies", "workloads:\n  - trace: t.swf\npolicies: []\n", []string{
			"exp.yaml:3: policies: empty list"}},
		{"empty param grid", "workloads:\n  - trace: t.swf\npolicies:\n  - name: easy\n    params:\n      depth: []\n", []string{
			"exp.yaml:6: policies[0].params.depth: empty grid"}},
		{"missing trace", "workloads:\n  - trace: t.swf\n  - trace: nowhere.swf.gz\npolicies: [fcfs]\n", []string{
			"exp.yaml:3: workloads[1].trace: trace file", "nowhere.swf.gz not found"}},
		{"no trace nor model", "workloads:\n  - load: 0.5\npolicies: [fcfs]\n", []string{
			"exp.yaml:2: workloads[0]: missing trace"}},
		{"trace and model", "workloads:\n  - trace: t.swf\n    model: lublin\npolicies: [fcfs]\n", []string{
			"workloads[0]: give either trace or model"}},
		{"unknown model", "workloads:\n  - model: nosuch\n    jobs: 10\npolicies: [fcfs]\n", []string{
			`exp.yaml:2: workloads[0].model: unknown workload model "nosuch" (models: `}},
		{"model without jobs", "workloads:\n  - model: lublin\npolicies: [fcfs]\n", []string{
			"exp.yaml:2: workloads[0].jobs: missing: the number of jobs the model generates"}},
		{"model rate and load", "workloads:\n  - model: lublin\n    jobs: 10\n    rate: 0.1\n    load: 0.5\npolicies: [fcfs]\n", []string{
			"exp.yaml:4: workloads[0].rate: give a rate or target loads, not both"}},
		{"model months", "workloads:\n  - model: lublin\n    jobs: 10\n    months: all\npolicies: [fcfs]\n", []string{
			"workloads[0].months: month splits need a trace"}},
		{"bad model param", "workloads:\n  - model: lublin:nosuch=1\n    jobs: 10\npolicies: [fcfs]\n", []string{
			`exp.yaml:2: workloads[0].model: model lublin has no parameter "nosuch"`}},
		{"duplicate key", "workloads:\n  - trace: t.swf\n    trace: t.swf\npolicies: [fcfs]\n", []string{
			"exp.yaml:3: workloads[0].trace: duplicate key (first given on line 2)"}},
		{"duplicate value", "workloads:\n  - trace: t.swf\n    load: [0.5, 0.5]\npolicies: [fcfs]\n", []string{
			"workloads[0].load: value 0.5 given twice"}},
		{"unknown policy", "workloads:\n  - trace: t.swf\npolicies:\n  - fcfs\n  - nosuch\n", []string{
			`exp.yaml:5: policies[1]: unknown policy "nosuch"`}},
		{"unknown param", "workloads:\n  - trace: t.swf\npolicies:\n  - name: easy\n    params:\n      dpth: [1, 2]\n", []string{
			`exp.yaml:6: policies[0].params.dpth: policy easy has no parameter "dpth"`}},
		{"bad param value", "workloads:\n  - trace: t.swf\npolicies:\n  - easy:depth=banana\n", []string{
			"exp.yaml:4: policies[0]: easy:depth=banana:"}},
		{"bad param values", "workloads:\n  - trace: t.swf\npolicies:\n  - name: easy\n    params: {depth: [1, x, y]}\n", []string{
			"exp.yaml:4: policies[0]: easy:depth=x:", "(and 1 more combinations fail)"}},
		{"bad estimate", "workloads:\n  - trace: t.swf\n    estimate: [user, factor:0.5]\npolicies: [fcfs]\n", []string{
			"exp.yaml:3: workloads[0].estimate[1]: estimate model factor"}},
		{"bad month", "workloads:\n  - trace: t.swf\n    months: [1996-13]\npolicies: [fcfs]\n", []string{
			`exp.yaml:3: workloads[0].months[0]: expected a month YYYY-MM or "all", found "1996-13"`}},
		{"seeds and replications", "seeds: [1]\nreplications: 3\nworkloads:\n  - trace: t.swf\npolicies: [fcfs]\n", []string{
			"exp.yaml:2: replications: give either seeds or replications"}},
		{"subset key", "workloads:\n  - trace: t.swf\n    subset: {first: 10}\npolicies: [fcfs]\n", []string{
			"exp.yaml:3: workloads[0].subset.first: unknown key (expected one of: skip, jobs)"}},
		{"merge key", "base: &b {trace: t.swf}\nworkloads:\n  - <<: *b\npolicies: [fcfs]\n", []string{
			"exp.yaml:1: base: unknown key", "exp.yaml:3: workloads[0]: expected a plain key"}},
		{"bad name", "name: a b\nworkloads:\n  - trace: t.swf\npolicies: [fcfs]\n", []string{
			"exp.yaml:1: name: expected letters, digits"}},
		{"traces dir missing", "traces: nodir\nworkloads:\n  - trace: t.swf\npolicies: [fcfs]\n", []string{
			"exp.yaml:1: traces: directory"}},
		{"priority file missing", "workloads:\n  - trace: t.swf\n    priorities: [none, csv:p.csv]\npolicies: [fcfs]\n", []string{
			"exp.yaml:3: workloads[0].priorities[1]: priority file"}},
		{"huge grid", "workloads:\n  - trace: t.swf\npolicies:\n  - name: easy\n    params: {depth: [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30], order: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z,A,B,C,D], predict: [a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q,r,s,t,u,v,w,x,y,z]}\n", []string{
			"policies[0]: the parameter grid has more than 10000 combinations"}},
		{"jobs of trace", "workloads:\n  - trace: t.swf\n    jobs: 10\npolicies: [fcfs]\n", []string{
			"exp.yaml:3: workloads[0].jobs: jobs is the size of a generated workload"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := parseText(t, c.yaml)
			if err == nil {
				t.Fatalf("no error for\n%s", c.yaml)
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error lacks %q:\n%v", w, err)
				}
			}
		})
	}
}

// All the problems of a file are reported at once, in file order.
func TestParseReportsEveryError(t *testing.T) {
	_, err := parseText(t, "workloads:\n  - trace: t.swf\n    load: x\n    procs: y\npolicies:\n  - nosuch\n")
	es, ok := err.(Errors)
	if !ok || len(es) != 3 {
		t.Fatalf("want 3 errors, got %v", err)
	}
	lines := []int{es[0].Line, es[1].Line, es[2].Line}
	if !slices.Equal(lines, []int{3, 4, 6}) {
		t.Errorf("lines %v, want [3 4 6]", lines)
	}
}

func TestParseValid(t *testing.T) {
	s, err := parseText(t, `
name: loads
description: a test
seeds: [3, 1]
simulation: {kill: [true, false], tau: 60, warmup: 100, drain: 200, audit: false}
workloads:
  - trace: t.swf
    name: T
    procs: [64, 128]
    estimate: [user, exact, "factor:2", modal]
    load: [original, 0.7]
    months: [1996-10]
    subset: {skip: 10, jobs: 100}
    priorities: [none, "every:5"]
    estimate_fallback: max
    clamp: true
    lenient: true
  - trace: builtin
    replications: 2
policies:
  - fcfs
  - easy:depth=4
  - name: easy
    params: {depth: [1, 2], order: [fcfs, sjbf]}
`)
	if err != nil {
		t.Fatal(err)
	}
	if s.Name != "loads" || !slices.Equal(s.Seeds, []uint64{3, 1}) || s.Sim.Tau != 60 || s.Sim.Audit || !slices.Equal(s.Sim.Kill, []bool{true, false}) {
		t.Errorf("top level: %+v", s)
	}
	w := s.Workloads[0]
	if w.Label != "T" || !slices.Equal(w.Procs, []int{64, 128}) || !slices.Equal(w.Estimate, []string{"user", "exact", "factor:2", "modal"}) ||
		!slices.Equal(w.Load, []float64{0, 0.7}) || w.Skip != 10 || w.Jobs != 100 || w.Fallback != "max" || !w.Clamp || !w.Lenient ||
		!slices.Equal(w.Priorities, []string{"none", "every:5"}) || !slices.Equal(w.Months, []string{"1996-10"}) {
		t.Errorf("workload 0: %+v", w)
	}
	if w2 := s.Workloads[1]; w2.TracePath != "builtin" || w2.Label != "KTH-SP2-1996-2.1-cln" || !slices.Equal(w2.Seeds, []uint64{1, 2}) {
		t.Errorf("workload 1: %+v", w2)
	}
	if got := s.Policies[2].Specs(); !slices.Equal(got, []string{"easy:depth=1:order=fcfs", "easy:depth=1:order=sjbf", "easy:depth=2:order=fcfs", "easy:depth=2:order=sjbf"}) {
		t.Errorf("grid specs %v", got)
	}
	if got := s.Policies[1].Specs(); !slices.Equal(got, []string{"easy:depth=4"}) {
		t.Errorf("spec string %v", got)
	}
}

// The --traces option replaces the file's directory of traces.
func TestParseTracesOverride(t *testing.T) {
	p := writeSpec(t, "traces: /nonexistent\nworkloads:\n  - trace: t.swf\npolicies: [fcfs]\n")
	s, err := ParseFile(p, ParseOptions{TracesDir: filepath.Dir(p)})
	if err != nil {
		t.Fatal(err)
	}
	if s.Workloads[0].TracePath != filepath.Join(filepath.Dir(p), "t.swf") {
		t.Errorf("trace path %s", s.Workloads[0].TracePath)
	}
}

func TestBuiltinSHA256(t *testing.T) {
	b, err := os.ReadFile("../workload/builtin/KTH-SP2-1996-2.1-cln.swf.gz")
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if got := hex.EncodeToString(sum[:]); got != builtinSHA256 {
		t.Errorf("the embedded trace changed: SHA-256 %s, builtinSHA256 %s (update the constant: every run on it gets a new ID)", got, builtinSHA256)
	}
}

// FuzzParse: the parser never panics and either returns a spec or errors
// that each name the file.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob("testdata/*.yaml")
	for _, s := range seeds {
		b, err := os.ReadFile(s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("workloads: [{trace: builtin}]\npolicies: [fcfs]\n"))
	f.Add([]byte("a: &x [*x]\n"))
	dir := f.TempDir()
	path := filepath.Join(dir, "fuzz.yaml")
	f.Fuzz(func(t *testing.T, src []byte) {
		s, err := Parse(src, path, ParseOptions{})
		if err != nil {
			es, ok := err.(Errors)
			if !ok || len(es) == 0 {
				t.Fatalf("error of type %T: %v", err, err)
			}
			for _, e := range es {
				if e.File != path || e.Msg == "" {
					t.Fatalf("bad error %+v", e)
				}
			}
			return
		}
		if len(s.Workloads) == 0 || len(s.Policies) == 0 {
			t.Fatalf("a valid spec without workloads or policies: %+v", s)
		}
	})
}
