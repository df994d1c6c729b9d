package metrics

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

func sampleRows() []Row {
	return []Row{
		{"fcfs", Summarize(sample(), Options{Procs: 4})},
		{"easy-backfilling", Summarize(sample(), Options{Procs: 4, WarmUp: 15, Drain: 5})},
		{"empty", Summary{}},
	}
}

const goldenTable = `policy            jobs  mean wait (s)  median wait (s)  p90 wait (s)  p99 wait (s)  max wait (s)  mean resp (s)  mean bsld  util %  makespan (s)  killed
fcfs                 5         1644.0             80.0        4070.0        4070.0        4070.0         3905.0      82.22   83.64       11300.0       1
easy-backfilling     2         2075.0             80.0        4070.0        4070.0        4070.0         7675.0       1.29   83.64       11300.0       1
empty                0              —                —             —             —             —              —          —       —             —       0

policy            short jobs  short wait (s)  short resp (s)  short bsld  long jobs  long wait (s)  long resp (s)  long bsld
fcfs                       3          1356.7          1391.7      136.17          2         2075.0         7675.0       1.29
easy-backfilling           0               —               —           —          2         2075.0         7675.0       1.29
empty                      0               —               —           —          0              —              —          —
`

// TestHumanDuration: worked by hand. 1644 s = 27 min 24 s; 353,943 s =
// 4 days (345,600 s) + 8,343 s = 4 d 2 h (7,200 s) + …; 3,905 s = 1 h 5 min 5 s.
func TestHumanDuration(t *testing.T) {
	for x, want := range map[float64]string{0: "0 s", 59.4: "59 s", 1644: "27m 24s", 3905: "1h 05m", 353943: "4d 02h", -90: "-1m 30s"} {
		if got := HumanDuration(x); got != want {
			t.Errorf("HumanDuration(%v) = %q, want %q", x, got, want)
		}
	}
	var b bytes.Buffer
	if err := WriteTableWith(&b, sampleRows(), TableOptions{Human: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "27m 24s") || strings.Contains(b.String(), "(s)") {
		t.Errorf("human table:\n%s", b.String())
	}
}

// A run without jobs has no means, percentiles, utilization or makespan:
// its overall row prints "—" for them (not 0.0, which reads as a
// measurement), as the per-class rows do.
func TestWriteTableGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteTable(&b, sampleRows()); err != nil {
		t.Fatal(err)
	}
	if b.String() != goldenTable {
		t.Errorf("table mismatch:\n got:\n%s\nwant:\n%s", b.String(), goldenTable)
	}
}

const goldenCSV = `policy,jobs,mean_wait,median_wait,p90_wait,p99_wait,max_wait,mean_response,mean_bsld,killed,utilization_pct,makespan,first_submit,last_end,excluded,short_jobs,short_mean_wait,short_median_wait,short_p90_wait,short_p99_wait,short_max_wait,short_mean_response,short_mean_bsld,short_killed,long_jobs,long_mean_wait,long_median_wait,long_p90_wait,long_p99_wait,long_max_wait,long_mean_response,long_mean_bsld,long_killed
fcfs,5,1644.0,80.0,4070.0,4070.0,4070,3905.0,82.22,1,83.64,11300,0,11300,0,3,1356.7,10.0,4060.0,4060.0,4060,1391.7,136.17,0,2,2075.0,80.0,4070.0,4070.0,4070,7675.0,1.29,1
easy-backfilling,2,2075.0,80.0,4070.0,4070.0,4070,7675.0,1.29,1,83.64,11300,0,11300,3,0,0.0,0.0,0.0,0.0,0,0.0,0.00,0,2,2075.0,80.0,4070.0,4070.0,4070,7675.0,1.29,1
empty,0,0.0,0.0,0.0,0.0,0,0.0,0.00,0,0.00,0,0,0,0,0,0.0,0.0,0.0,0.0,0,0.0,0.00,0,0,0.0,0.0,0.0,0.0,0,0.0,0.00,0
`

func TestWriteCSVGolden(t *testing.T) {
	var b bytes.Buffer
	if err := WriteCSV(&b, sampleRows()); err != nil {
		t.Fatal(err)
	}
	if b.String() != goldenCSV {
		t.Errorf("CSV mismatch:\n got:\n%s\nwant:\n%s", b.String(), goldenCSV)
	}
}

func TestWriteJSON(t *testing.T) {
	rows := sampleRows()
	var b1, b2 bytes.Buffer
	if err := WriteJSON(&b1, rows); err != nil {
		t.Fatal(err)
	}
	WriteJSON(&b2, rows)
	if b1.String() != b2.String() {
		t.Error("JSON output not deterministic")
	}
	// Field names are part of the format.
	for _, key := range []string{`"policy": "fcfs"`, `"all": {`, `"short": {`, `"long": {`,
		`"jobs": 5`, `"mean_wait": 1644,`, `"median_wait": 80,`, `"p90_wait": 4070,`,
		`"p99_wait": 4070,`, `"max_wait": 4070,`, `"mean_response": 3905,`, `"mean_bsld": 82.2170555`,
		`"killed": 1`, `"utilization": 0.83639380`, `"makespan": 11300,`, `"first_submit": 0,`,
		`"last_end": 11300,`, `"excluded": 3`} {
		if !strings.Contains(b1.String(), key) {
			t.Errorf("JSON lacks %s", key)
		}
	}
	var back []struct {
		Policy string `json:"policy"`
		Summary
	}
	if err := json.Unmarshal(b1.Bytes(), &back); err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[0].Policy != "fcfs" || back[0].Summary != rows[0].S || back[1].Summary != rows[1].S {
		t.Errorf("JSON round trip: %+v", back)
	}
	var empty bytes.Buffer
	WriteJSON(&empty, nil)
	if empty.String() != "[]\n" {
		t.Errorf("empty JSON = %q", empty.String())
	}
}

const goldenJobs = `# trace: KTH-SP2, cleaned
# policy: easy
# kill: true
#
job_id,workload_name,submission_time,requested_number_of_resources,requested_time,success,final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,allocated_resources,runtime,estimate,bounded_slowdown,user,killed,bound
1000,KTH-SP2,0,2,100,1,COMPLETED_SUCCESSFULLY,0,100,100,0,100,1.000000,,100,100,1.000000,0,0,
1001,KTH-SP2,10,1,60,1,COMPLETED_SUCCESSFULLY,20,5,25,10,15,3.000000,,5,60,1.500000,1,0,
1002,KTH-SP2,20,4,5000,1,COMPLETED_SUCCESSFULLY,100,4000,4100,80,4080,1.020000,,4000,5000,1.020000,0,0,
1003,KTH-SP2,30,3,7200,0,COMPLETED_KILLED,4100,7200,11300,4070,11270,1.565278,,9000,7200,1.565278,1,1,
1004,KTH-SP2,40,1,60,1,COMPLETED_SUCCESSFULLY,4100,0,4100,4060,4060,,,0,60,406.000000,0,0,
`

func TestWriteJobsCSVGolden(t *testing.T) {
	var b bytes.Buffer
	// sample() is in reverse ID order; rows must come out in ID order.
	err := WriteJobsCSV(&b, sample(), "KTH-SP2", 0, []string{"trace: KTH-SP2, cleaned", "policy: easy\nkill: true", ""})
	if err != nil {
		t.Fatal(err)
	}
	if b.String() != goldenJobs {
		t.Errorf("jobs CSV mismatch:\n got:\n%s\nwant:\n%s", b.String(), goldenJobs)
	}
	// τ is honoured: job 4's bounded slowdown with τ = 100 is 40.6.
	b.Reset()
	WriteJobsCSV(&b, sample(), "w", 100, nil)
	if !strings.Contains(b.String(), "\n1004,w,40,1,60,1,COMPLETED_SUCCESSFULLY,4100,0,4100,4060,4060,,,0,60,40.600000,0,0,\n") ||
		strings.HasPrefix(b.String(), "#") {
		t.Errorf("τ=100 output:\n%s", b.String())
	}
	if err := WriteJobsCSV(&b, nil, "a#b", 0, nil); err == nil {
		t.Error("workload name with '#' accepted")
	}
}

func TestJobsCSVQuoting(t *testing.T) {
	var b bytes.Buffer
	o := []job.Outcome{out(0, 0, 0, 1, 1, 1, 1, false)}
	if err := WriteJobsCSV(&b, o, "a,b", 0, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), `1000,"a,b",0,`) {
		t.Errorf("workload name not quoted:\n%s", b.String())
	}
}

func TestJobsCSVBound(t *testing.T) {
	o := sample()
	o[0].Bound = 4500 // job 1004, promised to start by 4500, started at 4100
	var b bytes.Buffer
	if err := WriteJobsCSV(&b, o, "w", 0, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "\n1004,w,40,1,60,1,COMPLETED_SUCCESSFULLY,4100,0,4100,4060,4060,,,0,60,406.000000,0,0,4500\n") ||
		!strings.Contains(b.String(), "\n1000,w,0,2,100,1,COMPLETED_SUCCESSFULLY,0,100,100,0,100,1.000000,,100,100,1.000000,0,0,\n") {
		t.Errorf("bound column:\n%s", b.String())
	}
}
