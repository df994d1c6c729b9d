package main

// The attack harness (issue 17): each test starts a real `backfill serve`
// (this test binary re-executed as the command, in its own process, with
// its own descriptors and environment) and attacks it as a hostile user
// would. Every attack must be refused or contained.

import (
	"bufio"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/service"
)

// TestAttackServeProcess is not a test: with BACKFILL_ATTACK_ARGS set
// (separated by US, 0x1f), it is `backfill ARGS...` for the attack tests.
func TestAttackServeProcess(t *testing.T) {
	args := os.Getenv("BACKFILL_ATTACK_ARGS")
	if args == "" {
		t.Skip("the serve process of the attack tests")
	}
	root := newRoot()
	root.SetArgs(strings.Split(args, "\x1f"))
	if err := root.Execute(); err != nil {
		fmt.Fprintln(os.Stderr, "backfill:", err)
		os.Exit(1)
	}
	os.Exit(0)
}

type serveProc struct {
	cmd   *exec.Cmd
	url   string
	state string
	admin *service.Client
	log   *lockedBuffer
}

type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// startServe runs `backfill serve --state STATE --listen 127.0.0.1:0
// ARGS...` as a separate process, with extra variables in its
// environment, and waits until it answers.
func startServe(t *testing.T, state string, env []string, args ...string) *serveProc {
	t.Helper()
	all := append([]string{"serve", "--state", state, "--listen", "127.0.0.1:0", "--sync", "normal"}, args...)
	cmd := exec.Command(os.Args[0], "-test.run=^TestAttackServeProcess$", "-test.v=false")
	cmd.Env = append(append(os.Environ(), env...), "BACKFILL_ATTACK_ARGS="+strings.Join(all, "\x1f"))
	log := &lockedBuffer{}
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &serveProc{cmd: cmd, state: state, log: log}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("serve's log:\n%s", log.String())
		}
	})
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(state, "addr")); err == nil {
			p.url = strings.TrimSpace(string(b))
			break
		}
		if cmd.ProcessState != nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if p.url == "" {
		t.Fatalf("serve did not start:\n%s", log.String())
	}
	tok, err := os.ReadFile(filepath.Join(state, "admin.token"))
	if err != nil {
		t.Fatal(err)
	}
	p.admin = service.NewClient(p.url, strings.TrimSpace(string(tok)))
	// the port opens before the state is rebuilt (requests get 503 until
	// then): wait for health to say ok, with a deadline of its own (on a
	// loaded machine the rebuild can outlast what is left of the start's),
	// and fail here rather than with a 503 later
	deadline = time.Now().Add(60 * time.Second)
	for {
		h, err := p.admin.Health(context.Background())
		if err == nil && h.Status == "ok" {
			break
		}
		if !time.Now().Before(deadline) {
			t.Fatalf("serve did not become ready in 60 s (health %+v, %v):\n%s", h, err, log.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	return p
}

func (p *serveProc) user(t *testing.T, name string) *service.Client {
	t.Helper()
	u, err := p.admin.CreateUser(context.Background(), service.UserRequest{Name: name})
	if err != nil {
		t.Fatal(err)
	}
	return service.NewClient(p.url, u.Token)
}

func randHex(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return hex.EncodeToString(b)
}

// dialFrom connects to addr from the loopback address src (127.0.0.x):
// Linux answers on the whole 127/8, so one machine plays many clients.
func dialFrom(src, addr string) (net.Conn, error) {
	d := net.Dialer{Timeout: 3 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(src)}}
	return d.Dial("tcp", addr)
}

// healthWithin asks GET /v1/health from src and returns how long the
// answer took (an error if none within 1 s). A connection closed without
// an answer (the server's overflow slots were full) is retried within the
// second, as a monitoring client would.
func healthWithin(addr, src string) (time.Duration, error) {
	t0 := time.Now()
	for {
		d, err := healthOnce(addr, src, t0)
		if err == nil || time.Since(t0) >= time.Second || !(errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, syscall.ECONNRESET)) {
			return d, err
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func healthOnce(addr, src string, t0 time.Time) (time.Duration, error) {
	c, err := dialFrom(src, addr)
	if err != nil {
		return 0, err
	}
	defer c.Close()
	c.SetDeadline(t0.Add(time.Second))
	fmt.Fprintf(c, "GET /v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		return time.Since(t0), err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 {
		return time.Since(t0), fmt.Errorf("health: %s", resp.Status)
	}
	return time.Since(t0), nil
}

// openFiles is the number of open descriptors of process pid.
func openFiles(pid int) int {
	es, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
	return len(es)
}

// TestAttackSlowBodies floods a real serve with slow-body connections,
// without and with a valid token, from 6 loopback addresses (4,000
// connections that send full headers, Content-Length: 60000, then one
// byte every second): the connection caps refuse what is beyond them at
// once, unauthenticated connections are answered 401 and closed without
// their body being read, authenticated ones are cut at the body timeout,
// the server's descriptors stay bounded, and GET /v1/health is answered
// within 1 s throughout (from a fresh address, and from a flooding one),
// and an authenticated user submits while the slow bodies are held.
func TestAttackSlowBodies(t *testing.T) {
	longtest.Skip(t, "the connection flood takes ~10 s")
	// 4,000 connections from 6 addresses: each address is held at
	// --max-conns-per-client, and together they stay below --max-conns
	// (a distributed attacker with more addresses than --max-conns /
	// --max-conns-per-client fills --max-conns; then only health is
	// answered, by design)
	const conns, attackers = 4000, 6
	var rl syscall.Rlimit
	syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl)
	if rl.Cur < 2*conns+512 {
		rl.Cur = min(rl.Max, 2*conns+512)
		if err := syscall.Setrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil || rl.Cur < conns+512 {
			t.Skipf("open-files limit %d too low for %d client connections", rl.Cur, conns)
		}
	}
	dir := t.TempDir()
	p := startServe(t, filepath.Join(dir, "state"), nil, "--procs", "8", "--max-conns", "1024", "--max-conns-per-client", "128",
		"--body-timeout", "3s", "--header-timeout", "3s")
	alice := p.user(t, "alice")
	addr := strings.TrimPrefix(p.url, "http://")
	pid := p.cmd.Process.Pid
	base := openFiles(pid)

	stop := make(chan struct{})
	var opened, refusedEarly, cut401, cutTimeout atomic.Int64
	var wg sync.WaitGroup
	attack := func(i int) {
		defer wg.Done()
		src := fmt.Sprintf("127.0.0.%d", 10+i%attackers)
		c, err := dialFrom(src, addr)
		if err != nil {
			return
		}
		defer c.Close()
		opened.Add(1)
		auth := ""
		if i%2 == 1 {
			auth = "Authorization: Bearer " + alice.Token + "\r\n"
		}
		if _, err := fmt.Fprintf(c, "POST /v1/jobs HTTP/1.1\r\nHost: x\r\n%sContent-Type: application/json\r\nContent-Length: 60000\r\n\r\n{", auth); err != nil {
			refusedEarly.Add(1)
			return
		}
		// dribble a byte a second; read what the server answers
		answered := make(chan string, 1)
		go func() {
			c.SetReadDeadline(time.Now().Add(20 * time.Second))
			br := bufio.NewReader(c)
			line, _ := br.ReadString('\n')
			answered <- line
		}()
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for {
			select {
			case line := <-answered:
				switch {
				case strings.Contains(line, " 401 "):
					cut401.Add(1)
				case strings.Contains(line, " 503 ") || line == "":
					refusedEarly.Add(1)
				default:
					cutTimeout.Add(1)
				}
				return
			case <-stop:
				return
			case <-tick.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					refusedEarly.Add(1)
					return
				}
			}
		}
	}
	for i := range conns {
		wg.Add(1)
		go attack(i)
	}
	// during the flood: health within 1 s from a fresh address and from a
	// flooding one; an authenticated submission from a fresh address
	var worst [2]time.Duration // from a fresh address, from a flooding one
	maxFiles := 0
	deadline := time.Now().Add(8 * time.Second)
	n := 0
	submitted := false
	for time.Now().Before(deadline) {
		if !submitted && time.Until(deadline) < 6500*time.Millisecond {
			// an authenticated submission while the slow bodies are held
			// (before the body timeout cuts them): their bodies are read
			// before the in-flight limit, so they do not take its slots
			submitted = true
			procs, est := 1, int64(60)
			c2 := service.NewClient(p.url, alice.Token)
			c2.HTTP.Transport = &http.Transport{DialContext: func(ctx context.Context, network, a string) (net.Conn, error) {
				return dialFrom("127.0.0.201", a)
			}}
			c2.HTTP.Timeout = 2 * time.Second
			if _, err := c2.Submit(context.Background(), service.SubmitRequest{Procs: &procs, Estimate: &est}); err != nil {
				t.Errorf("authenticated submission during the flood: %v", err)
			}
		}
		for i, src := range []string{"127.0.0.200", "127.0.0.10"} {
			d, err := healthWithin(addr, src)
			if err != nil {
				t.Errorf("health from %s during the flood: %v after %v", src, err, d)
			}
			worst[i] = max(worst[i], d)
		}
		maxFiles = max(maxFiles, openFiles(pid))
		n++
		time.Sleep(200 * time.Millisecond)
	}
	close(stop)
	wg.Wait()
	t.Logf("%d connections opened; %d refused at once (caps), %d answered 401 unread, %d cut at the body timeout; health %d×2 probes, worst %v from a fresh address, %v from a flooding one; server descriptors %d before, at most %d during",
		opened.Load(), refusedEarly.Load(), cut401.Load(), cutTimeout.Load(), n, worst[0], worst[1], base, maxFiles)
	if cut401.Load() == 0 || cutTimeout.Load() == 0 || refusedEarly.Load() == 0 {
		t.Errorf("expected each defence to act (401 unread, body timeout, caps)")
	}
	if maxFiles > 1024+overflowFiles+base+64 {
		t.Errorf("the server held %d descriptors: the caps did not bound them", maxFiles)
	}
	if strings.Contains(p.log.String(), "too many open files") {
		t.Errorf("the server ran out of descriptors")
	}
}

// overflowFiles is the service's bound on connections answered beyond the
// caps (service.overflowSlots).
const overflowFiles = 256

// TestAttackUnauthenticatedBodyNotRead: a request without a valid token
// is answered 401 at once and the connection closed, though its body has
// not arrived (a slow client cannot hold it); the same with a token that
// is refused (403 on an admin endpoint).
func TestAttackUnauthenticatedBodyNotRead(t *testing.T) {
	dir := t.TempDir()
	p := startServe(t, filepath.Join(dir, "state"), nil, "--procs", "4")
	alice := p.user(t, "alice")
	addr := strings.TrimPrefix(p.url, "http://")
	for _, c := range []struct{ path, auth, want string }{
		{"/v1/jobs", "", " 401 "},
		{"/v1/jobs", "Authorization: Bearer bf_wrong\r\n", " 401 "},
		{"/v1/users", "Authorization: Bearer " + alice.Token + "\r\n", " 403 "},
		{"/v1/health", "", " 405 "},
	} {
		conn, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t0 := time.Now()
		fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\n%sContent-Length: 60000\r\n\r\n{", c.path, c.auth)
		conn.SetReadDeadline(time.Now().Add(5 * time.Second))
		all, _ := io.ReadAll(conn) // returns when the server closes
		conn.Close()
		if !strings.Contains(string(all), c.want) || time.Since(t0) > 2*time.Second {
			t.Errorf("POST %s %q with a body that never comes: %q after %v (want%s at once, connection closed)", c.path, c.auth, attackFirstLine(string(all)), time.Since(t0), c.want)
		}
	}
}

func attackFirstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return strings.TrimSpace(l)
}

// sleepers are the live processes whose command line is marker (words
// separated by single spaces): "sleep 301.ab12".
func sleepers(marker string) []int {
	var out []int
	es, _ := os.ReadDir("/proc")
	for _, e := range es {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		st, _ := os.ReadFile("/proc/" + e.Name() + "/stat")
		if i := strings.LastIndexByte(string(st), ')'); i > 0 && i+2 < len(st) && st[i+2] == 'Z' {
			continue
		}
		if string(b) == strings.ReplaceAll(marker, " ", "\x00")+"\x00" {
			out = append(out, pid)
		}
	}
	return out
}

func waitJob(t *testing.T, c *service.Client, id int64, final bool, within time.Duration) service.JobView {
	t.Helper()
	deadline := time.Now().Add(within)
	for {
		v, err := c.Job(context.Background(), id)
		if err != nil {
			t.Fatal(err)
		}
		if (final && v.State.Final()) || (!final && v.State == service.Running) {
			return v
		}
		if time.Now().After(deadline) {
			t.Fatalf("job %d is still %s after %v", id, v.State, within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAttackJobs runs hostile jobs through a real serve with the local
// executor (two users mapped to two unprivileged accounts), once with a
// cgroup per job (where cgroup v2 is writable: skipped with the reason
// elsewhere) and once with the session tracker (--cgroup off).
func TestAttackJobs(t *testing.T) {
	t.Parallel() // mostly waiting (a job's 8 s limit): overlaps with the CPU-bound parallel tests
	if os.Geteuid() != 0 {
		t.Skip("the job attacks need root: jobs run as other accounts (--run-as-map)")
	}
	for _, mode := range []string{"cgroup", "tracker"} {
		t.Run(mode, func(t *testing.T) {
			t.Parallel()
			cg := "auto"
			why := cgroupUnavailable()
			if mode == "tracker" {
				cg = "off"
				if why == "" {
					// the tracker is the fallback: the quick run tests
					// what serve uses here
					longtest.Skip(t, "the session tracker (cgroups work here)")
				}
			} else if why != "" {
				t.Skip("cgroup v2 is not writable here (" + why + "): the cgroup variant is skipped, the tracker variant runs")
			}
			attackJobs(t, cg)
		})
	}
}

// killJobsUnder kills every process whose BF_JOB_DIR is under root (the
// jobs of one test's serve) and removes their cgroups.
func killJobsUnder(root string) {
	mark := []byte("BF_JOB_DIR=" + root + "/")
	es, _ := os.ReadDir("/proc")
	for _, e := range es {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if env, err := os.ReadFile("/proc/" + e.Name() + "/environ"); err == nil && bytesContains(env, mark) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}

func bytesContains(b, sub []byte) bool { return strings.Contains(string(b), string(sub)) }

// cgroupUnavailable says why this machine has no writable cgroup v2 ("" if
// it has one).
func cgroupUnavailable() string {
	b, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return err.Error()
	}
	for _, l := range strings.Split(string(b), "\n") {
		pre, post, ok := strings.Cut(l, " - ")
		if f := strings.Fields(pre); ok && strings.HasPrefix(post, "cgroup2 ") && len(f) >= 5 {
			probe := filepath.Join(f[4], "backfill-probe-"+strconv.Itoa(os.Getpid()))
			if err := os.Mkdir(probe, 0o755); err != nil {
				return err.Error()
			}
			os.Remove(probe)
			return ""
		}
	}
	return "no cgroup2 mount"
}

func attackJobs(t *testing.T, cgroup string) {
	dir := t.TempDir()
	for d := dir; d != os.TempDir() && d != "/"; d = filepath.Dir(d) {
		os.Chmod(d, 0o711) // the accounts reach their job directories
	}
	state, jobs := filepath.Join(dir, "state"), filepath.Join(dir, "jobs")
	secret := "SECRET_" + randHex(8)
	// registered before serve's own cleanup, so it runs after serve has
	// stopped: serve leaves running jobs running (a restart adopts them),
	// and a test that failed half way must not leave its jobs behind
	t.Cleanup(func() { killJobsUnder(jobs) })
	p := startServe(t, state, []string{"BACKFILL_TOKEN=" + secret, "AWS_SECRET_ACCESS_KEY=" + secret, "BF_TEST_SECRET=" + secret},
		"--procs", "8", "--executor", "local", "--job-dir", jobs, "--cgroup", cgroup,
		"--run-as-map", "alice=61001:61001", "--run-as-map", "bob=61002:61002")
	if cgroup == "auto" {
		// serve logs it before it writes its address, but the copy of its
		// output into p.log may lag behind on a loaded machine
		for i := 0; i < 250 && !strings.Contains(p.log.String(), "one cgroup v2 per job"); i++ {
			time.Sleep(20 * time.Millisecond)
		}
		if !strings.Contains(p.log.String(), "one cgroup v2 per job") {
			t.Fatalf("cgroups expected:\n%s", p.log.String())
		}
	}
	alice, bob := p.user(t, "alice"), p.user(t, "bob")
	ctx := context.Background()
	submit := func(c *service.Client, cmd string, procs int, est int64) service.JobView {
		t.Helper()
		v, err := c.Submit(ctx, service.SubmitRequest{Procs: &procs, Estimate: &est, Command: cmd})
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	out := func(id int64, name string) string {
		b, _ := os.ReadFile(filepath.Join(jobs, strconv.FormatInt(id, 10), name))
		return string(b)
	}
	mark := fmt.Sprintf("%06d", time.Now().UnixNano()%1000000) // sleep takes 301.123456
	escape := "301." + mark                                    // setsid sleep: must die at the limit
	leftover := "303." + mark                                  // sleep & exit 0: must die at the job's end
	cancelled := "305." + mark                                 // setsid sleep: must die at the cancellation
	target := filepath.Join(dir, "planted-target")
	os.WriteFile(target, []byte("untouched\n"), 0o600)

	// alice writes a secret; her job's directory and output are hers only
	a1 := submit(alice, "echo alice-private-"+mark+"; sleep 30", 1, 60)
	// bob tries to read it, the state (admin token, database), lists the
	// job directories, and plants links where the next jobs' files go
	b1 := submit(bob, strings.Join([]string{
		`cat "$BF_JOB_DIR/../1/stdout" 2>&1`,
		`cat ../1/stdout 2>&1`,
		`ls "$BF_JOB_DIR/.." 2>&1`,
		`cat ` + state + `/admin.token 2>&1`,
		`head -c 100 ` + state + `/state.db 2>&1`,
		`ln -s ` + target + ` "$BF_JOB_DIR/../4" 2>&1`,
		`mkdir "$BF_JOB_DIR/../4" 2>&1`,
		`env`,
		`exit 0`,
	}, "; "), 1, 60)
	// the root of the job directories gets a link for job 5 (as if an
	// earlier job had planted it): job 5 must refuse it
	if err := os.Symlink(filepath.Dir(target), filepath.Join(jobs, "5")); err != nil {
		t.Fatal(err)
	}
	b2 := submit(bob, "setsid sleep "+escape+" & sleep 60", 1, 8)           // id 3: killed at its limit
	b3 := submit(bob, "echo job4 > stdout-probe; exit 0", 1, 60)            // id 4
	b4 := submit(bob, "echo written-through-the-link", 1, 60)               // id 5: refused
	b5 := submit(bob, "sleep "+leftover+" >/dev/null 2>&1 & exit 0", 1, 60) // id 6
	b6 := submit(bob, "setsid sleep "+cancelled+" & sleep 60", 1, 60)       // id 7
	b7 := submit(bob, "./job.sh", 1, 60)                                    // id 8: relative command, no submit directory
	_ = b3
	// a relative command runs in the submit directory, as with sbatch
	subdir := filepath.Join(dir, "submit")
	os.Mkdir(subdir, 0o755)
	os.Chmod(subdir, 0o755)
	os.WriteFile(filepath.Join(subdir, "job.sh"), []byte("#!/bin/sh\necho from-the-submit-dir $(pwd)\n"), 0o755)
	// explicitly: the process's umask may be serve's 077 (an in-process
	// serve of another test sets it), and bob's account must run the script
	os.Chmod(filepath.Join(subdir, "job.sh"), 0o755)
	one, minute := 1, int64(60)
	b8, err := bob.Submit(ctx, service.SubmitRequest{Procs: &one, Estimate: &minute, Command: "./job.sh", Workdir: subdir}) // id 9
	if err != nil {
		t.Fatal(err)
	}

	// the setsid child runs (until the limit, below)
	waitJob(t, bob, b2.ID, false, 20*time.Second)
	for i := 0; i < 300 && len(sleepers("sleep "+escape)) == 0; i++ {
		time.Sleep(20 * time.Millisecond)
	}
	if len(sleepers("sleep "+escape)) == 0 {
		ps, _ := exec.Command("ps", "-eo", "pid,ppid,sid,uid,stat,args").Output()
		v, _ := bob.Job(ctx, b2.ID)
		t.Errorf("the setsid child of job %d (%s) never ran:\n%s\n%s", b2.ID, v.State, ps, out(b2.ID, "stderr"))
	}

	// bob's snooping job
	v := waitJob(t, bob, b1.ID, true, 20*time.Second)
	snoop := out(b1.ID, "stdout")
	if v.State != service.Completed {
		t.Errorf("bob's snooping job: %s (%s)", v.State, v.Reason)
	}
	if strings.Contains(snoop, "alice-private-"+mark) {
		t.Errorf("another job's output was readable:\n%s", snoop)
	}
	tok, _ := os.ReadFile(filepath.Join(state, "admin.token"))
	if strings.Contains(snoop, strings.TrimSpace(string(tok))) || strings.Contains(snoop, "\xed\xda\x0c\xed") { // bbolt's magic, in its meta page
		t.Errorf("the admin token or the database was readable from a job:\n%s", snoop)
	}
	if strings.Contains(snoop, secret) {
		t.Errorf("the server's environment leaked into a job:\n%s", snoop)
	}
	for _, want := range []string{"BF_JOB_ID=2", "BF_USER=bob", "BF_PROCS=1", "Permission denied"} {
		if !strings.Contains(snoop, want) {
			t.Errorf("bob's job output lacks %q:\n%s", want, snoop)
		}
	}
	for _, l := range strings.Split(snoop, "\n") {
		k, _, _ := strings.Cut(l, "=")
		switch {
		case k == "" || !strings.Contains(l, "="):
		case strings.HasPrefix(k, "BF_") || strings.HasPrefix(k, "LC_"):
		case k == "PATH" || k == "HOME" || k == "SHELL" || k == "TMPDIR" || k == "LANG" || k == "LANGUAGE" || k == "TZ" || k == "USER" || k == "LOGNAME" || k == "PWD" || k == "OLDPWD" || k == "SHLVL" || k == "_":
		default:
			t.Errorf("job environment has %s, not in the documented set", k)
		}
	}
	// the job directories: 0700, owned by the job's account
	for id, uid := range map[int64]uint32{a1.ID: 61001, b1.ID: 61002} {
		fi, err := os.Lstat(filepath.Join(jobs, strconv.FormatInt(id, 10)))
		if err != nil {
			t.Fatal(err)
		}
		st := fi.Sys().(*syscall.Stat_t)
		if fi.Mode().Perm() != 0o700 || st.Uid != uid {
			t.Errorf("job %d directory: mode %o owner %d, want 0700 owned by %d", id, fi.Mode().Perm(), st.Uid, uid)
		}
	}
	for _, f := range []string{"state.db", "admin.token", "addr"} {
		if fi, err := os.Stat(filepath.Join(state, f)); err != nil || fi.Mode().Perm() != 0o600 {
			t.Errorf("%s: %v mode %v, want 0600", f, err, fi.Mode())
		}
	}
	if fi, err := os.Stat(state); err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("state directory mode %v, want 0700", fi.Mode())
	}

	// the planted link: job 5 does not start through it, the target is
	// untouched
	v = waitJob(t, bob, b4.ID, true, 20*time.Second)
	if v.State == service.Completed {
		t.Errorf("job 5 ran in a planted directory: %+v", v)
	}
	if b, _ := os.ReadFile(target); string(b) != "untouched\n" {
		t.Errorf("written through a planted link: %q", b)
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(target), "stdout")); err == nil {
		t.Errorf("a job's stdout was created through the planted link")
	}
	if fi, err := os.Lstat(filepath.Join(jobs, "4")); err != nil || fi.Mode()&os.ModeSymlink != 0 {
		t.Errorf("job 4's directory: %v %v (a link planted by job 2?)", fi, err)
	}

	// sleep & exit 0: the job is over only when its leftover is gone
	v = waitJob(t, bob, b5.ID, true, 20*time.Second)
	if v.State != service.Completed {
		t.Errorf("sleep & exit 0: %s", v.State)
	}
	if ps := sleepers("sleep " + leftover); len(ps) > 0 {
		t.Errorf("the job is %s but its leftover sleep lives on: %v", v.State, ps)
	}

	// setsid escape: killed at the limit (8 s)
	v = waitJob(t, bob, b2.ID, true, 20*time.Second)
	if v.State != service.Timeout {
		t.Errorf("job %d: %s, want timeout", b2.ID, v.State)
	}
	time.Sleep(200 * time.Millisecond)
	if ps := sleepers("sleep " + escape); len(ps) > 0 {
		t.Errorf("setsid escaped the limit: %v still running", ps)
	}

	// cancel kills the setsid child too
	waitJob(t, bob, b6.ID, false, 20*time.Second)
	for i := 0; i < 50 && len(sleepers("sleep "+cancelled)) == 0; i++ {
		time.Sleep(50 * time.Millisecond)
	}
	if _, err := bob.Cancel(ctx, b6.ID); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if ps := sleepers("sleep " + cancelled); len(ps) > 0 {
		t.Errorf("setsid escaped the cancellation: %v still running", ps)
	}

	// a command that cannot run is failed, not completed
	if v := waitJob(t, bob, b7.ID, true, 20*time.Second); v.State != service.Failed || v.ExitCode == nil || *v.ExitCode != 127 {
		t.Errorf("./job.sh without a submit directory: %s exit %v, want failed 127", v.State, v.ExitCode)
	}

	if v := waitJob(t, bob, b8.ID, true, 30*time.Second); v.State != service.Completed || !strings.Contains(out(b8.ID, "stdout"), "from-the-submit-dir "+subdir) {
		t.Errorf("./job.sh submitted from %s: %s, output %q", subdir, v.State, out(b8.ID, "stdout"))
	}

	// another user's job is absent to bob; deleting alice cancels hers
	if _, err := bob.Job(ctx, a1.ID); err == nil {
		t.Errorf("bob sees alice's job")
	}
	if err := p.admin.Do(ctx, "DELETE", "/v1/users/alice", nil, nil); err != nil {
		t.Fatal(err)
	}
	if v, err := p.admin.Job(ctx, a1.ID); err != nil || v.State != service.Cancelled || !strings.Contains(v.Reason, "deleted") {
		t.Errorf("alice's job after her deletion: %+v %v", v, err)
	}
	alice2 := p.user(t, "alice")
	if _, err := alice2.Job(ctx, a1.ID); err == nil {
		t.Errorf("a new user named alice sees the deleted alice's job")
	}
	// the CLI: delete with --reassign gives the jobs to the admin
	carol := p.user(t, "carol")
	c1 := submit(carol, "sleep 1", 8, 60)
	out2, err := run(t, "user", "delete", "carol", "--reassign", "--server", p.url, "--token-file", filepath.Join(state, "admin.token"))
	if err != nil || !strings.Contains(out2, "given to admin") {
		t.Fatalf("user delete --reassign: %v %s", err, out2)
	}
	if v, err := p.admin.Job(ctx, c1.ID); err != nil || v.User != "admin" || v.State == service.Cancelled {
		t.Errorf("carol's job after user delete --reassign: %+v %v", v, err)
	}
}
