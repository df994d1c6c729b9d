package service

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// slurmCluster makes sure a Slurm cluster answers: the one SLURM_CONF
// names, or a one-node cluster started with the repository's
// .ci/slurm-up.sh (as root) and stopped after the test. It returns the
// number of CPUs of the node.
func slurmCluster(t *testing.T) int {
	t.Helper()
	longtest.Skip(t, "the Slurm executor test starts a Slurm cluster")
	ping := func() bool {
		out, err := exec.Command("scontrol", "ping").CombinedOutput()
		return err == nil && strings.Contains(string(out), "UP")
	}
	if _, err := exec.LookPath("sbatch"); err == nil && os.Getenv("SLURM_CONF") != "" && ping() {
		return nodeCPUs(t)
	}
	if os.Geteuid() != 0 {
		t.Skip("the Slurm executor test needs root to start a test cluster (.ci/slurm-up.sh), or SLURM_CONF naming a running one")
	}
	up, err := filepath.Abs("../.ci/slurm-up.sh")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(up); err != nil {
		t.Skip("no .ci/slurm-up.sh in this tree to start a Slurm cluster")
	}
	dir := t.TempDir()
	env := append(os.Environ(), "SLURM_TEST_CTLD_PORT=6837", "SLURM_TEST_SLURMD_PORT=6838")
	cmd := exec.Command("bash", up, dir)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("starting Slurm: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		down := exec.Command("bash", filepath.Join(filepath.Dir(up), "slurm-down.sh"), dir)
		down.Env = env
		down.Run()
	})
	t.Setenv("SLURM_CONF", filepath.Join(dir, "slurm.conf"))
	if !ping() {
		t.Fatal("the Slurm controller started but does not answer")
	}
	return nodeCPUs(t)
}

func nodeCPUs(t *testing.T) int {
	out, err := exec.Command("sinfo", "-h", "-o", "%c").Output()
	if err != nil {
		t.Fatal(err)
	}
	var n int
	for _, f := range strings.Fields(string(out)) {
		var c int
		if _, err := fmtSscan(f, &c); err == nil && c > n {
			n = c
		}
	}
	if n < 1 {
		t.Fatalf("sinfo: no CPUs in %q", out)
	}
	return n
}

// slurmState is the Slurm state of the jobs named tag.
func slurmStates(t *testing.T, tag string) []string {
	t.Helper()
	out, err := exec.Command("squeue", "-h", "-t", "all", "-n", tag, "-o", "%T").Output()
	if err != nil {
		t.Fatal(err)
	}
	return strings.Fields(string(out))
}

func waitSlurm(t *testing.T, tag, state string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		st := slurmStates(t, tag)
		if len(st) == 1 && st[0] == state {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("Slurm job %s is %v, not %s", tag, st, state)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func TestSlurmExecutor(t *testing.T) {
	cpus := slurmCluster(t)
	secret := "SECRET_" + NewToken()
	t.Setenv("BF_TEST_SECRET", secret)
	t.Setenv("BACKFILL_TOKEN", secret)
	dir := t.TempDir()
	env := &testEnv{t: t, dir: dir}
	env.cfg = Config{Policy: "conservative", Procs: cpus, StateDir: dir, Sync: "normal", AdminToken: "admin-secret", Executor: "slurm"}
	env.cfg.ExecOptions.PollMillis = 100
	env.start(0)
	ctx := context.Background()
	alice := env.user("alice")
	tag := func(id int64) string { return "bf-" + env.svc.inst + "-" + itoa(id) }
	sub := func(cmd string, procs int, est int64) JobView {
		return must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: &procs, Estimate: &est, Command: cmd}))
	}
	// admitted → held in Slurm; started → released; its exit status comes back
	a := sub("echo hi from $BF_JOB_ID; exit 3", 1, 100)
	waitSlurm(t, tag(a.ID), "PENDING")
	env.clockTo(0)
	v := waitState(t, alice, a.ID, Failed)
	if v.ExitCode == nil || *v.ExitCode != 3 {
		t.Fatalf("exit status from Slurm: %+v", v)
	}
	if out, _ := os.ReadFile(filepath.Join(dir, "jobs", itoa(a.ID), "slurm.out")); string(out) != "hi from 1\n" {
		t.Fatalf("slurm.out: %q", out)
	}
	// killed at its limit: scancel
	b := sub("sleep 300", cpus, 5)
	env.clockTo(1)
	waitSlurm(t, tag(b.ID), "RUNNING")
	env.clockTo(1 + 5)
	waitState(t, alice, b.ID, Timeout)
	waitSlurm(t, tag(b.ID), "CANCELLED")
	// a waiting job stays held; cancelled, it leaves Slurm too
	c := sub("sleep 300", cpus, 1000)
	d := sub("true", 1, 10)
	env.clockTo(7)
	waitSlurm(t, tag(c.ID), "RUNNING")
	waitSlurm(t, tag(d.ID), "PENDING")
	must[JobView](t)(alice.Cancel(ctx, d.ID))
	waitSlurm(t, tag(d.ID), "CANCELLED")
	must[JobView](t)(alice.Cancel(ctx, c.ID))
	waitSlurm(t, tag(c.ID), "CANCELLED")
	// across a restart: a running job is watched again and its status read
	// back; a waiting job keeps its one held Slurm job
	e := sub("sleep 2; exit 4", 1, 100)
	f := sub("sleep 300", cpus, 100)
	env.clockTo(8)
	waitSlurm(t, tag(e.ID), "RUNNING")
	waitSlurm(t, tag(f.ID), "PENDING")
	tok := alice.Token
	env.stop()
	env.start(8)
	alice = NewClient(env.srv.URL, tok)
	if v := waitState(t, alice, e.ID, Failed); v.ExitCode == nil || *v.ExitCode != 4 {
		t.Fatalf("job running across the restart: %+v", v)
	}
	if st := slurmStates(t, tag(f.ID)); len(st) != 1 || st[0] != "PENDING" {
		t.Fatalf("waiting job after the restart: Slurm has %v", st)
	}
	must[JobView](t)(alice.Cancel(ctx, f.ID))
	waitSlurm(t, tag(f.ID), "CANCELLED")
	// the service's environment does not reach Slurm jobs
	g := sub("env", 1, 100)
	env.clockTo(9)
	waitState(t, alice, g.ID, Completed)
	out, _ := os.ReadFile(filepath.Join(dir, "jobs", itoa(g.ID), "slurm.out"))
	if strings.Contains(string(out), secret) || !strings.Contains(string(out), "BF_JOB_ID="+itoa(g.ID)) {
		t.Fatalf("a Slurm job's environment:\n%s", out)
	}
}
