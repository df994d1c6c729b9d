package report

import (
	"bytes"
	"encoding/json"
	"flag"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/metrics"
)

var update = flag.Bool("update", false, "rewrite the golden files")

// testdata/sim-small was written by
//
//	backfill simulate --trace kth-slice.swf --procs 16 --clamp \
//	    --policy fcfs,easy,easy:depth=2,conservative --out testdata/sim-small
//
// on 60 jobs of the KTH SP2 trace (SWF jobs 1014–1073); the SWF schedules
// and text summaries were removed. It is committed so that this golden test
// checks the report, not the policies.
const simSmall = "testdata/sim-small"

func TestGoldenData(t *testing.T) {
	res, err := Load(simSmall, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := Build(res, BuildOptions{Title: "golden", Bins: 48, CDFPoints: 20})
	if err != nil {
		t.Fatal(err)
	}
	got, err := DataJSON(d)
	if err != nil {
		t.Fatal(err)
	}
	golden := filepath.Join("testdata", "golden-data.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("%v (run go test ./report -run Golden -update)", err)
	}
	if !bytes.Equal(got, want) {
		gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("report data differs from %s at line %d:\n got %s\nwant %s\n(go test ./report -run Golden -update rewrites it after a deliberate change)", golden, i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("report data differs from %s in length (%d vs %d lines)", golden, len(gl), len(wl))
	}
	// The page embeds exactly this data.
	var page bytes.Buffer
	if err := WriteHTML(&page, d); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	_, rest, ok := strings.Cut(html, `<script type="application/json" id="report-data">`)
	embedded, _, ok2 := strings.Cut(rest, "</script>")
	if !ok || !ok2 {
		t.Fatal("no report-data script in the page")
	}
	var a, b any
	if err := json.Unmarshal([]byte(embedded), &a); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(got, &b); err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Error("the page's embedded JSON is not the golden data")
	}
	for _, bad := range []string{"http://", "https://", "src=", "href=\"http"} {
		if i := strings.Index(strings.ReplaceAll(html, echartsJS, ""), bad); i >= 0 && !strings.Contains(html[max(0, i-80):i+40], "w3.org") {
			// our own markup and script must reference nothing outside the page
			if bad != "https://" || !strings.Contains(html[max(0, i-80):i+60], "echarts.apache.org") {
				t.Errorf("page references %q: …%s…", bad, html[max(0, i-60):min(len(html), i+60)])
			}
		}
	}
}

// The loader recomputes each summary from jobs.csv; it must agree with the
// summary simulate wrote (summary.json) to the last digit.
func TestLoadSimulateDirMatchesSummary(t *testing.T) {
	res, err := Load(simSmall, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	labels := []string{}
	for _, r := range res.Runs {
		labels = append(labels, r.Label)
	}
	if want := []string{"fcfs", "easy", "easy:depth=2", "conservative"}; !slices.Equal(labels, want) {
		t.Fatalf("runs %v, want %v (summary.json order)", labels, want)
	}
	b, err := os.ReadFile(filepath.Join(simSmall, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	var env struct {
		Results []struct {
			Policy string `json:"policy"`
			metrics.Summary
		} `json:"results"`
	}
	if err := json.Unmarshal(b, &env); err != nil {
		t.Fatal(err)
	}
	for i, r := range res.Runs {
		w := env.Results[i].Summary
		g := r.Summary
		if g.All != w.All || g.Short != w.Short || g.Long != w.Long || g.Makespan != w.Makespan ||
			math.Abs(g.Utilization-w.Utilization) > 1e-15 || g.Excluded != w.Excluded {
			t.Errorf("%s: summary from jobs.csv\n %+v\nsummary.json\n %+v", r.Label, g, w)
		}
		if r.Procs != 16 || r.Trace != "kth-slice.swf" || r.Opt.Tau != 10 || len(r.Outcomes) != 60 {
			t.Errorf("%s: procs %d trace %q tau %d jobs %d", r.Label, r.Procs, r.Trace, r.Opt.Tau, len(r.Outcomes))
		}
	}
	// conservative's promised bounds survive the round trip
	cons := res.Runs[3]
	n := 0
	for _, o := range cons.Outcomes {
		if o.Bound >= 0 {
			n++
			if o.Start > o.Bound {
				t.Errorf("job %d started at %d after its bound %d", o.SWFID, o.Start, o.Bound)
			}
		}
	}
	if n != 60 {
		t.Errorf("conservative: %d jobs with a bound, want 60", n)
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	header := "job_id,submission_time,requested_number_of_resources,starting_time,finish_time\n"
	cases := []struct {
		name, text string
		procs      int
		want       string
	}{
		{"noprocs.csv", header + "1,0,1,0,10\n", 0, "machine size unknown"},
		{"nocol.csv", "# machine: 4 processors\njob_id,submission_time\n1,0\n", 0, `nocol.csv:2: expected a "requested_number_of_resources" column`},
		{"badint.csv", header + "1,0,x,0,10\n", 4, `badint.csv:2: requested_number_of_resources: expected an integer, found "x"`},
		{"big.csv", header + "1,0,5,0,10\n", 4, `big.csv:2: requested_number_of_resources: expected a size in 1..4 (the machine size), found 5`},
		{"order.csv", header + "1,0,1,20,10\n", 4, "order.csv:2: finish_time 10 is before starting_time 20"},
		{"fields.csv", header + "1,0,1\n", 4, "fields.csv:2: expected 5 fields as in the header, found 3"},
		{"empty.csv", "# machine: 4 processors\n", 0, "empty.csv:2: expected the CSV header line"},
	}
	for _, c := range cases {
		_, err := LoadJobsCSV(write(c.name, c.text), LoadOptions{Procs: c.procs})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
	if _, err := Load(dir, LoadOptions{}); err == nil {
		t.Error("a directory of bad CSVs loaded") // *.jobs.csv absent: not a results dir
	}
	if _, err := Load(t.TempDir(), LoadOptions{}); err == nil || !strings.Contains(err.Error(), "not a results directory") {
		t.Errorf("empty dir: %v", err)
	}
}

// A Batsim jobs.csv (no extra columns of ours, float walltimes, final_state)
// loads with --procs.
func TestLoadBatsimCSV(t *testing.T) {
	p := filepath.Join(t.TempDir(), "jobs.csv")
	text := "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,consumed_energy,metadata\n" +
		"1,w0,p,0,2,100.0,1,COMPLETED_SUCCESSFULLY,0,50,50,0,50,1,0-1,-1,\n" +
		"2,w0,p,5,4,60.000000,0,COMPLETED_KILLED,50,60,110,45,105,1.75,0-3,-1,\n"
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	r, err := LoadJobsCSV(p, LoadOptions{Procs: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Outcomes) != 2 || r.Outcomes[1].Estimate != 60 || !r.Outcomes[1].Killed || r.Outcomes[0].Killed || r.Label != "jobs" {
		t.Errorf("%+v", r.Outcomes)
	}
	if r.Summary.All.MeanWait != 22.5 {
		t.Errorf("mean wait %v, want 22.5", r.Summary.All.MeanWait)
	}
}

func TestIntegrate(t *testing.T) {
	// level 2 on [5, 15), 1 on [15, 30); bins of 10 from 0
	ev := []event{{5, 2}, {15, -1}, {30, -1}}
	got := integrate(ev, 0, 10, 4)
	want := []float64{1, 1.5, 1, 0}
	if !slices.Equal(got, want) {
		t.Errorf("integrate = %v, want %v", got, want)
	}
}

func TestWaitCDF(t *testing.T) {
	r := &Run{}
	for _, w := range []int64{0, 0, 10, 20, 20, 30, 100, 100, 100, 1000} {
		r.Outcomes = append(r.Outcomes, oc(len(r.Outcomes), w, w+5, 1))
	}
	pts := waitCDF(r.Outcomes, r.Opt, 5)
	want := [][2]float64{{0, 0.2}, {20, 0.5}, {30, 0.6}, {100, 0.9}, {1000, 1}}
	if !slices.Equal(pts, want) {
		t.Errorf("cdf %v, want %v", pts, want)
	}
}

func TestSummaryBest(t *testing.T) {
	res, err := Load(simSmall, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	tab := summaryTable(res, make([]int, len(res.Runs)))
	col := func(k string) int {
		for i, c := range tab.Columns {
			if c.Key == k {
				return i
			}
		}
		t.Fatalf("no column %s", k)
		return -1
	}
	// easy and easy:depth=2 tie on mean wait (same schedule here): both marked
	if b := tab.Best[col("mean_wait")]; !slices.Equal(b, []int{1, 2}) {
		t.Errorf("best mean wait rows %v, want [1 2]", b)
	}
	if b := tab.Best[col("utilization")]; !slices.Equal(b, []int{1, 2}) {
		t.Errorf("best utilization rows %v, want [1 2]", b)
	}
	if b := tab.Best[col("jobs")]; len(b) != 0 {
		t.Errorf("jobs column marked %v", b)
	}
}

func TestLinesDefaults(t *testing.T) {
	res, err := Load(simSmall, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if v := Variables(res); !slices.Equal(v, []string{"depth"}) {
		t.Fatalf("variables %v, want [depth]", v)
	}
	ls := Lines(res, "depth")
	if len(ls) != 1 || ls[0].Name != "easy" || !slices.Equal(ls[0].X, []float64{1, 2}) {
		t.Fatalf("lines %+v, want easy at depth 1 (default) and 2", ls)
	}
	a := Aggregate([]float64{1, 2, 3, 4})
	// mean 2.5, sd 1.29099, t(0.975, 3) = 3.18245: ci = 3.18245*1.29099/2
	if math.Abs(a.Mean-2.5) > 1e-12 || math.Abs(a.CI95-2.0543) > 1e-3 || a.Min != 1 || a.Max != 4 || a.N != 4 {
		t.Errorf("aggregate %+v", a)
	}
}

func TestSetAxes(t *testing.T) {
	r := &Run{Procs: 2, Header: []string{"trace: x", "rule: estimate model factor:3, seed 7 (applied after ingestion; the user's estimates are its input)"}}
	// work 2*50 + 1*100 = 200 over 2 procs and 100 s: load 1
	r.Outcomes = append(r.Outcomes, oc(0, 0, 50, 2), oc(1, 0, 100, 1))
	r.Outcomes[0].Runtime, r.Outcomes[1].Runtime = 50, 100
	r.Outcomes[1].Submit = 100
	r.SetAxes()
	want := []KV{{"estimate", "factor:3"}, {"load", "1.000"}, {"seed", "7"}}
	if !slices.Equal(r.Axes, want) {
		t.Errorf("axes %v, want %v", r.Axes, want)
	}
}
