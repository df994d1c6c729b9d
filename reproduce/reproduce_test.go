package reproduce

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
	wkres "github.com/backfill-hpc/backfill/workload/kresource"
)

// MeanCI worked by hand: {1, 2, 3} has mean 2 and standard deviation 1;
// t(0.975, 2 df) = 4.3027, so the half-width is 4.3027/√3 = 2.4841.
func TestMeanCI(t *testing.T) {
	e := MeanCI([]float64{1, 2, 3})
	if e.Mean != 2 || math.Abs(e.CI-2.4841) > 1e-3 || e.N != 3 {
		t.Errorf("MeanCI = %+v", e)
	}
	if e.String() != "+2.0 ± 2.5" {
		t.Errorf("String = %q", e.String())
	}
	if e := MeanCI([]float64{5}); e.Mean != 5 || e.CI != 0 {
		t.Errorf("one value: %+v", e)
	}
}

func verdicts(t *testing.T, r *Report, ids ...string) {
	t.Helper()
	for _, id := range ids {
		c := r.Claim(id)
		if c == nil {
			t.Errorf("no claim %s", id)
			continue
		}
		if c.Verdict < Reproduced || c.Verdict > NotReproduced || c.Ours == "" {
			t.Errorf("claim %s: %+v", id, c)
		}
		if c.Verdict != Reproduced && c.Setting == "" {
			t.Errorf("claim %s is %s without a setting or evidence", id, c.Verdict)
		}
	}
	var b strings.Builder
	if err := r.WriteText(&b); err != nil || !strings.Contains(b.String(), "== Verdicts ==") {
		t.Errorf("WriteText: %v\n%s", err, b.String())
	}
}

// The K-resource reproduction on a small grid: every statement gets a
// verdict and a key figure with its interval over the seeds; the
// sensitivity table has a row per reading; the real part runs on a tiny
// trace with memory and reports a missing one.
func TestKresourceSmall(t *testing.T) {
	dir := t.TempDir()
	var b strings.Builder
	b.WriteString("; MaxProcs: 8\n")
	for i := 1; i <= 60; i++ {
		procs, mem := 1+i%8, 100*(1+i%5)
		fmt.Fprintf(&b, "%d %d -1 %d %d -1 -1 %d %d %d 1 1 1 -1 1 1 -1 -1\n", i, 10*i, 50+i%7*40, procs, procs, 400, mem)
	}
	if err := os.WriteFile(filepath.Join(dir, "MEM-test.swf"), []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	c := DefaultKres()
	c.Jobs, c.Seeds, c.Ks, c.Queues, c.Tol = 400, 3, []int{2, 4}, []int{4, 8}, 0.2
	c.Pow2, c.ExpMeans = []float64{4, 1}, []float64{0.5, 0.2}
	c.Traces, c.Real, c.MemScale, c.RealJobs = dir, []string{"MEM-test.swf", "NOPE.swf"}, []float64{1, 0.5}, 0
	cells := 0
	c.Progress = func(done, total int, cell string) { cells++ }
	r, err := Kresource(c)
	if err != nil {
		t.Fatal(err)
	}
	verdicts(t, r, kresClaimIDs()...)
	for _, id := range kresClaimIDs() {
		if c := r.Claim(id); c != nil && (c.Value == nil || c.Value.N != 3) {
			t.Errorf("%s: key figure %+v, want 3 seeds", id, c.Value)
		}
	}
	st := r.Table("Sensitivity")
	// settings: pow2 {4, 1} × exponential mean {0.5, 0.2} → 4; each with
	// and without the fullness modifier → 8; plus 2 weight readings
	if st == nil || len(st.Rows) != 10 {
		t.Fatalf("sensitivity table: %+v", st)
	}
	if !strings.HasPrefix(st.Rows[0][0], "main") {
		t.Errorf("first reading %q", st.Rows[0][0])
	}
	fig2 := r.Table("Figure 2")
	if fig2 == nil || len(fig2.Rows) != 2*2*2 || !strings.Contains(fig2.Rows[0][5], "±") {
		t.Errorf("Figure 2 table: %+v", fig2)
	}
	if r.Table("MEM-test.swf, memory × 1: 60 jobs (0 skipped") == nil || r.Table("MEM-test.swf, memory × 0.5: 47 jobs (13 skipped") == nil {
		t.Errorf("real tables missing")
	}
	if !strings.Contains(strings.Join(r.Notes, "\n"), "missing: NOPE.swf") {
		t.Errorf("notes: %v", r.Notes)
	}
	if cells == 0 {
		t.Error("no progress reported")
	}
	c.Dists = []wkres.Dist{wkres.Exponential}
	c.Variants = []string{"easy"}
	if _, err := Kresource(c); err == nil {
		t.Error("a processor-only variant accepted")
	}
}

// The weight readings worked by hand: a job with requirements (2, 4) of
// capacities (8, 8) running 10 s weighs (2/8 + 4/8)·10 = 7.5 (sum),
// 0.5·10 = 5 (max), 0.25·10 = 2.5 (procs).
func TestKresWeight(t *testing.T) {
	var o job.Outcome
	o.Procs, o.Res, o.Start, o.End = 2, []int{4}, 0, 10
	for how, want := range map[string]float64{"sum": 7.5, "max": 5, "procs": 2.5} {
		if got := kresWeight(&o, []int{8, 8}, how); got != want {
			t.Errorf("%s: %g, want %g", how, got, want)
		}
	}
}

func TestNothingToRun(t *testing.T) {
	c := DefaultQoPS()
	c.Traces = t.TempDir()
	if _, err := QoPS(c); !errors.Is(err, ErrNothingToRun) {
		t.Errorf("QoPS with no traces: %v", err)
	}
	k := DefaultKres()
	k.Traces, k.NoSynthetic = c.Traces, true
	if _, err := Kresource(k); !errors.Is(err, ErrNothingToRun) {
		t.Errorf("Kresource with no traces: %v", err)
	}
}

// The multiple-queue/lookahead reproduction on a few batches: every
// finding gets a verdict, and the report does not depend on the workers.
func TestMQLookSeed(t *testing.T) {
	c := DefaultMQLook()
	c.Parts, c.Batches = []string{"seed"}, 4
	var outs []string
	for _, w := range []int{1, 3} {
		c.Workers = w
		r, err := MQLook(c)
		if err != nil {
			t.Fatal(err)
		}
		verdicts(t, r, "mql.mq-waits-longer", "mql.easy-least", "mql.la-best", "mql.la-util", "mql.mq-larger")
		r.Notes = nil
		var b strings.Builder
		_ = r.WriteText(&b)
		outs = append(outs, b.String())
	}
	if outs[0] != outs[1] {
		t.Errorf("output depends on the workers:\n%s\n---\n%s", outs[0], outs[1])
	}
}

// Slack on two months: the claims are checked on the first machine size.
func TestSlackMonths(t *testing.T) {
	if longtest.Short() {
		t.Skip("simulates two KTH months 20 times")
	}
	c := DefaultSlack()
	c.Procs, c.Months = []int{128}, []string{"1996-09", "1996-10"}
	r, err := Slack(c)
	if err != nil {
		t.Fatal(err)
	}
	verdicts(t, r, "slack.vs-cons", "slack.vs-easy", "slack.sf9", "slack.heuristics", "slack.prio-low", "slack.prio-total")
	if c := r.Claim("slack.prio-low"); c != nil && !strings.Contains(c.Published, "+14.4 %") {
		t.Errorf("prio-low published: %q", c.Published)
	}
}

// Estimates with no traces: KTH from the embedded copy, the others
// reported missing, the slides' own "better by" column printed.
func TestEstimatesMissingTraces(t *testing.T) {
	if longtest.Short() {
		t.Skip("simulates KTH three times")
	}
	c := DefaultEstimates()
	c.Traces, c.Parts = t.TempDir(), []string{"sjbf"}
	r, err := Estimates(c)
	if err != nil {
		t.Fatal(err)
	}
	verdicts(t, r, "est.sjbf.kth-sp2", "est.easy++.kth-sp2")
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{"missing: SDSC-SP2-1998-4.2-cln.swf.gz", "using the embedded copy"} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q: %s", want, notes)
		}
	}
	if tb := r.Table(""); tb == nil || tb.Cell("KTH-SP2", "better by") != "-11%" {
		t.Errorf("the slides' SJBF column: %+v", tb)
	}
}

// QoPS on small subsets of the real traces (when present): every finding
// gets a verdict, the region table covers K × backtrack × R at the two
// highest loads, and the s = 0.5 reading is stated.
func TestQoPSSmall(t *testing.T) {
	dir := filepath.Join("..", "..", "shared", "traces")
	if _, err := os.Stat(filepath.Join(dir, "CTC-SP2-1996-3.1-cln.swf.gz")); err != nil {
		t.Skip("CTC-SP2 not in ../shared/traces")
	}
	if testing.Short() {
		t.Skip("about 200 small simulations")
	}
	c := DefaultQoPS()
	c.Traces, c.Jobs, c.Offset, c.Loads = dir, 200, 1000, []float64{1, 1.4}
	c.RegionK, c.RegionBacktrack, c.RegionR = []int{1, 5}, []int{10}, []float64{2, 5}
	r, err := QoPS(c)
	if err != nil {
		t.Fatal(err)
	}
	verdicts(t, r, "qops.admits-most", "qops.admits-most-mixed", "qops.util-s02", "qops.util-s05", "qops.falls-at-top",
		"qops.converge", "qops.nd-better", "qops.fig43", "qops.r-trend")
	reg := r.Table("unadmitted deadline jobs % (QoPS / MSB / MRT) at the two highest loads")
	// all deadline jobs: 2 K × 1 backtrack × 2 loads; 80 %: × 2 R
	if reg == nil || len(reg.Rows) != 4+8 {
		t.Fatalf("region table: %+v", reg)
	}
	if s := r.Claim("qops.util-s05"); s.Verdict == ReproducedUnder && !strings.Contains(s.Setting, "further drop") {
		t.Errorf("s = 0.5 reading: %+v", s)
	}
}

// A setting with another exponential mean is checked on the uniform cells
// of its pow2 too (the uniform does not depend on the mean), so that its
// uniform-vs-exponential figure compares both distributions.
func TestKresReadingCells(t *testing.T) {
	sets := []kresSetting{{4, 0.5}, {4, 0.2}, {1, 0.5}, {1, 0.2}}
	var cells []kresCell
	add := func(set int, d wkres.Dist) { cells = append(cells, kresCell{set: set, dist: d}) }
	add(0, wkres.Uniform)
	add(0, wkres.Exponential)
	add(1, wkres.Exponential)
	add(2, wkres.Uniform)
	add(2, wkres.Exponential)
	add(3, wkres.Exponential)
	for set, want := range map[int][]int{0: {0, 0}, 1: {0, 1}, 2: {2, 2}, 3: {2, 3}} {
		got := kresReadingCells(cells, sets, set, 0.5)
		if len(got) != 2 || got[0].set != want[0] || got[0].dist != wkres.Uniform || got[1].set != want[1] || got[1].dist != wkres.Exponential {
			t.Errorf("setting %d: %+v", set, got)
		}
	}
}
