package report

import "testing"

// A run directory written before internal/parquet (by parquet-go v0.32.0,
// internal/parquet/testdata) still reads, in full and column by column,
// with the same jobs.
func TestReadsJobsOfTheEarlierParquetLibrary(t *testing.T) {
	const path = "../internal/parquet/testdata/jobs-parquet-go-v0.32.0.parquet"
	n, err := sweepJobRows(path)
	if err != nil || n != 1500 {
		t.Fatalf("rows %d, %v; want 1500", n, err)
	}
	full, err := readSweepJobs(path, true)
	if err != nil {
		t.Fatal(err)
	}
	stats, err := readSweepJobs(path, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 1500 || len(stats) != 1500 {
		t.Fatalf("%d and %d jobs", len(full), len(stats))
	}
	// the first row, as parquet-go reads it (testdata's .tsv): job 115,
	// submitted at 673896 on 1 processor, estimate 7200, runtime 1311
	f := full[0]
	if f.SWFID != 115 || f.Submit != 673896 || f.Procs != 1 || f.Estimate != 7200 || f.Runtime != 1311 || f.User != 19 || f.End != 675207 {
		t.Errorf("first job %+v", f)
	}
	for i := range full {
		a, b := full[i], stats[i]
		if a.Submit != b.Submit || a.Procs != b.Procs || a.Start != b.Start || a.End != b.End || a.Killed != b.Killed || a.Runtime != b.Runtime {
			t.Fatalf("job %d: full %+v, columns %+v", i, a, b)
		}
	}
}
