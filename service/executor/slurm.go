package executor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Slurm runs jobs on a Slurm cluster through its command-line tools
// (sbatch, scontrol, scancel; SLURM_CONF and PATH from the environment).
// The service's policy decides and Slurm only executes:
//
//   - when a job is admitted it is submitted held: sbatch --hold
//     --job-name=TAG --ntasks=PROCS --time=⌈estimate/60⌉+1 min
//     --wrap=COMMAND, with its output in DIR/jobs/ID/slurm.out;
//   - when the policy starts it, scontrol release;
//   - at its limit or when cancelled, scancel;
//   - ends are read back by polling scontrol show job (state and exit
//     code; Slurm keeps finished jobs for MinJobAge), with sacct as a
//     fallback for jobs the controller forgot.
//
// The service's machine size must be the cluster's (partition's) number of
// CPUs, so that a released job starts at once. Jobs run as the service's
// user, with a clean environment: sbatch itself runs with only PATH,
// SLURM_CONF, HOME, LANG and TZ of the service's environment, and the job
// gets only PATH and the BF_* variables (--export without ALL; Slurm adds
// its SLURM_* ones). After a restart, a job is found again by the Slurm
// job id stored with it, and only if that Slurm job has the job's name
// (TAG) and belongs to the service's user; a job whose id was not stored
// yet (a crash between sbatch and the commit of its id) is found by name
// and owner, so nothing is lost or run twice, and a job another Slurm user
// names after ours is never adopted.
type Slurm struct {
	uid  int // the service's user: the owner of our Slurm jobs
	ev   Events
	dir  string
	args []string
	poll time.Duration

	mu      sync.Mutex
	ids     map[int64]string // service id → Slurm job id
	running map[int64]bool   // released, end not yet reported
	killed  map[int64]bool
	quit    chan struct{}
	once    sync.Once
	wg      sync.WaitGroup
}

// NewSlurm returns the Slurm executor; it checks that sbatch, scontrol and
// scancel are on PATH and that the controller answers.
func NewSlurm(ev Events, opt Options) (*Slurm, error) {
	for _, t := range []string{"sbatch", "scontrol", "scancel"} {
		if _, err := exec.LookPath(t); err != nil {
			return nil, fmt.Errorf("slurm executor: %s not found on PATH", t)
		}
	}
	if opt.Dir == "" {
		return nil, errors.New("slurm executor: no directory")
	}
	if err := os.MkdirAll(filepath.Join(opt.Dir, "jobs"), 0o700); err != nil {
		return nil, fmt.Errorf("slurm executor: %w", err)
	}
	if out, err := run("scontrol", "ping"); err != nil || !strings.Contains(out, "UP") {
		return nil, fmt.Errorf("slurm executor: the controller does not answer (scontrol ping: %s %v)", strings.TrimSpace(out), err)
	}
	poll := time.Second
	if opt.PollMillis > 0 {
		poll = time.Duration(opt.PollMillis) * time.Millisecond
	}
	s := &Slurm{uid: os.Getuid(), ev: ev, dir: opt.Dir, args: opt.SbatchArgs, poll: poll,
		ids: map[int64]string{}, running: map[int64]bool{}, killed: map[int64]bool{}, quit: make(chan struct{})}
	s.wg.Add(1)
	go s.watch()
	return s, nil
}

// Name implements Executor.
func (s *Slurm) Name() string { return "slurm" }

// slurmEnv is the environment of the Slurm commands: what they need of
// the service's, nothing else (no tokens, no SBATCH_* surprises).
func slurmEnv() []string {
	env := []string{"PATH=" + os.Getenv("PATH")}
	for _, k := range []string{"SLURM_CONF", "HOME", "LANG", "TZ"} {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return env
}

func run(name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = slurmEnv()
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	if err != nil {
		return out.String(), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(errb.String()))
	}
	return out.String(), nil
}

// Submit implements Executor: a held Slurm job.
func (s *Slurm) Submit(j Job) (string, error) {
	d := filepath.Join(s.dir, "jobs", strconv.FormatInt(j.ID, 10))
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", err
	}
	cmd := j.Command
	if strings.TrimSpace(cmd) == "" {
		cmd = ":"
	}
	minutes := (j.Estimate+59)/60 + 1 // the service kills at the estimate; Slurm's limit is a backstop
	wd := d
	if j.Workdir != "" && !strings.ContainsAny(j.Workdir, ",\n") {
		wd = j.Workdir // the submit directory, as sbatch does
	}
	// --export without ALL: only these (and Slurm's SLURM_*) reach the job
	export := "PATH=/usr/local/bin:/usr/bin:/bin,BF_JOB_ID=" + strconv.FormatInt(j.ID, 10) + ",BF_JOB_TAG=" + j.Tag +
		",BF_PROCS=" + strconv.Itoa(j.Procs) + ",BF_JOB_DIR=" + d
	args := []string{"--parsable", "--hold", "--job-name=" + j.Tag, "--ntasks=" + strconv.Itoa(j.Procs),
		"--time=" + strconv.FormatInt(minutes, 10), "--output=" + filepath.Join(d, "slurm.out"), "--chdir=" + wd,
		"--export=" + export}
	args = append(args, s.args...)
	args = append(args, "--wrap="+cmd)
	out, err := run("sbatch", args...)
	if err != nil {
		return "", err
	}
	id, _, _ := strings.Cut(strings.TrimSpace(out), ";")
	if _, err := strconv.ParseInt(id, 10, 64); err != nil {
		return "", fmt.Errorf("sbatch answered %q, expected a job id", out)
	}
	s.mu.Lock()
	s.ids[j.ID] = id
	s.mu.Unlock()
	return id, nil
}

func (s *Slurm) idOf(j Job) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if id, ok := s.ids[j.ID]; ok {
		return id
	}
	return j.Ref
}

// Start implements Executor: release the held job.
func (s *Slurm) Start(j Job) (string, error) {
	id := s.idOf(j)
	if id == "" {
		var err error
		if id, err = s.Submit(j); err != nil {
			return "", err
		}
	}
	if _, err := run("scontrol", "release", id); err != nil {
		return "", err
	}
	s.mu.Lock()
	s.running[j.ID] = true
	s.mu.Unlock()
	return id, nil
}

// Kill implements Executor.
func (s *Slurm) Kill(j Job) error {
	s.mu.Lock()
	s.killed[j.ID] = true
	delete(s.running, j.ID)
	s.mu.Unlock()
	return s.cancel(j)
}

// Cancel implements Executor.
func (s *Slurm) Cancel(j Job) error { return s.cancel(j) }

func (s *Slurm) cancel(j Job) error {
	id := s.idOf(j)
	if id == "" {
		return nil
	}
	_, err := run("scancel", id)
	return err
}

// slurmJob is one job as scontrol shows it.
type slurmJob struct {
	ID, Name, State string
	UID             int // owner (-1 unknown)
	Exit            *int
	Signal          int
}

// parseShowJob parses the one-line-per-job output of scontrol -o show job.
func parseShowJob(out string) []slurmJob {
	var jobs []slurmJob
	for _, line := range strings.Split(out, "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		j := slurmJob{UID: -1}
		for _, f := range strings.Fields(line) {
			k, v, ok := strings.Cut(f, "=")
			if !ok {
				continue
			}
			switch k {
			case "JobId":
				j.ID = v
			case "JobName":
				j.Name = v
			case "JobState":
				j.State = v
			case "UserId": // name(uid)
				if i := strings.LastIndexByte(v, '('); i >= 0 && strings.HasSuffix(v, ")") {
					if n, err := strconv.Atoi(v[i+1 : len(v)-1]); err == nil {
						j.UID = n
					}
				}
			case "ExitCode":
				code, sig, _ := strings.Cut(v, ":")
				if n, err := strconv.Atoi(code); err == nil {
					j.Exit = &n
				}
				j.Signal, _ = strconv.Atoi(sig)
			}
		}
		if j.ID != "" {
			jobs = append(jobs, j)
		}
	}
	return jobs
}

// finished reports whether a Slurm state is final.
func finished(state string) bool {
	switch state {
	case "PENDING", "RUNNING", "CONFIGURING", "COMPLETING", "SUSPENDED", "REQUEUED", "RESIZING", "SIGNALING", "STAGE_OUT", "REQUEUE_HOLD", "REQUEUE_FED", "RESV_DEL_HOLD", "STOPPED":
		return false
	}
	return state != ""
}

func (j slurmJob) note() string {
	switch {
	case j.State == "COMPLETED":
		return ""
	case j.Signal != 0:
		return fmt.Sprintf("slurm: %s, signal %d", j.State, j.Signal)
	}
	return "slurm: " + j.State
}

func (s *Slurm) show() (map[string]slurmJob, error) {
	out, err := run("scontrol", "-o", "show", "job")
	if err != nil && !strings.Contains(err.Error(), "No jobs in the system") {
		return nil, err
	}
	m := map[string]slurmJob{}
	for _, j := range parseShowJob(out) {
		m[j.ID] = j
	}
	return m, nil
}

// sacctJob asks the accounting database about a job the controller no
// longer knows; ok is false without accounting.
func sacctJob(id string) (slurmJob, bool) {
	if _, err := exec.LookPath("sacct"); err != nil {
		return slurmJob{}, false
	}
	out, err := run("sacct", "-n", "-X", "-P", "-j", id, "-o", "JobID,JobName,State,ExitCode,UID")
	if err != nil {
		return slurmJob{}, false
	}
	for _, line := range strings.Split(out, "\n") {
		f := strings.Split(strings.TrimSpace(line), "|")
		if len(f) == 5 && f[0] == id {
			j := slurmJob{ID: f[0], Name: f[1], State: strings.Fields(f[2] + " ")[0], UID: -1}
			if n, err := strconv.Atoi(f[4]); err == nil {
				j.UID = n
			}
			code, sig, _ := strings.Cut(f[3], ":")
			if n, err := strconv.Atoi(code); err == nil {
				j.Exit = &n
			}
			j.Signal, _ = strconv.Atoi(sig)
			return j, true
		}
	}
	return slurmJob{}, false
}

// watch polls the controller for the ends of released jobs.
func (s *Slurm) watch() {
	defer s.wg.Done()
	t := time.NewTicker(s.poll)
	defer t.Stop()
	for {
		select {
		case <-s.quit:
			return
		case <-t.C:
		}
		s.mu.Lock()
		n := len(s.running)
		s.mu.Unlock()
		if n == 0 {
			continue
		}
		known, err := s.show()
		if err != nil {
			continue // the controller may be restarting; try again
		}
		type end struct {
			id   int64
			exit *int
			note string
		}
		var ends []end
		s.mu.Lock()
		for id := range s.running {
			sid := s.ids[id]
			j, ok := known[sid]
			if !ok {
				if a, ok2 := sacctJob(sid); ok2 {
					j, ok = a, true
				}
			}
			switch {
			case !ok:
				ends = append(ends, end{id, nil, "slurm: job " + sid + " no longer known"})
			case finished(j.State):
				ends = append(ends, end{id, j.Exit, j.note()})
			default:
				continue
			}
			delete(s.running, id)
		}
		s.mu.Unlock()
		for _, e := range ends {
			s.ev.Ended(e.id, e.exit, e.note)
		}
	}
}

// Reconcile implements Executor: a job is found by its stored Slurm id
// (checked: same name, our user), or, without one, by name among our
// user's Slurm jobs; a running job that finished meanwhile reports its
// status; a waiting job without a held Slurm job gets one.
func (s *Slurm) Reconcile(running, waiting []Job) (map[int64]Status, error) {
	known, err := s.show()
	if err != nil {
		return nil, err
	}
	find := func(j Job) (slurmJob, bool) { return s.match(j, known) }
	out := map[int64]Status{}
	for _, j := range running {
		sj, ok := find(j)
		switch {
		case !ok:
			out[j.ID] = Status{Note: "lost: Slurm does not know the job after the service restarted"}
		case finished(sj.State):
			out[j.ID] = Status{Exit: sj.Exit, Note: sj.note()}
		default:
			s.mu.Lock()
			s.ids[j.ID] = sj.ID
			s.running[j.ID] = true
			s.mu.Unlock()
			if sj.State == "PENDING" { // decided to start, perhaps not yet released
				_, _ = run("scontrol", "release", sj.ID) // an error: it was released
			}
			out[j.ID] = Status{Running: true}
		}
	}
	for _, j := range waiting {
		if sj, ok := find(j); ok && !finished(sj.State) {
			s.mu.Lock()
			s.ids[j.ID] = sj.ID
			s.mu.Unlock()
			continue
		}
		if _, err := s.Submit(j); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// match finds job j's Slurm job: the one with its stored id, if that one
// has j's name and our owner (a recycled or foreign id is not j's); else,
// for a job whose id was never stored, the unfinished (else the latest)
// job of j's name and our owner. Duplicates of ours (a crash between
// sbatch and the commit, then a resubmission) are cancelled.
func (s *Slurm) match(j Job, known map[string]slurmJob) (slurmJob, bool) {
	ours := func(sj slurmJob) bool { return sj.Name == j.Tag && sj.UID == s.uid }
	if j.Ref != "" {
		sj, ok := known[j.Ref]
		if !ok {
			sj, ok = sacctJob(j.Ref)
		}
		return sj, ok && ours(sj)
	}
	var cands []slurmJob
	for _, sj := range known {
		if ours(sj) {
			cands = append(cands, sj)
		}
	}
	if len(cands) == 0 {
		return slurmJob{}, false
	}
	// unfinished first, then by id
	slices.SortFunc(cands, func(a, b slurmJob) int {
		if fa, fb := finished(a.State), finished(b.State); fa != fb {
			if fa {
				return 1
			}
			return -1
		}
		ia, _ := strconv.ParseInt(a.ID, 10, 64)
		ib, _ := strconv.ParseInt(b.ID, 10, 64)
		return int(ia - ib)
	})
	for _, dup := range cands[1:] {
		if !finished(dup.State) {
			_, _ = run("scancel", dup.ID)
		}
	}
	return cands[0], true
}

// Close implements Executor.
func (s *Slurm) Close() error {
	s.once.Do(func() { close(s.quit) })
	s.wg.Wait()
	return nil
}
