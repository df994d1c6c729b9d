package executor

import "testing"

func TestParseShowJob(t *testing.T) {
	out := "JobId=12 JobName=bf-ab-3 UserId=root(0) JobState=FAILED Reason=NonZeroExitCode Dependency=(null) ExitCode=3:0 RunTime=00:00:01\n" +
		"JobId=13 JobName=bf-ab-4 JobState=CANCELLED Reason=None ExitCode=0:15\n" +
		"JobId=14 JobName=x JobState=PENDING Reason=JobHeldUser ExitCode=0:0\n\n"
	js := parseShowJob(out)
	if len(js) != 3 {
		t.Fatalf("%d jobs", len(js))
	}
	if j := js[0]; j.ID != "12" || j.Name != "bf-ab-3" || j.State != "FAILED" || *j.Exit != 3 || j.Signal != 0 || !finished(j.State) || j.note() != "slurm: FAILED" {
		t.Fatalf("%+v", j)
	}
	if j := js[1]; j.Signal != 15 || j.note() != "slurm: CANCELLED, signal 15" {
		t.Fatalf("%+v", j)
	}
	if j := js[2]; finished(j.State) {
		t.Fatalf("%+v is not finished", j)
	}
}
