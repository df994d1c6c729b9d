package workload

import (
	"fmt"
	"time"
	_ "time/tzdata" // the trace's time zone must resolve on any machine

	"github.com/backfill-hpc/backfill/job"
)

// Part is a subset of a trace's jobs, re-numbered so that it can be
// simulated on its own (IDs 0..N-1 in submission order).
type Part struct {
	Name string // e.g. "1996-09"
	Jobs []job.Job
}

// SplitMonths splits a trace into calendar months by submission time, in
// the trace's own time zone: the header's UnixStartTime is the epoch of
// submit time 0, and TimeZoneString (an IANA name such as
// Europe/Stockholm) the zone, else the TimeZone offset in seconds, else
// UTC. Months without jobs are omitted. Each part keeps the original
// submit times (a simulation of one month starts from an empty machine at
// its first submission).
func SplitMonths(tr *Trace) ([]Part, error) {
	if tr.Header.UnixStartTime <= 0 {
		return nil, fmt.Errorf("%s: the header gives no UnixStartTime, so calendar months are unknown", tr.Name)
	}
	loc := time.UTC
	if tz := tr.Header.TimeZoneString; tz != "" {
		l, err := time.LoadLocation(tz)
		if err != nil {
			return nil, fmt.Errorf("%s: TimeZoneString %q: %w", tr.Name, tz, err)
		}
		loc = l
	} else if tr.Header.TimeZone > 0 || tr.Header.TimeZone < -1 {
		loc = time.FixedZone("trace", int(tr.Header.TimeZone))
	}
	var parts []Part
	for _, j := range tr.Jobs {
		t := time.Unix(tr.Header.UnixStartTime+j.Submit, 0).In(loc)
		name := fmt.Sprintf("%04d-%02d", t.Year(), int(t.Month()))
		if len(parts) == 0 || parts[len(parts)-1].Name != name {
			parts = append(parts, Part{Name: name})
		}
		p := &parts[len(parts)-1]
		j.ID = len(p.Jobs)
		p.Jobs = append(p.Jobs, j)
	}
	return parts, nil
}
