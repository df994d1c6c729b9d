package metrics

import (
	"bytes"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/job"
)

// admissionSample: 4 processors. Jobs 0 and 2 have no deadline; 1, 3 and
// 4 have one; 3 and 4 were rejected; 1 missed its deadline by 10 s.
//
//	id procs runtime deadline  admitted  start end
//	 0     2     100        -  yes           0 100
//	 1     1      50      150  yes         110 160  (miss)
//	 2     4      10        -  yes         160 170
//	 3     2     200      500  no
//	 4     1     100      300  no
func admissionSample() []job.Outcome {
	o := []job.Outcome{
		out(0, 0, 0, 100, 2, 100, 100, false),
		out(1, 10, 110, 160, 1, 50, 50, false),
		out(2, 20, 160, 170, 4, 10, 10, false),
		out(3, 30, -1, -1, 2, 200, 200, false),
		out(4, 40, -1, -1, 1, 100, 100, false),
	}
	o[1].Deadline = 150
	o[3].Deadline, o[3].Rejected, o[3].Reason = 500, true, "no feasible schedule"
	o[4].Deadline, o[4].Rejected = 300, true
	return o
}

func TestAdmission(t *testing.T) {
	s := Summarize(admissionSample(), Options{Procs: 4})
	a := s.Admission
	if a == nil {
		t.Fatal("no AdmissionStats")
	}
	// work: 200, 50, 40, 400, 100 = 790; rejected 500; deadline jobs 550, rejected 500
	want := AdmissionStats{Jobs: 5, DeadlineJobs: 3, Rejected: 2, RejectedDeadline: 2,
		Unadmitted: 0.4, UnadmittedWork: 500.0 / 790, UnadmittedDeadline: 2.0 / 3, UnadmittedDeadlineWork: 500.0 / 550,
		Misses: 1}
	got := *a
	got.Deadline, got.NonDeadline = Stats{}, Stats{}
	if got != want {
		t.Errorf("AdmissionStats = %+v\nwant %+v", got, want)
	}
	// non-deadline jobs 0 and 2: responses 100 and 150, bsld 1 and 15
	if nd := a.NonDeadline; nd.Jobs != 2 || nd.MeanResponse != 125 || nd.MeanBSLD != 8 {
		t.Errorf("NonDeadline = %+v", nd)
	}
	if d := a.Deadline; d.Jobs != 1 || d.MeanResponse != 150 || d.MeanWait != 100 {
		t.Errorf("Deadline = %+v", d)
	}
	// rejected jobs are not measured, and utilization counts admitted work:
	// 290 processor-seconds over 4 × 170
	if s.All.Jobs != 3 || s.Utilization != 290.0/680 || s.LastEnd != 170 {
		t.Errorf("All.Jobs = %d, Utilization = %v, LastEnd = %d", s.All.Jobs, s.Utilization, s.LastEnd)
	}
	if Summarize(sample(), Options{}).Admission != nil {
		t.Error("AdmissionStats for a schedule without deadlines")
	}
}

func TestAdmissionOutputs(t *testing.T) {
	rows := []Row{{"qops", Summarize(admissionSample(), Options{Procs: 4})}, {"easy", Summarize(sample(), Options{Procs: 4})}}
	var b bytes.Buffer
	if err := WriteTable(&b, rows); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "unadmitted %") || !strings.Contains(b.String(), "40.00") {
		t.Errorf("table lacks the admission block:\n%s", b.String())
	}
	b.Reset()
	if err := WriteCSV(&b, rows); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if !strings.HasSuffix(lines[0], ",deadline_mean_bsld") || len(lines) != 3 ||
		strings.Count(lines[1], ",") != strings.Count(lines[0], ",") || strings.Count(lines[2], ",") != strings.Count(lines[0], ",") {
		t.Errorf("CSV with admission columns:\n%s", b.String())
	}
	b.Reset()
	if err := WriteJobsCSV(&b, admissionSample(), "w", 0, nil); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), ",deadline,reason\n") || !strings.Contains(b.String(), "\n1003,w,30,2,200,0,REJECTED,,,,,,,,200,200,,1,0,,500,no feasible schedule\n") {
		t.Errorf("jobs CSV with a rejected job:\n%s", b.String())
	}
}
