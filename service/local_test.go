package service

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/service/executor"
)

func newLocalEnv(t *testing.T) *testEnv {
	t.Helper()
	dir := t.TempDir()
	env := &testEnv{t: t, dir: dir}
	env.cfg = Config{Policy: "conservative", Procs: 4, StateDir: filepath.Join(dir, "state"), Sync: "normal", AdminToken: "admin-secret", Executor: "local",
		ExecOptions: localOptions(t, dir)}
	env.start(0)
	return env
}

// localOptions are the local executor's options for a test in dir: the
// job directories in dir/jobs, reachable by the jobs' account (nobody
// when the tests run as root).
func localOptions(t *testing.T, dir string) executor.Options {
	t.Helper()
	opt := executor.Options{JobRoot: filepath.Join(dir, "jobs")}
	if os.Geteuid() == 0 {
		opt.RunAs = "nobody"
		// the account must traverse the test's directories to its own
		for d := dir; d != os.TempDir() && d != "/" && d != "."; d = filepath.Dir(d) {
			if err := os.Chmod(d, 0o711); err != nil {
				t.Fatal(err)
			}
		}
	}
	return opt
}

// jobFile is a file of job id's directory.
func jobFile(env *testEnv, id int64, name string) string {
	return filepath.Join(env.cfg.ExecOptions.JobRoot, strconv.FormatInt(id, 10), name)
}

// waitState polls job id until it is in state st.
func waitState(t *testing.T, c *Client, id int64, st State) JobView {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		v, err := c.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if v.State == st {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is %s, not %s, after 10 s", id, v.State, st)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func jobPid(t *testing.T, env *testEnv, id int64) int {
	t.Helper()
	f := filepath.Join(env.cfg.StateDir, "run", strconv.FormatInt(id, 10), "pid")
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(f); err == nil {
			if n, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil {
				return n
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("no pid file for job %d", id)
	return 0
}

func gone(pid int) bool {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		if syscall.Kill(pid, 0) != nil {
			return true
		}
		st, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
		if err != nil || strings.Contains(string(st), ") Z") {
			return true
		}
		time.Sleep(10 * time.Millisecond)
	}
	return false
}

func TestLocalExecutor(t *testing.T) {
	env := newLocalEnv(t)
	ctx := context.Background()
	alice := env.user("alice")
	sub := func(cmd string, procs int, est int64) JobView {
		return must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: &procs, Estimate: &est, Command: cmd}))
	}
	// a job that ends by itself with its exit status and output
	a := sub("echo hello from $BF_JOB_ID on $BF_PROCS; exit 3", 2, 100)
	env.clockTo(0)
	v := waitState(t, alice, a.ID, Failed)
	if v.ExitCode == nil || *v.ExitCode != 3 {
		t.Fatalf("exit status: %+v", v)
	}
	out, _ := os.ReadFile(jobFile(env, 1, "stdout"))
	if string(out) != "hello from 1 on 2\n" {
		t.Fatalf("stdout %q", out)
	}
	// a job killed at its limit
	b := sub("sleep 60", 4, 5)
	env.clockTo(1)
	waitState(t, alice, b.ID, Running)
	pid := jobPid(t, env, b.ID)
	env.clockTo(7)
	if v := waitState(t, alice, b.ID, Timeout); *v.End != *v.Start+5 {
		t.Fatalf("killed at %d, started at %d with estimate 5", *v.End, *v.Start)
	}
	if !gone(pid) {
		t.Fatalf("job %d (pid %d) still running after its limit", b.ID, pid)
	}
	// a cancelled running job
	c := sub("sleep 60", 1, 100)
	env.clockTo(8)
	waitState(t, alice, c.ID, Running)
	pid = jobPid(t, env, c.ID)
	must[JobView](t)(alice.Cancel(ctx, c.ID))
	if !gone(pid) {
		t.Fatalf("cancelled job still running")
	}
}

func TestLocalExecutorRestart(t *testing.T) {
	env := newLocalEnv(t)
	ctx := context.Background()
	alice := env.user("alice")
	procs, est := 1, int64(100)
	// still running across the restart: found again, its end reported
	a := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: &procs, Estimate: &est, Command: "sleep 1; exit 7"}))
	// ends while the service is down
	b := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: &procs, Estimate: &est, Command: "exit 5"}))
	env.clockTo(0)
	jobPid(t, env, a.ID)
	jobPid(t, env, b.ID)
	tok := alice.Token
	env.stop()
	time.Sleep(200 * time.Millisecond)
	env.start(0)
	alice = NewClient(env.srv.URL, tok)
	if v := waitState(t, alice, b.ID, Failed); v.ExitCode == nil || *v.ExitCode != 5 {
		t.Fatalf("job ended during the downtime: %+v", v)
	}
	if v := waitState(t, alice, a.ID, Running); v.Start == nil {
		t.Fatalf("adopted job: %+v", v)
	}
	if v := waitState(t, alice, a.ID, Failed); v.ExitCode == nil || *v.ExitCode != 7 {
		t.Fatalf("adopted job's end: %+v", v)
	}
}
