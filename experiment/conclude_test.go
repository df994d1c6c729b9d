package experiment

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConcludeShard(t *testing.T) {
	var buf bytes.Buffer
	r := &Report{Planned: 5, Finished: 2, Ran: 3}
	if err := r.Conclude(&buf, Shard{Index: 1, Count: 4}, "res"); err != nil {
		t.Fatal(err)
	}
	want := "5 runs: 2 already done, 3 run now, 0 failed\nshard 1/4 done; when every shard has finished: backfill collect res\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestConcludeFailuresAndInterruption(t *testing.T) {
	var buf bytes.Buffer
	run := &Run{ID: "abc", Label: "kth", Config: Config{Policy: "easy"}}
	r := &Report{Planned: 4, Ran: 2, Failed: 1, Failures: []Failure{{Run: run, Err: "boom\ntrace"}}}
	err := r.Conclude(&buf, Shard{Index: 0, Count: 2}, "res")
	if err == nil || err.Error() != "1 of 2 runs failed (recorded with their errors; backfill results res --where status=failed)" {
		t.Errorf("err %v", err)
	}
	if !strings.Contains(buf.String(), "  failed abc (kth, easy): boom\n") {
		t.Errorf("output %q", buf.String())
	}
	r = &Report{Planned: 4, Ran: 1, Interrupted: true}
	if err := r.Conclude(&buf, Shard{}, "res"); err == nil || !strings.HasPrefix(err.Error(), "interrupted: 3 runs not started") {
		t.Errorf("interrupted: %v", err)
	}
}

func TestCollectSummary(t *testing.T) {
	var buf bytes.Buffer
	r := &CollectReport{Planned: 3, Present: 2, OK: 2, Missing: []*Run{{}}, Copied: 1, Temp: 2}
	r.WriteSummary(&buf, "d")
	want := "3 runs planned: 2 present (2 ok), 1 missing, 0 duplicated, 0 failed, 0 corrupt\n" +
		"1 runs copied into d\n2 temporary directories of interrupted runs were ignored\nsummary: d/summary.csv, d/summary.parquet\n"
	if buf.String() != want {
		t.Errorf("got\n%s\nwant\n%s", buf.String(), want)
	}
}

func TestSlurmPrepare(t *testing.T) {
	dir := t.TempDir()
	o := SlurmOptions{Binary: "bin/backfill"}
	if err := o.Prepare("exp.yaml", filepath.Join(dir, "out"), "", &Spec{Name: "loads"}, 2500); err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(o.Binary) || !filepath.IsAbs(o.Spec) || o.Out != filepath.Join(dir, "out") || o.TracesDir != "" {
		t.Errorf("paths %+v", o)
	}
	if o.Shards != 1000 || o.JobName != "backfill-loads" {
		t.Errorf("shards %d, job name %q; want 1000, backfill-loads", o.Shards, o.JobName)
	}
	if st, err := os.Stat(filepath.Join(dir, "out", "slurm")); err != nil || !st.IsDir() {
		t.Errorf("OUT/slurm not created: %v", err)
	}
	o = SlurmOptions{Binary: "b", Shards: 7, JobName: "mine"}
	if err := o.Prepare("e.yaml", filepath.Join(dir, "o2"), "traces", &Spec{Name: "x"}, 3); err != nil || o.Shards != 7 || o.JobName != "mine" || !filepath.IsAbs(o.TracesDir) {
		t.Errorf("given values: %+v %v", o, err)
	}
}
