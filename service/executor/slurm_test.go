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

// TestSlurmMatchRefusesImpostors: after a restart a job is adopted only
// from a Slurm job of its name owned by the service's user, and by its
// stored id when there is one.
func TestSlurmMatchRefusesImpostors(t *testing.T) {
	s := &Slurm{uid: 1000}
	known := map[string]slurmJob{}
	for _, j := range parseShowJob(
		"JobId=20 JobName=bf-ab-1 UserId=mallory(1001) JobState=PENDING ExitCode=0:0\n" + // impostor: same name, other owner
			"JobId=21 JobName=bf-ab-2 UserId=svc(1000) JobState=RUNNING ExitCode=0:0\n" +
			"JobId=22 JobName=bf-ab-3 UserId=svc(1000) JobState=COMPLETED ExitCode=0:0\n") {
		known[j.ID] = j
	}
	if j := known["20"]; j.UID != 1001 {
		t.Fatalf("owner not parsed: %+v", j)
	}
	cases := []struct {
		tag, ref string
		want     string // "" for none
	}{
		{"bf-ab-1", "", ""},     // only another user's job has the name
		{"bf-ab-1", "20", ""},   // the stored id is another user's job
		{"bf-ab-2", "", "21"},   // ours, by name and owner
		{"bf-ab-2", "21", "21"}, // ours, by stored id
		{"bf-ab-3", "21", ""},   // the stored id now names another job
		{"bf-ab-3", "", "22"},
	}
	for _, c := range cases {
		sj, ok := s.match(Job{Tag: c.tag, Ref: c.ref}, known)
		got := ""
		if ok {
			got = sj.ID
		}
		if got != c.want {
			t.Errorf("tag %s ref %q: matched %q, want %q", c.tag, c.ref, got, c.want)
		}
	}
}
