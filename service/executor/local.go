package executor

import (
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Local runs each job's command on this machine, fit for a machine shared
// by users who do not trust each other (docs/service.md, "Security
// model"):
//
//   - Jobs run as an unprivileged account: the account mapped to the job's
//     user (RunAsMap), else RunAs. A service running as root refuses to
//     start without one; a service running as another user runs jobs as
//     itself (a workstation) and cannot switch accounts.
//   - Each job gets a fresh directory JobRoot/ID (created with mkdir, so
//     an existing file or link there makes the start fail; never reused),
//     mode 0700, owned by the job's account, holding stdout and stderr
//     (created O_EXCL|O_NOFOLLOW, 0600). JobRoot is the service's, mode
//     0711: jobs cannot list it or create anything in it. It must be
//     outside the state directory.
//   - The command runs as /bin/sh -c COMMAND in the submit directory
//     (Workdir, as sbatch does; the job directory if there is none or the
//     account cannot enter it), with a clean environment: PATH, LANG,
//     LC_*, TZ and the names in Env taken from the service's, HOME, USER,
//     LOGNAME, SHELL and TMPDIR (the job directory) for the account, and
//     BF_JOB_ID, BF_JOB_NAME, BF_JOB_TAG, BF_USER, BF_PROCS, BF_JOB_DIR,
//     BF_SUBMIT_DIR.
//   - Every job runs in its own cgroup v2 where one can be created (see
//     cgroup.go), else under a session tracker (tracker.go), with a
//     logged warning. A kill (the job's limit, a cancellation) and the
//     end of the job's first process kill every process the job left;
//     the end is reported only once none is left, so the job's
//     processors are not given to others while one of its processes
//     lives.
//
// The job's process ID and exit status go to files in RunDir/ID (the
// service's own, in the state directory) through descriptors the wrapper
// closes before the command runs, so that after a crash of the service a
// job still running is watched again and one that ended meanwhile reports
// its status.
type Local struct {
	ev       Events
	log      *slog.Logger
	jobRoot  string
	runDir   string
	self     bool // jobs run as the service's own user
	runAs    *Account
	runAsMap map[string]*Account
	env      []string
	cgroup   string // parent of the jobs' cgroups; "" → trackers

	mu   sync.Mutex
	live map[int64]*localProc
	quit chan struct{}
	once sync.Once
}

type localProc struct {
	pid    int
	killed bool
	cg     string   // the job's cgroup ("" without cgroups)
	tr     *tracker // without cgroups
}

// wrapper records the pid (fd 3), runs the command ($1) in the submit
// directory, records its exit status (fd 4). The descriptors are closed
// for the command.
const wrapper = `echo $$ >&3; exec 3>&-
if [ -n "$BF_SUBMIT_DIR" ] && ! cd "$BF_SUBMIT_DIR" 2>/dev/null; then
  echo "backfill: cannot enter the submit directory $BF_SUBMIT_DIR as $(id -un 2>/dev/null || id -u); running in $BF_JOB_DIR" >&2
fi
/bin/sh -c "$1" 4>&-
rc=$?
echo $rc >&4
exit $rc`

// EnvAllowlist are the variables a job gets from the service's
// environment (with Options.Env).
var EnvAllowlist = []string{"PATH", "LANG", "LANGUAGE", "TZ"}

// NewLocal returns the local executor.
func NewLocal(ev Events, opt Options) (*Local, error) {
	if opt.Dir == "" {
		return nil, errors.New("local executor: no directory")
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	l := &Local{ev: ev, log: log, live: map[int64]*localProc{}, quit: make(chan struct{}), env: opt.Env,
		runDir: filepath.Join(opt.Dir, "run")}
	if err := l.accounts(opt); err != nil {
		return nil, fmt.Errorf("local executor: %w", err)
	}
	if err := l.setJobRoot(opt); err != nil {
		return nil, fmt.Errorf("local executor: %w", err)
	}
	if err := os.MkdirAll(l.runDir, 0o700); err != nil {
		return nil, fmt.Errorf("local executor: %w", err)
	}
	switch opt.Cgroup {
	case "off":
		log.Warn("local executor: cgroups off (--cgroup off): jobs are tracked by session, process group and environment; a job that detaches quickly may escape its limit")
	default:
		cg, err := cgroupParent(opt.Cgroup, opt.Instance)
		if err != nil {
			if opt.Cgroup != "" && opt.Cgroup != "auto" {
				return nil, fmt.Errorf("local executor: --cgroup %s: %w", opt.Cgroup, err)
			}
			log.Warn("local executor: no writable cgroup v2, jobs are tracked by session, process group and environment instead; a job that detaches quickly may escape its limit (docs/service.md: cgroup delegation)", "reason", err.Error())
		} else {
			l.cgroup = cg
			log.Info("local executor: one cgroup v2 per job", "parent", cg)
		}
	}
	go l.poll()
	return l, nil
}

// accounts resolves the accounts jobs run as.
func (l *Local) accounts(opt Options) error {
	root := os.Geteuid() == 0
	if opt.RunAs != "" {
		a, err := LookupAccount(opt.RunAs)
		if err != nil {
			return fmt.Errorf("--run-as: %w", err)
		}
		l.runAs = a
	}
	l.runAsMap = map[string]*Account{}
	for u, spec := range opt.RunAsMap {
		a, err := LookupAccount(spec)
		if err != nil {
			return fmt.Errorf("--run-as-map %s: %w", u, err)
		}
		l.runAsMap[u] = a
	}
	switch {
	case root && l.runAs == nil && len(l.runAsMap) == 0:
		return errors.New("refusing to run jobs as root: give the unprivileged account jobs run as (--run-as ACCOUNT), or one per user (--run-as-map USER=ACCOUNT)")
	case !root && (l.runAs != nil || len(l.runAsMap) > 0):
		uid := uint32(os.Geteuid())
		for _, a := range append(slices.Collect(mapValues(l.runAsMap)), l.runAs) {
			if a != nil && a.UID != uid {
				return fmt.Errorf("jobs can run as %s only if the service runs as root (it runs as user id %d)", a.Name, uid)
			}
		}
		l.self, l.runAs, l.runAsMap = true, nil, map[string]*Account{}
	case !root:
		l.self = true
		l.log.Warn("local executor: jobs run as the service's own user; they can read the state directory and the admin token (use it on a workstation, or run the service as root with --run-as)")
	}
	return nil
}

func mapValues(m map[string]*Account) func(func(*Account) bool) {
	return func(yield func(*Account) bool) {
		for _, v := range m {
			if !yield(v) {
				return
			}
		}
	}
}

// setJobRoot creates or checks the job directories' root: the service's
// own, mode 0711, not a link, outside the state directory, and bound to
// this state directory's instance.
func (l *Local) setJobRoot(opt Options) error {
	root := opt.JobRoot
	if root == "" {
		root = filepath.Clean(opt.Dir) + "-jobs"
	}
	root, err := filepath.Abs(root)
	if err != nil {
		return err
	}
	state, err := filepath.Abs(opt.Dir)
	if err != nil {
		return err
	}
	if rel, err := filepath.Rel(state, root); err == nil && (rel == "." || !strings.HasPrefix(rel, "..")) {
		return fmt.Errorf("the job directory %s is inside the state directory %s: jobs must not be able to reach the state (give --job-dir elsewhere)", root, state)
	}
	if err := os.MkdirAll(root, 0o711); err != nil {
		return err
	}
	fi, err := os.Lstat(root)
	if err != nil {
		return err
	}
	if !fi.IsDir() {
		return fmt.Errorf("job directory %s is not a directory (a symbolic link?)", root)
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return fmt.Errorf("job directory %s belongs to user id %d, not to the service", root, st.Uid)
	}
	if err := os.Chmod(root, 0o711); err != nil {
		return err
	}
	if opt.Instance != "" {
		mark := filepath.Join(root, ".backfill-instance")
		b, err := os.ReadFile(mark)
		switch {
		case errors.Is(err, os.ErrNotExist):
			if err := os.WriteFile(mark, []byte(opt.Instance+"\n"), 0o600); err != nil {
				return err
			}
		case err != nil:
			return err
		case strings.TrimSpace(string(b)) != opt.Instance:
			return fmt.Errorf("job directory %s belongs to another state directory (instance %s, this one is %s): give a fresh --job-dir", root, strings.TrimSpace(string(b)), opt.Instance)
		}
	}
	l.jobRoot = root
	return nil
}

// Name implements Executor.
func (l *Local) Name() string { return "local" }

// JobDir is the directory of job id.
func (l *Local) JobDir(id int64) string {
	return filepath.Join(l.jobRoot, strconv.FormatInt(id, 10))
}

// CgroupParent is the directory of the jobs' cgroups ("" when jobs are
// tracked without cgroups).
func (l *Local) CgroupParent() string { return l.cgroup }

func (l *Local) runFile(id int64, name string) string {
	return filepath.Join(l.runDir, strconv.FormatInt(id, 10), name)
}

func (l *Local) cgroupOf(id int64) string {
	if l.cgroup == "" {
		return ""
	}
	return filepath.Join(l.cgroup, "job-"+strconv.FormatInt(id, 10))
}

// Submit implements Executor (nothing to do before the start).
func (l *Local) Submit(Job) (string, error) { return "", nil }

// Cancel implements Executor (nothing runs yet).
func (l *Local) Cancel(Job) error { return nil }

// account is the account job j runs as (nil: the service's own user).
func (l *Local) account(j Job) (*Account, error) {
	if l.self {
		return nil, nil
	}
	if a, ok := l.runAsMap[j.User]; ok {
		return a, nil
	}
	if l.runAs != nil {
		return l.runAs, nil
	}
	return nil, fmt.Errorf("no local account for user %s (--run-as-map)", j.User)
}

// Start implements Executor.
func (l *Local) Start(j Job) (string, error) {
	acct, err := l.account(j)
	if err != nil {
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	d := l.JobDir(j.ID)
	out, errf, err := makeJobDir(d, acct)
	if err != nil {
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	defer out.Close()
	defer errf.Close()
	rd := filepath.Join(l.runDir, strconv.FormatInt(j.ID, 10))
	if err := os.MkdirAll(rd, 0o700); err != nil {
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	pidf, err := os.OpenFile(filepath.Join(rd, "pid"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	defer pidf.Close()
	os.Remove(filepath.Join(rd, "exit"))
	exitf, err := os.OpenFile(filepath.Join(rd, "exit"), os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	defer exitf.Close()

	cmd := exec.Command("/bin/sh", "-c", wrapper, "backfill-job", j.Command)
	cmd.Dir = d
	cmd.Stdin = nil
	cmd.Stdout, cmd.Stderr = out, errf
	cmd.ExtraFiles = []*os.File{pidf, exitf}
	cmd.Env = l.environ(j, d, acct)
	attr := &syscall.SysProcAttr{Setsid: true}
	if acct != nil {
		attr.Credential = &syscall.Credential{Uid: acct.UID, Gid: acct.GID, Groups: acct.Groups}
	}
	p := &localProc{}
	if cg := l.cgroupOf(j.ID); cg != "" {
		if err := os.Mkdir(cg, 0o755); err != nil {
			if !errors.Is(err, os.ErrExist) || cgroupPopulated(cg) {
				return "", fmt.Errorf("job %d: cgroup %s: %w", j.ID, cg, err)
			}
		}
		fd, err := syscall.Open(cg, syscall.O_DIRECTORY|syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err != nil {
			return "", fmt.Errorf("job %d: cgroup %s: %w", j.ID, cg, err)
		}
		defer syscall.Close(fd)
		attr.UseCgroupFD, attr.CgroupFD = true, fd
		p.cg = cg
	}
	cmd.SysProcAttr = attr
	if err := cmd.Start(); err != nil {
		if p.cg != "" {
			os.Remove(p.cg)
		}
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	p.pid = cmd.Process.Pid
	if p.cg == "" {
		p.tr = newTracker(p.pid, j.Tag)
	}
	l.mu.Lock()
	l.live[j.ID] = p
	l.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		l.reap(p)
		l.finish(j.ID)
	}()
	return strconv.Itoa(p.pid), nil
}

// makeJobDir creates job directory d fresh (mkdir fails if anything is
// there: a link planted by a job cannot redirect it), with stdout and
// stderr created O_EXCL|O_NOFOLLOW through the directory's descriptor,
// then gives all three to the account (the directory last, so the job's
// account cannot race the service inside it).
func makeJobDir(d string, acct *Account) (out, errf *os.File, err error) {
	if err := os.Mkdir(d, 0o700); err != nil {
		if errors.Is(err, os.ErrExist) {
			return nil, nil, fmt.Errorf("job directory %s already exists: refusing to reuse it", d)
		}
		return nil, nil, err
	}
	dfd, err := syscall.Open(d, syscall.O_DIRECTORY|syscall.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, nil, err
	}
	defer syscall.Close(dfd)
	open := func(name string) (*os.File, error) {
		fd, err := syscall.Openat(dfd, name, syscall.O_WRONLY|syscall.O_CREAT|syscall.O_EXCL|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0o600)
		if err != nil {
			return nil, fmt.Errorf("%s/%s: %w", d, name, err)
		}
		f := os.NewFile(uintptr(fd), filepath.Join(d, name))
		if acct != nil {
			if err := f.Chown(int(acct.UID), int(acct.GID)); err != nil {
				f.Close()
				return nil, err
			}
		}
		return f, nil
	}
	if out, err = open("stdout"); err != nil {
		return nil, nil, err
	}
	if errf, err = open("stderr"); err != nil {
		out.Close()
		return nil, nil, err
	}
	if acct != nil {
		if err := syscall.Fchown(dfd, int(acct.UID), int(acct.GID)); err != nil {
			out.Close()
			errf.Close()
			return nil, nil, fmt.Errorf("%s: %w", d, err)
		}
	}
	return out, errf, nil
}

// environ is the job's whole environment.
func (l *Local) environ(j Job, d string, acct *Account) []string {
	var env []string
	seen := map[string]bool{}
	add := func(k, v string) {
		if !seen[k] {
			seen[k] = true
			env = append(env, k+"="+v)
		}
	}
	for _, k := range append(slices.Clone(EnvAllowlist), l.env...) {
		if v, ok := os.LookupEnv(k); ok {
			add(k, v)
		}
	}
	for _, kv := range os.Environ() {
		if k, v, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "LC_") {
			add(k, v)
		}
	}
	add("PATH", "/usr/local/bin:/usr/bin:/bin")
	home, name := d, ""
	if acct != nil {
		name = acct.Name
		if acct.Home != "" {
			home = acct.Home
		}
	} else if h, err := os.UserHomeDir(); err == nil {
		home = h
	}
	add("HOME", home)
	if name != "" {
		add("USER", name)
		add("LOGNAME", name)
	}
	add("SHELL", "/bin/sh")
	add("TMPDIR", d)
	add("BF_JOB_ID", strconv.FormatInt(j.ID, 10))
	add("BF_JOB_NAME", j.Name)
	add("BF_JOB_TAG", j.Tag)
	add("BF_USER", j.User)
	add("BF_PROCS", strconv.Itoa(j.Procs))
	add("BF_JOB_DIR", d)
	add("BF_SUBMIT_DIR", j.Workdir)
	return env
}

// reap kills whatever the job left once its first process is gone (or
// at a kill) and returns when none of its processes is left.
func (l *Local) reap(p *localProc) {
	if p.cg != "" {
		if err := cgroupKill(p.cg); err != nil {
			l.log.Error("local executor", "err", err)
			return
		}
		os.Remove(p.cg)
		return
	}
	p.tr.killAll()
}

// finish reports the end of a job that was not killed.
func (l *Local) finish(id int64) {
	l.mu.Lock()
	p := l.live[id]
	delete(l.live, id)
	l.mu.Unlock()
	if p != nil && p.killed {
		return
	}
	exit, note := l.readExit(id)
	l.ev.Ended(id, exit, note)
}

func (l *Local) readExit(id int64) (*int, string) {
	b, err := readSmall(l.runFile(id, "exit"))
	if err != nil || len(strings.TrimSpace(string(b))) == 0 {
		return nil, "exit status unknown (the job was killed by a signal)"
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil || n < 0 || n > 255 {
		return nil, "unreadable exit status"
	}
	return &n, ""
}

// readSmall reads up to 64 bytes of a regular file, not following links.
func readSmall(name string) ([]byte, error) {
	f, err := os.OpenFile(name, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file", name)
	}
	b := make([]byte, 64)
	n, _ := f.Read(b)
	return b[:n], nil
}

// Kill implements Executor: every process of the job is killed.
func (l *Local) Kill(j Job) error {
	l.mu.Lock()
	p := l.live[j.ID]
	if p != nil {
		p.killed = true
	}
	l.mu.Unlock()
	if p != nil {
		l.reap(p)
		return nil
	}
	// not known (a kill decided while the service was down): by cgroup,
	// else by the recorded process
	if cg := l.cgroupOf(j.ID); cg != "" && dirExists(cg) {
		err := cgroupKill(cg)
		os.Remove(cg)
		return err
	}
	if pid := l.recordedPid(j); pid > 0 && alive(pid, j.Tag) {
		newTracker(pid, j.Tag).killAll()
	}
	return nil
}

func (l *Local) recordedPid(j Job) int {
	pid, _ := strconv.Atoi(j.Ref)
	if b, err := readSmall(l.runFile(j.ID, "pid")); err == nil {
		if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
			pid = n
		}
	}
	return pid
}

// alive reports whether pid is a live process of job tag.
func alive(pid int, tag string) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	if p, ok := readStat(pid); !ok || p.zombie {
		return false
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	t := []byte("BF_JOB_TAG=" + tag + "\x00")
	return slices.Equal(env[:min(len(t), len(env))], t) || strings.Contains(string(env), "\x00"+string(t))
}

// Reconcile implements Executor: a running job whose process (or cgroup)
// is still alive is watched again; one that ended reports the exit status
// its wrapper wrote; one that never got launched (the service died
// between deciding and launching) is launched now.
func (l *Local) Reconcile(running, _ []Job) (map[int64]Status, error) {
	out := map[int64]Status{}
	for _, j := range running {
		if _, err := os.Lstat(l.JobDir(j.ID)); errors.Is(err, os.ErrNotExist) {
			if _, err := l.Start(j); err != nil {
				return nil, err
			}
			out[j.ID] = Status{Running: true}
			continue
		}
		pid := l.recordedPid(j)
		cg := l.cgroupOf(j.ID)
		if cg != "" && !dirExists(cg) {
			cg = ""
		}
		if alive(pid, j.Tag) || (cg != "" && cgroupPopulated(cg)) {
			p := &localProc{pid: pid, cg: cg}
			if cg == "" {
				p.tr = newTracker(pid, j.Tag)
			}
			l.mu.Lock()
			l.live[j.ID] = p
			l.mu.Unlock()
			go l.watch(j.ID, p, j.Tag)
			out[j.ID] = Status{Running: true}
			continue
		}
		if cg != "" {
			os.Remove(cg)
		}
		exit, note := l.readExit(j.ID)
		if exit == nil {
			note = "lost: not running after the service restarted, no exit status"
		}
		out[j.ID] = Status{Exit: exit, Note: note}
	}
	return out, nil
}

// watch polls an adopted job (not our child) until its first process is
// gone, then kills what it left.
func (l *Local) watch(id int64, p *localProc, tag string) {
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-l.quit:
			return
		case <-t.C:
		}
		l.mu.Lock()
		killed := p.killed
		l.mu.Unlock()
		if killed || !alive(p.pid, tag) {
			l.reap(p)
			l.finish(id)
			return
		}
	}
}

// poll scans /proc for the trackers' members while jobs run without
// cgroups.
func (l *Local) poll() {
	if l.cgroup != "" {
		return
	}
	t := time.NewTicker(100 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-l.quit:
			return
		case <-t.C:
		}
		l.mu.Lock()
		var trs []*tracker
		for _, p := range l.live {
			if p.tr != nil {
				trs = append(trs, p.tr)
			}
		}
		l.mu.Unlock()
		if len(trs) == 0 {
			continue
		}
		all := readProcs()
		for _, tr := range trs {
			tr.scan(all, false)
		}
	}
}

// Close implements Executor.
func (l *Local) Close() error {
	l.once.Do(func() {
		close(l.quit)
		if l.cgroup != "" {
			os.Remove(l.cgroup) // only if no job's cgroup is left in it
		}
	})
	return nil
}
