package executor

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// Local runs each job's command as a local process group:
// /bin/sh -c COMMAND in the job's directory DIR/jobs/ID, with its output
// in stdout and stderr there, and the environment variables
// BACKFILL_JOB_ID, BACKFILL_JOB_TAG and BACKFILL_PROCS (the processors the
// job was given; the machine's P slots are shared by the policy, not
// pinned). A small shell wrapper records the process ID (file pid) and the
// command's exit status (file exit), so that after a crash of the service
// a job still running is found again and watched, and one that ended
// meanwhile reports its status. Kill sends SIGKILL to the process group.
//
// Commands run as the service's own user: use it on a workstation, or
// with users you trust with that account.
type Local struct {
	ev   Events
	dir  string
	mu   sync.Mutex
	live map[int64]*localProc
	quit chan struct{}
	once sync.Once
}

type localProc struct {
	pid    int
	killed bool
}

// wrapper writes the pid, runs the command, writes its exit status.
const wrapper = `echo $$ > "$BF_DIR/pid.tmp" && mv "$BF_DIR/pid.tmp" "$BF_DIR/pid"
/bin/sh -c "$BF_CMD"
rc=$?
echo $rc > "$BF_DIR/exit.tmp" && mv "$BF_DIR/exit.tmp" "$BF_DIR/exit"
exit $rc`

// NewLocal returns the local executor working in opt.Dir.
func NewLocal(ev Events, opt Options) (*Local, error) {
	if opt.Dir == "" {
		return nil, errors.New("local executor: no directory")
	}
	if err := os.MkdirAll(filepath.Join(opt.Dir, "jobs"), 0o700); err != nil {
		return nil, fmt.Errorf("local executor: %w", err)
	}
	return &Local{ev: ev, dir: opt.Dir, live: map[int64]*localProc{}, quit: make(chan struct{})}, nil
}

// Name implements Executor.
func (l *Local) Name() string { return "local" }

// JobDir is the directory of job id.
func (l *Local) JobDir(id int64) string {
	return filepath.Join(l.dir, "jobs", strconv.FormatInt(id, 10))
}

// Submit implements Executor (nothing to do before the start).
func (l *Local) Submit(Job) (string, error) { return "", nil }

// Cancel implements Executor (nothing runs yet).
func (l *Local) Cancel(Job) error { return nil }

// Start implements Executor.
func (l *Local) Start(j Job) (string, error) {
	d := l.JobDir(j.ID)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	out, err := os.OpenFile(filepath.Join(d, "stdout"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	defer out.Close()
	errf, err := os.OpenFile(filepath.Join(d, "stderr"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	defer errf.Close()
	cmd := exec.Command("/bin/sh", "-c", wrapper)
	cmd.Dir = d
	cmd.Stdout, cmd.Stderr = out, errf
	cmd.Env = append(os.Environ(),
		"BF_DIR="+d, "BF_CMD="+j.Command,
		"BACKFILL_JOB_ID="+strconv.FormatInt(j.ID, 10),
		"BACKFILL_JOB_TAG="+j.Tag,
		"BACKFILL_PROCS="+strconv.Itoa(j.Procs))
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return "", fmt.Errorf("job %d: %w", j.ID, err)
	}
	p := &localProc{pid: cmd.Process.Pid}
	l.mu.Lock()
	l.live[j.ID] = p
	l.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		l.finish(j.ID, d)
	}()
	return strconv.Itoa(p.pid), nil
}

// finish reports the end of a job that was not killed.
func (l *Local) finish(id int64, d string) {
	l.mu.Lock()
	p := l.live[id]
	delete(l.live, id)
	l.mu.Unlock()
	if p != nil && p.killed {
		return
	}
	exit, note := readExit(d)
	l.ev.Ended(id, exit, note)
}

func readExit(d string) (*int, string) {
	b, err := os.ReadFile(filepath.Join(d, "exit"))
	if err != nil {
		return nil, "exit status unknown (the job was killed by a signal)"
	}
	n, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		return nil, "unreadable exit status"
	}
	return &n, ""
}

// Kill implements Executor.
func (l *Local) Kill(j Job) error {
	l.mu.Lock()
	p := l.live[j.ID]
	if p != nil {
		p.killed = true
	}
	l.mu.Unlock()
	pid := 0
	if p != nil {
		pid = p.pid
	} else if n, err := strconv.Atoi(j.Ref); err == nil {
		pid = n
	}
	if pid <= 0 {
		return nil
	}
	err := syscall.Kill(-pid, syscall.SIGKILL)
	if errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return err
}

// alive reports whether pid is a live process of job tag.
func alive(pid int, tag string) bool {
	if pid <= 0 || syscall.Kill(pid, 0) != nil {
		return false
	}
	env, err := os.ReadFile(fmt.Sprintf("/proc/%d/environ", pid))
	if err != nil {
		return false
	}
	if st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid)); err == nil {
		// a zombie is not running
		if i := bytes.LastIndexByte(st, ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			return false
		}
	}
	return bytes.Contains(env, []byte("\x00BACKFILL_JOB_TAG="+tag+"\x00")) || bytes.HasPrefix(env, []byte("BACKFILL_JOB_TAG="+tag+"\x00"))
}

// Reconcile implements Executor: a running job whose process is still
// alive is watched again; one whose process ended reports the exit status
// its wrapper wrote; one that never got launched (the service died
// between deciding and launching) is launched now.
func (l *Local) Reconcile(running, _ []Job) (map[int64]Status, error) {
	out := map[int64]Status{}
	for _, j := range running {
		d := l.JobDir(j.ID)
		pid, _ := strconv.Atoi(j.Ref)
		if b, err := os.ReadFile(filepath.Join(d, "pid")); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				pid = n
			}
		}
		if _, err := os.Stat(d); errors.Is(err, os.ErrNotExist) {
			if _, err := l.Start(j); err != nil {
				return nil, err
			}
			out[j.ID] = Status{Running: true}
			continue
		}
		if alive(pid, j.Tag) {
			l.mu.Lock()
			l.live[j.ID] = &localProc{pid: pid}
			l.mu.Unlock()
			go l.watch(j.ID, pid, j.Tag, d)
			out[j.ID] = Status{Running: true}
			continue
		}
		exit, note := readExit(d)
		if exit == nil {
			note = "lost: not running after the service restarted, no exit status"
		}
		out[j.ID] = Status{Exit: exit, Note: note}
	}
	return out, nil
}

// watch polls an adopted process (not our child) until it is gone.
func (l *Local) watch(id int64, pid int, tag, d string) {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-l.quit:
			return
		case <-t.C:
		}
		if !alive(pid, tag) {
			l.finish(id, d)
			return
		}
	}
}

// Close implements Executor.
func (l *Local) Close() error {
	l.once.Do(func() { close(l.quit) })
	return nil
}
