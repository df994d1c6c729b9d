package slurm

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

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
	// SchedStart is the main scheduler's first periodic pass (slurmctld's
	// background loop, 3.3 s after the start in the recording's log): the
	// first job start minus batch_sched_delay, since the first jobs start
	// at the first pass allowed after it.
	SchedStart int64
	// BfCycles are the backfill cycles' starts (whole seconds).
	BfCycles []int64
	// Sprio are the samples of sprio, in file order.
	Sprio []SprioSample
	// Phases are the timers' sub-second phases from slurmctld's log
	// (events-NAME.log.gz), nil when the recording has none.
	Phases *Phases
	// endFrac is each job's end's fraction of its second, by ID (from
	// the log; the priority replay orders ends and calculations by it).
	endFrac map[int]float64
}

// SprioSample is one line of a sprio sample: at T, job SlurmID had
// priority Prio and these weighted factors (sprio's %A %F %J %P %Q, each
// factor times its weight, and the nice value %N).
type SprioSample struct {
	T, SlurmID int64
	Prio       int64
	W          slurm.Factors
}

// calcAfterBackfill is how long after the backfill agent slurmctld
// starts its decay thread (the first recording's log).
const calcAfterBackfill = 0.26

// CalcOrigin is a priority calculation instant: slurmctld starts its decay
// thread a fraction of a second after the backfill agent (0.26 s in the
// recording's log), which puts the calculations' whole seconds one after
// CtldStart's.
//
// With the log's phases the decay thread's second follows from the
// backfill agent's phase: its first cycle's fraction plus 0.26 s, which
// crosses into the next second only when the agent started late in its
// second (the second recording: 0.94; the third: 0.25, calculations in
// CtldStart's own second).
func (r *Recording) CalcOrigin() int64 {
	if r.Phases != nil && len(r.Phases.Backfill.F) > 0 {
		f := r.Phases.Backfill.F[0]
		return r.CtldStart + int64(math.Floor(f-math.Floor(f)+calcAfterBackfill))
	}
	return r.CtldStart + 1
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
	first := r.Start[0]
	for _, s := range r.Start {
		first = min(first, s)
	}
	r.SchedStart = first - r.Conf.BatchSchedDelay
	if r.Phases, r.endFrac, err = readPhases(filepath.Join(dir, "events-"+name+".log.gz"), dir, name, byID); err != nil {
		return nil, err
	}
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
	// Tolerance, Exact the number that start in the same second.
	Within, Exact int
}

// Fraction is the share of the jobs within the tolerance.
func (c *Comparison) Fraction() float64 {
	if len(c.Ours) == 0 {
		return 0
	}
	return float64(c.Within) / float64(len(c.Ours))
}

// CompleteLag is Phases.CompleteLag for the recordings: the log has no
// line for slurmd's "already complete" reply, but in the second
// recording's log a pass 23 ms after such an end started nothing while
// jobs fitted, and passes 28 and 40 ms after others started jobs.
const CompleteLag = 0.025

// RecordingEndLag is the Options.EndLag the validation uses when the
// recording has no log to take the timers' phases from: the loop sees a
// job's end in its own second.
const RecordingEndLag = 0

// Policy returns the slurm policy configured as the recording's cluster,
// with the phases of its timers and the given end lag (Options.EndLag).
// The association tree is read afresh from dir (the usage starts at 0).
func (r *Recording) Policy(dir string, endLag int64) (*Policy, error) {
	tree, err := slurm.ReadShares(filepath.Join(dir, "shares.txt"))
	if err != nil {
		return nil, err
	}
	return New(r.Conf.CPUs, Options{Conf: r.Conf, Tree: tree, Resolver: r.Resolver(), Origin: r.CalcOrigin(), BfStart: r.CtldStart, SchedStart: r.SchedStart, EndLag: endLag, Phases: r.Phases}), nil
}

// Compare compares the starts of our schedule (outcomes by job ID) with
// the recording's.
func (r *Recording) Compare(starts []int64) *Comparison {
	c := &Comparison{Ours: starts, Real: r.Start, Tolerance: r.Conf.BfInterval + 5}
	for i, s := range starts {
		if d := s - r.Start[i]; d <= c.Tolerance && d >= -c.Tolerance {
			c.Within++
		}
		if s == r.Start[i] {
			c.Exact++
		}
	}
	return c
}

// PriorityComparison is our multifactor priority beside the sprio samples
// of a recording, computed on Slurm's own schedule (the real starts and
// ends), so that it tests the priority alone.
type PriorityComparison struct {
	// Samples is the number of (instant, job) samples; Exact of them have
	// our priority equal to Slurm's, Within1 within 1 %.
	Samples, Exact, Within1 int
	// MaxDiff is the largest |ours − Slurm's|; Diffs are ours − Slurm's,
	// by sample.
	MaxDiff int64
	Diffs   []int64
	// Ours and Theirs are the priorities, by sample (for figures).
	Ours, Theirs []int64
	// FactorDiff is the mean |ours − Slurm's| of each weighted factor
	// (age, fair-share, job size, QOS).
	FactorDiff [4]float64
}

// ComparePriorities replays Slurm's schedule through our multifactor
// priority and compares it with every sprio sample. Shares are re-read
// from shares.txt in dir (the usage starts at zero).
func (r *Recording) ComparePriorities(dir string) (*PriorityComparison, error) {
	tree, err := slurm.ReadShares(filepath.Join(dir, "shares.txt"))
	if err != nil {
		return nil, err
	}
	m := slurm.NewMultifactor(r.Conf, tree, r.Conf.CPUs, r.Resolver(), r.CalcOrigin())
	// events in time order: ends, submissions, starts (the engine's order)
	type ev struct {
		t    int64
		kind int // 0 end, 1 submit, 2 start
		id   int
	}
	var evs []ev
	for i := range r.Jobs {
		evs = append(evs, ev{r.Jobs[i].Submit, 1, i}, ev{r.Start[i], 2, i}, ev{r.End[i], 0, i})
	}
	sort.Slice(evs, func(a, b int) bool {
		if evs[a].t != evs[b].t {
			return evs[a].t < evs[b].t
		}
		if evs[a].kind != evs[b].kind {
			return evs[a].kind < evs[b].kind
		}
		return evs[a].id < evs[b].id
	})
	idx := map[int64]int{}
	for i, id := range r.SlurmID {
		idx[id] = i
	}
	samples := append([]SprioSample(nil), r.Sprio...)
	sort.SliceStable(samples, func(a, b int) bool { return samples[a].T < samples[b].T })
	pc := &PriorityComparison{}
	var endFrac map[int]float64 // with the log: each job's end, fraction of its second
	if r.Phases != nil {
		endFrac = r.endFrac
	}
	e := 0
	for _, s := range samples {
		// the events of the sample's second come before it
		for e < len(evs) && evs[e].t <= s.T {
			x := evs[e]
			j := &r.Jobs[x.id].Request
			switch x.kind {
			case 0:
				if f, ok := endFrac[x.id]; ok && r.Phases.Calc > 0 && f < r.Phases.Calc {
					// before the decay thread's pass of its second: a
					// calculation due then comes after the end (whose
					// last usage is then lost, as in Slurm)
					m.Hold(x.t)
					m.Ended(x.t, j)
					m.Hold(0)
				} else {
					m.Ended(x.t, j)
				}
			case 1:
				m.Submitted(x.t, j)
			case 2:
				m.Advance(x.t)
				m.Started(x.t, j)
			}
			e++
		}
		m.Advance(s.T)
		i, ok := idx[s.SlurmID]
		if !ok || r.Start[i] <= s.T {
			continue // not waiting any more by our clock
		}
		j := &r.Jobs[i].Request
		ours := int64(m.Priority(j))
		d := ours - s.Prio
		pc.Samples++
		pc.Diffs = append(pc.Diffs, d)
		pc.Ours = append(pc.Ours, ours)
		pc.Theirs = append(pc.Theirs, s.Prio)
		if d == 0 {
			pc.Exact++
		}
		ad := max(d, -d)
		if float64(ad) <= 0.01*float64(s.Prio) {
			pc.Within1++
		}
		pc.MaxDiff = max(pc.MaxDiff, ad)
		f := m.Factors(j)
		c := r.Conf
		for k, pair := range [][2]float64{
			{f.Age * float64(c.WeightAge), s.W.Age},
			{f.Fairshare * float64(c.WeightFairshare), s.W.Fairshare},
			{f.JobSize * float64(c.WeightJobSize), s.W.JobSize},
			{f.QOS * float64(c.WeightQOS), s.W.QOS},
		} {
			x := pair[0] - pair[1]
			pc.FactorDiff[k] += max(x, -x)
		}
	}
	for k := range pc.FactorDiff {
		if pc.Samples > 0 {
			pc.FactorDiff[k] /= float64(pc.Samples)
		}
	}
	return pc, nil
}

// readPhases reads the timers' phases (and each job's end's fraction of
// its second, by ID) from slurmctld's scheduling events
// (path, gzipped; nil, nil when absent): the background loop's from its
// main-scheduler passes ("Running job scheduler"; a pass that is not
// within 0.05 s + 0.03 s per second since of the loop's drifting phase is
// another trigger and skipped), the backfill cycles' from their starts,
// each job's submission fraction from its submission RPC, and each job's
// overhead as end − start − its sleep (workload.csv) — the job's runtime
// to the millisecond — with the medians as defaults for jobs the log
// lacks (byID maps Slurm's job ids to the recording's).
func readPhases(path, dir, name string, byID map[int64]int) (*Phases, map[int]float64, error) {
	fh, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	zr, err := gzip.NewReader(fh)
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	sleep := map[string]float64{}
	if err := eachLine(filepath.Join(dir, "workload.csv"), ",", 9, func(f []string) error {
		v, err := strconv.ParseFloat(f[8], 64)
		sleep[f[0]] = v
		return err
	}); err != nil {
		return nil, nil, err
	}
	names := map[int64]string{}
	if err := eachLine(filepath.Join(dir, "sacct-"+name+".txt"), "|", 2, func(f []string) error {
		if id, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			names[id] = f[1]
		}
		return nil
	}); err != nil {
		return nil, nil, err
	}
	ph := &Phases{Submits: map[int]float64{}, Overheads: map[int]float64{}, Epilog: map[int]float64{}, Ended: map[int]float64{}}
	ended := map[int64]float64{} // job ends (_job_complete), by Slurm's id
	epilogAt := math.Inf(-1)     // the last epilog-complete message
	endFrac := map[int]float64{}
	var subs, over []float64
	start := map[int64]float64{}
	jobID := func(line, key string) (int64, bool) {
		i := strings.Index(line, key)
		if i < 0 {
			return 0, false
		}
		rest := line[i+len(key):]
		j := strings.IndexFunc(rest, func(c rune) bool { return c < '0' || c > '9' })
		if j < 0 {
			j = len(rest)
		}
		id, err := strconv.ParseInt(rest[:j], 10, 64)
		return id, err == nil
	}
	sc := bufio.NewScanner(zr)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if len(t) < 25 || t[0] != '[' || t[24] != ']' {
			continue
		}
		ts, err := time.Parse("2006-01-02T15:04:05.000", t[1:24])
		if err != nil {
			return nil, nil, fmt.Errorf("%s:%d: %v", path, line, err)
		}
		sec := ts.Unix()
		frac := float64(ts.Nanosecond()) / 1e9
		at := float64(sec) + frac
		switch {
		case strings.Contains(t, "Running job scheduler"):
			if ph.FullPass == 0 && strings.Contains(t, "for full queue") {
				ph.FullPass = sec
			}
			if at-epilogAt < 0.005 {
				continue // the pass an epilog-complete message asked for
			}
			if n := len(ph.Loop.T); n > 0 {
				prev := ph.Loop.At(ph.Loop.T[n-1])
				d := frac - prev
				d -= math.Round(d)
				if math.Abs(d) > 0.05+0.03*float64(sec-ph.Loop.T[n-1]) {
					continue // not the loop's wake-up
				}
			}
			ph.Loop.Mark(sec, frac)
		case strings.Contains(t, "_attempt_backfill: beginning"):
			ph.Backfill.Mark(sec, frac)
		case strings.Contains(t, "_slurm_rpc_submit_batch_job"):
			subs = append(subs, frac)
			if id, ok := jobID(t, "JobId="); ok {
				if i, ok := byID[id]; ok {
					ph.Submits[i] = frac
				}
			}
		case strings.Contains(t, "sched: Allocate JobId="):
			if id, ok := jobID(t, "JobId="); ok {
				start[id] = at
			}
		case strings.Contains(t, "_start_job: Started JobId="):
			if id, ok := jobID(t, "JobId="); ok {
				start[id] = at
			}
		case strings.Contains(t, "_slurm_rpc_epilog_complete: JobId="):
			epilogAt = at
			if id, ok := jobID(t, "JobId="); ok {
				if e, ok := ended[id]; ok {
					if i, ok := byID[id]; ok {
						ph.Epilog[i] = at - e
					}
				}
			}
		case strings.Contains(t, "_job_complete: JobId=") && strings.HasSuffix(strings.TrimSpace(t), "done"):
			if id, ok := jobID(t, "JobId="); ok {
				ended[id] = at
				if i, ok := byID[id]; ok {
					endFrac[i] = frac
					ph.Ended[i] = at
				}
				if s0, ok := start[id]; ok {
					if sl, ok := sleep[names[id]]; ok {
						over = append(over, at-s0-sl)
						if i, ok := byID[id]; ok {
							ph.Overheads[i] = at - s0 - sl
						}
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(ph.Loop.T) == 0 || len(subs) == 0 || len(over) == 0 {
		return nil, nil, fmt.Errorf("%s: no loop passes, submissions or job ends found", path)
	}
	median := func(x []float64) float64 {
		sort.Float64s(x)
		return x[len(x)/2]
	}
	ph.Submit = median(subs)
	ph.Overhead = median(over)
	ph.CompleteLag = CompleteLag
	if len(ph.Backfill.F) > 0 {
		// the decay thread starts 0.26 s after the backfill agent
		// (CalcOrigin), whose first cycle is bf_interval after its start
		c := ph.Backfill.F[0] + calcAfterBackfill
		ph.Calc = c - math.Floor(c)
	}
	return ph, endFrac, nil
}
