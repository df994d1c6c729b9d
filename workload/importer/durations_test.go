package importer

import (
	"strings"
	"testing"
)

// TestDurationRanges: a duration field out of its range (minutes or seconds
// ≥ 60, hours ≥ 24 after a day count) is malformed, not silently carried
// into the next unit: sacct and PBS never print one, so it means a damaged
// or hand-edited record.
func TestDurationRanges(t *testing.T) {
	for _, s := range []string{"1-25:00:00", "1-23:61:00", "1-23:00:60", "00:60:00", "00:00:61", "12:60", "2-24", "2-00:60", "1:99:99"} {
		if v, err := parseDuration([]byte(s)); err == nil {
			t.Errorf("parseDuration(%q) = %d, accepted", s, v)
		}
	}
	// hours without a day count and minutes without hours are not bounded
	// (Slurm accepts --time=90:00 and prints 48:00:00 in some tools)
	for s, want := range map[string]int64{"48:00:00": 48 * 3600, "90:00": 5400, "1-23:59:59": 86400 + 86399, "00:59:59.9": 3599} {
		if got, err := parseDuration([]byte(s)); err != nil || got != want {
			t.Errorf("parseDuration(%q) = %d, %v; want %d", s, got, err, want)
		}
	}
}

// TestPBSDurations: PBS and Torque durations are [[HH:]MM:]SS[.ms] or an
// integer number of SECONDS (PBS Pro reference guide, "Duration"), not
// Slurm's minutes: walltime=3600 is one hour.
func TestPBSDurations(t *testing.T) {
	base := "03/01/2024 12:20:00;E;202.pbspro;user=dan queue=workq qtime=1709295600 start=1709295610 end=1709295620 Resource_List.ncpus=2 Exit_status=0"
	for wt, want := range map[string]int64{"3600": 3600, "01:00:00": 3600, "72:00:00": 72 * 3600, "90:00": 5400, "45": 45, "00:00:10.5": 10} {
		im, err := ReadPBS([]PBSInput{{"p.log", strings.NewReader(base + " Resource_List.walltime=" + wt + "\n")}}, Options{})
		if err != nil || len(im.Jobs) != 1 || im.Jobs[0].Limit != want {
			t.Errorf("walltime=%s: %v, jobs %+v; want limit %d", wt, err, im.Jobs, want)
		}
	}
	for _, wt := range []string{"1:99:99", "1-00:00:00", "00:60:00", "x"} {
		_, err := ReadPBS([]PBSInput{{"p.log", strings.NewReader(base + " Resource_List.walltime=" + wt + "\n")}}, Options{})
		if err == nil || !strings.HasPrefix(err.Error(), "p.log:1: Resource_List.walltime: expected") {
			t.Errorf("walltime=%s: error %v", wt, err)
		}
	}
}

// TestArrayTaskListedTwice: overlapping ranges in a pending array record
// (123_[1-3,2-4]) would write tasks 2 and 3 twice; sacct never prints
// them, so the record is malformed.
func TestArrayTaskListedTwice(t *testing.T) {
	rec := "123_[1-3,2-4]|123|CANCELLED|2024-01-01T00:00:00|2024-01-01T00:00:00|None|2024-01-01T00:05:00|00:00:00|01:00:00|alice|users|acct|debug|normal|1|4|cpu=4|\n"
	_, err := ReadSacct(strings.NewReader(rec), "d.txt", Options{})
	if err == nil || !strings.HasPrefix(err.Error(), `d.txt:1: JobID: array range "123_[1-3,2-4]": task 2 listed twice`) {
		t.Errorf("error %v", err)
	}
	im, err := ReadSacct(strings.NewReader(strings.Replace(rec, "1-3,2-4", "1-3,5:1", 1)), "d.txt", Options{})
	if err != nil || len(im.Jobs) != 4 {
		t.Errorf("1-3,5: %v, %d jobs", err, len(im.Jobs))
	}
}
