package slurm

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/slurm"
)

// Recording is one cluster of a recording of the real slurmctld by
// .ci/slurm-record.sh (docs/reproductions.md): the jobs as Slurm ran them,
// its configuration, the timers' phases and the sprio samples.
type Recording struct {
	Conf slurm.Conf
	Tree *slurm.Tree
	// Jobs in submission order (ID = index): submit, CPUs and time limit
	// as submitted, runtime = End − Start as Slurm recorded it.
	Jobs []job.Job
	// Info of each job (user, account, QOS, nice), by ID.
	Info []slurm.Info
	// Start and End are the real times, by ID; SlurmID the job ids.
	Start, End []int64
	SlurmID    []int64
	// CtldStart is slurmctld's start: the first backfill cycle came
	// bf_interval later, and the priority calculations fall at CtldStart +
	// k·PriorityCalcPeriod.
	CtldStart int64
	// BfCycles are the backfill cycles' starts (whole seconds).
	BfCycles []int64
	// Sprio are the samples of sprio, in file order.
	Sprio []SprioSample
}

// SprioSample is one line of a sprio sample: at T, job SlurmID had
// priority Prio and these weighted factors (sprio's %A %F %J %P %Q, each
// factor times its weight, and the nice value %N).
type SprioSample struct {
	T, SlurmID int64
	Prio       int64
	W          slurm.Factors
}

// Resolver maps the recording's jobs to their associations.
func (r *Recording) Resolver() slurm.Resolver {
	return func(j *job.Request) slurm.Info { return r.Info[j.ID] }
}

// LoadRecording reads cluster name ("fs" or "nofs") of the recording in
// dir: slurm-NAME.conf, shares.txt, workload.csv (for the nice values),
// sacct-NAME.txt, bfcycles-NAME.txt and sprio-NAME.txt.
func LoadRecording(dir, name string) (*Recording, error) {
	r := &Recording{}
	var err error
	if r.Conf, err = slurm.ReadConf(filepath.Join(dir, "slurm-"+name+".conf")); err != nil {
		return nil, err
	}
	if r.Tree, err = slurm.ReadShares(filepath.Join(dir, "shares.txt")); err != nil {
		return nil, err
	}
	nice := map[string]int64{}
	if err := eachLine(filepath.Join(dir, "workload.csv"), ",", 9, func(f []string) error {
		n, err := strconv.ParseInt(f[5], 10, 64)
		nice[f[0]] = n
		return err
	}); err != nil {
		return nil, err
	}
	type rec struct {
		id, submit, start, end, limit int64
		cpus                          int
		in                            slurm.Info
	}
	var recs []rec
	if err := eachLine(filepath.Join(dir, "sacct-"+name+".txt"), "|", 13, func(f []string) error {
		if f[0] == "JobID" {
			return nil
		}
		var x rec
		var errs [6]error
		x.id, errs[0] = strconv.ParseInt(f[0], 10, 64)
		x.submit, errs[1] = strconv.ParseInt(f[5], 10, 64)
		x.start, errs[2] = strconv.ParseInt(f[7], 10, 64)
		x.end, errs[3] = strconv.ParseInt(f[8], 10, 64)
		x.cpus, errs[4] = strconv.Atoi(f[10])
		x.limit, errs[5] = slurm.ParseDuration(f[11])
		for _, e := range errs {
			if e != nil {
				return e
			}
		}
		if f[12] != "COMPLETED" {
			return fmt.Errorf("job %s ended %s, not COMPLETED", f[0], f[12])
		}
		x.in = slurm.Info{User: strings.TrimPrefix(f[2], "bfu_"), Account: f[3], QOS: f[4], Nice: nice[f[1]]}
		recs = append(recs, x)
		return nil
	}); err != nil {
		return nil, err
	}
	sort.Slice(recs, func(a, b int) bool {
		if recs[a].submit != recs[b].submit {
			return recs[a].submit < recs[b].submit
		}
		return recs[a].id < recs[b].id
	})
	byID := map[int64]int{}
	for i, x := range recs {
		r.Jobs = append(r.Jobs, job.Job{Request: job.Request{ID: i, SWFID: x.id, Submit: x.submit, Procs: x.cpus, Estimate: x.limit,
			User: -1, Group: -1, Queue: -1, Partition: -1}, Runtime: x.end - x.start})
		r.Info = append(r.Info, x.in)
		r.Start = append(r.Start, x.start)
		r.End = append(r.End, x.end)
		r.SlurmID = append(r.SlurmID, x.id)
		byID[x.id] = i
	}
	if err := eachLine(filepath.Join(dir, "bfcycles-"+name+".txt"), " ", 1, func(f []string) error {
		t, err := strconv.ParseInt(f[0], 10, 64)
		r.BfCycles = append(r.BfCycles, t)
		return err
	}); err != nil {
		return nil, err
	}
	if len(r.BfCycles) == 0 {
		return nil, fmt.Errorf("%s: no backfill cycle recorded", name)
	}
	r.CtldStart = r.BfCycles[0] - r.Conf.BfInterval
	err = eachLine(filepath.Join(dir, "sprio-"+name+".txt"), "|", 10, func(f []string) error {
		var s SprioSample
		var e [3]error
		s.T, e[0] = strconv.ParseInt(f[0], 10, 64)
		s.SlurmID, e[1] = strconv.ParseInt(f[1], 10, 64)
		s.Prio, e[2] = strconv.ParseInt(f[3], 10, 64)
		for _, x := range e {
			if x != nil {
				return x
			}
		}
		fl := make([]float64, 5)
		for i, k := range []int{4, 5, 6, 7, 8} {
			v, err := strconv.ParseFloat(f[k], 64)
			if err != nil {
				return err
			}
			fl[i] = v
		}
		n, err := strconv.ParseInt(f[9], 10, 64)
		if err != nil {
			return err
		}
		s.W = slurm.Factors{Age: fl[0], Fairshare: fl[1], JobSize: fl[2], Partition: fl[3], QOS: fl[4], Nice: n}
		if _, ok := byID[s.SlurmID]; ok {
			r.Sprio = append(r.Sprio, s)
		}
		return nil
	})
	return r, err
}

// eachLine calls f with the fields (split by sep, trimmed) of every
// non-empty line of path, which must have at least n fields.
func eachLine(path, sep string, n int, f func([]string) error) error {
	fh, err := os.Open(path)
	if err != nil {
		return err
	}
	defer fh.Close()
	sc := bufio.NewScanner(fh)
	line := 0
	for sc.Scan() {
		line++
		t := strings.TrimSpace(sc.Text())
		if t == "" || strings.HasPrefix(t, "name,") {
			continue
		}
		var fs []string
		if sep == " " {
			fs = strings.Fields(t)
		} else {
			fs = strings.Split(t, sep)
		}
		for i := range fs {
			fs[i] = strings.TrimSpace(fs[i])
		}
		if len(fs) < n {
			return fmt.Errorf("%s:%d: expected %d fields, found %d", path, line, n, len(fs))
		}
		if err := f(fs); err != nil {
			return fmt.Errorf("%s:%d: %v", path, line, err)
		}
	}
	return sc.Err()
}

// Comparison is our schedule of a recording beside Slurm's, job by job.
type Comparison struct {
	// Ours and Real are the start times, by job ID.
	Ours, Real []int64
	// Tolerance is bf_interval + 5 s.
	Tolerance int64
	// Within is the number of jobs whose start differs by at most
	// Tolerance.
	Within int
}

// Fraction is the share of the jobs within the tolerance.
func (c *Comparison) Fraction() float64 {
	if len(c.Ours) == 0 {
		return 0
	}
	return float64(c.Within) / float64(len(c.Ours))
}

// Sched returns the slurm policy configured as the recording's cluster,
// with the phases of its timers.
func (r *Recording) Sched() *Sched {
	return New(r.Conf.CPUs, r.Conf, r.Tree, Options{Resolver: r.Resolver(), Origin: r.CtldStart, BfStart: r.CtldStart})
}

// Compare compares the starts of our schedule (outcomes by job ID) with
// the recording's.
func (r *Recording) Compare(starts []int64) *Comparison {
	c := &Comparison{Ours: starts, Real: r.Start, Tolerance: r.Conf.BfInterval + 5}
	for i, s := range starts {
		if d := s - r.Start[i]; d <= c.Tolerance && d >= -c.Tolerance {
			c.Within++
		}
	}
	return c
}
