package report

import (
	"bytes"
	"os"
	"testing"
)

// FuzzReadJobsCSV: any input gives a run or an error, never a panic; a run
// that loads also builds (placement, time series, CDF) without a panic.
// Seeds: the fixture's files and small hand-made cases.
func FuzzReadJobsCSV(f *testing.F) {
	for _, name := range []string{"easy.jobs.csv", "conservative.jobs.csv"} {
		b, err := os.ReadFile(simSmall + "/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("# machine: 4 processors\njob_id,submission_time,requested_number_of_resources,starting_time,finish_time\n1,0,4,0,10\n2,3,1,-1,-1\n"))
	f.Add([]byte("# machine: 2 processors\njob_id,submission_time,requested_number_of_resources,starting_time,finish_time,bound,killed\n1,0,1,0,0,0,1\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, err := readJobsCSV(bytes.NewReader(data), "fuzz.csv", LoadOptions{})
		if err != nil {
			return
		}
		if len(run.Outcomes) > 2000 || run.Procs > 1<<16 {
			return // keep each case fast
		}
		for i := range run.Outcomes {
			o := &run.Outcomes[i]
			if o.Start > 1<<40 || o.End > 1<<40 || o.Submit < -(1<<40) || o.Submit > 1<<40 || o.Start < -(1<<40) {
				return
			}
		}
		// an error (a schedule far over the machine) is fine; a panic is not
		_, _ = Build(&Results{Kind: "fuzz", Path: "fuzz.csv", Runs: []*Run{run}}, BuildOptions{Bins: 16, CDFPoints: 8})
	})
}
