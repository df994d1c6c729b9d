package service

import (
	"context"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/service/store"
)

// TestServeProcess is not a test: run with BACKFILL_SERVE_HELPER=DIR, it
// is the server process of TestCrashKill9 (a manual clock, durable
// commits, a snapshot every 5 records, DIR/addr written once it listens).
func TestServeProcess(t *testing.T) {
	dir := os.Getenv("BACKFILL_SERVE_HELPER")
	if dir == "" {
		t.Skip("helper process for TestCrashKill9")
	}
	// a snapshot every 5 records: kills land before, during and after
	// snapshot transactions, and restarts begin from snapshots
	svc, err := Open(Config{Policy: os.Getenv("BACKFILL_SERVE_POLICY"), Procs: 16, StateDir: dir, Sync: "full",
		AdminToken: "admin-secret", Clock: NewManualClock(0), SnapshotEvery: 5})
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		os.Exit(3)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		os.Exit(4)
	}
	tmp := filepath.Join(dir, "addr.tmp")
	os.WriteFile(tmp, []byte("http://"+ln.Addr().String()), 0o600)
	os.Rename(tmp, filepath.Join(dir, "addr"))
	http.Serve(ln, svc.Handler())
}

type crashServer struct {
	cmd  *exec.Cmd
	base string
}

func startHelper(t *testing.T, dir, pol string) *crashServer {
	t.Helper()
	os.Remove(filepath.Join(dir, "addr"))
	cmd := exec.Command(os.Args[0], "-test.run=^TestServeProcess$", "-test.v=false")
	cmd.Env = append(os.Environ(), "BACKFILL_SERVE_HELPER="+dir, "BACKFILL_SERVE_POLICY="+pol)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if b, err := os.ReadFile(filepath.Join(dir, "addr")); err == nil {
			return &crashServer{cmd: cmd, base: string(b)}
		}
		time.Sleep(5 * time.Millisecond)
	}
	cmd.Process.Kill()
	t.Fatal("the helper server did not start")
	return nil
}

func (c *crashServer) kill9() {
	c.cmd.Process.Signal(syscall.SIGKILL)
	c.cmd.Wait()
}

// TestCrashKill9 kills the server with SIGKILL at random moments while
// clients submit (with idempotency keys, retried after each restart),
// report ends, cancel and move the clock, and checks after every restart
// that no acknowledged job is lost or duplicated and that every guarantee
// given is still the same; at the end the schedule is run to completion
// and audited: every job started by its guarantee, capacity never
// exceeded.
func TestCrashKill9(t *testing.T) {
	for _, pol := range []string{"conservative", "slack"} {
		t.Run(pol, func(t *testing.T) { crashRun(t, pol) })
	}
}

func crashRun(t *testing.T, pol string) {
	rounds := 8
	if longtest.Short() {
		rounds = 4
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(uint64(len(pol)), 99))
	ctx := context.Background()
	var userTok string
	acked := map[string]JobView{} // key → answer
	var sent []string             // keys in order of first sending
	sentSet := map[string]bool{}
	next := 0
	retried := 0
	for round := 0; round <= rounds; round++ {
		srv := startHelper(t, dir, pol)
		admin := NewClient(srv.base, "admin-secret")
		if round == 0 {
			u, err := admin.CreateUser(ctx, UserRequest{Name: "alice"})
			if err != nil {
				srv.kill9()
				t.Fatal(err)
			}
			userTok = u.Token
		}
		alice := NewClient(srv.base, userTok)
		check := func() map[string]JobView {
			l, err := admin.Jobs(ctx, "", "")
			if err != nil {
				srv.kill9()
				t.Fatal(err)
			}
			byKey := map[string]JobView{}
			for _, j := range l.Jobs {
				if _, dup := byKey[j.IdempotencyKey]; dup {
					srv.kill9()
					t.Fatalf("round %d: key %s submitted twice", round, j.IdempotencyKey)
				}
				byKey[j.IdempotencyKey] = j
			}
			for k, a := range acked {
				b, ok := byKey[k]
				if !ok {
					srv.kill9()
					t.Fatalf("round %d: acknowledged job %d (key %s) lost", round, a.ID, k)
				}
				if a.ID != b.ID || !eq(a.GuaranteedStart, b.GuaranteedStart) || a.Submit != b.Submit {
					srv.kill9()
					t.Fatalf("round %d: job %s changed after restart:\n%+v\n%+v", round, k, a, b)
				}
			}
			if len(byKey) > len(sent) {
				srv.kill9()
				t.Fatalf("round %d: %d jobs, only %d keys sent", round, len(byKey), len(sent))
			}
			return byKey
		}
		check()
		// retry what was never acknowledged (the answer may have been lost)
		for _, k := range sent {
			if _, ok := acked[k]; !ok {
				retried++
				v, err := alice.Submit(ctx, crashJob(k))
				if err != nil {
					srv.kill9()
					t.Fatalf("round %d: retrying %s: %v", round, k, err)
				}
				acked[k] = v
			}
		}
		if round == rounds {
			check()
			t.Logf("%d rounds, %d keys sent, %d answered before a kill, %d retried after a restart", rounds, len(sent), len(sent)-retried, retried)
			runToEndClient(t, admin)
			finalCheck(t, admin, acked)
			srv.kill9()
			st, in, err := store.OpenReadOnly(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st != nil {
				st.Close()
			}
			if in.Snapshots == 0 { // both policies save their state
				t.Fatalf("%s: %d snapshots in the state directory", pol, in.Snapshots)
			}
			return
		}
		// the stream, killed at a random moment
		var mu sync.Mutex
		var wg sync.WaitGroup
		stop := make(chan struct{})
		for c := 0; c < 3; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				for {
					select {
					case <-stop:
						return
					default:
					}
					mu.Lock()
					k := fmt.Sprintf("k%05d", next)
					next++
					sent = append(sent, k)
					sentSet[k] = true
					mu.Unlock()
					v, err := alice.Submit(ctx, crashJob(k))
					if err != nil {
						return // killed
					}
					mu.Lock()
					acked[k] = v
					mu.Unlock()
					if c == 0 {
						if !disturb(ctx, admin, alice, v) {
							return
						}
					}
				}
			}(c)
		}
		time.Sleep(time.Duration(20+r.IntN(200)) * time.Millisecond)
		srv.kill9()
		close(stop)
		wg.Wait()
	}
}

func crashJob(k string) SubmitRequest {
	var h uint32
	for _, c := range k {
		h = h*31 + uint32(c)
	}
	procs := 1 + int(h%16)
	est := int64(5 + h%40)
	return SubmitRequest{Procs: &procs, Estimate: &est, IdempotencyKey: k}
}

func runToEndClient(t *testing.T, admin *Client) {
	t.Helper()
	ctx := context.Background()
	h, err := admin.Health(ctx)
	if err != nil {
		t.Fatal(err)
	}
	now := h.Now
	for i := 0; i < 1000000; i++ {
		r, err := admin.SetClock(ctx, now, true)
		if err != nil {
			t.Fatal(err)
		}
		if r.Next == nil {
			return
		}
		now = *r.Next
	}
	t.Fatal("no end")
}

// finalCheck audits the finished schedule.
func finalCheck(t *testing.T, admin *Client, acked map[string]JobView) {
	t.Helper()
	finalCheckProcs(t, admin, acked, 16)
}

// finalCheckProcs audits the finished schedule on a machine of procs
// processors.
func finalCheckProcs(t *testing.T, admin *Client, acked map[string]JobView, procs int) {
	t.Helper()
	l, err := admin.Jobs(context.Background(), "", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Jobs) != len(acked) {
		t.Fatalf("%d jobs, %d keys", len(l.Jobs), len(acked))
	}
	var outs []job.Outcome
	for i, j := range l.Jobs {
		if !j.State.Final() {
			t.Fatalf("job %d still %s", j.ID, j.State)
		}
		o := job.Outcome{Job: job.Job{Request: job.Request{ID: i, SWFID: j.ID, Submit: j.Submit, Procs: j.Procs, Estimate: j.Estimate}}, Start: -1, End: -1, Bound: -1}
		if j.GuaranteedStart != nil {
			o.Bound = *j.GuaranteedStart
		}
		if j.Start == nil { // cancelled while waiting
			continue
		}
		o.Start, o.End = *j.Start, *j.End
		o.Runtime = o.End - o.Start
		o.Killed = j.State == Timeout
		if o.Bound >= 0 && o.Start > o.Bound {
			t.Fatalf("job %d started at %d after its guarantee %d", j.ID, o.Start, o.Bound)
		}
		outs = append(outs, o)
	}
	for i := range outs {
		outs[i].ID = i
	}
	rep := audit.Audit(outs, audit.Options{Procs: procs, Kill: true, Expect: len(outs)})
	if !rep.OK() {
		t.Fatalf("audit: %s", rep.String())
	}
	if len(outs) < 20 {
		t.Fatalf("only %d jobs ran; the test is too weak", len(outs))
	}
	_ = strings.TrimSpace
}

// disturb is the crash tests' first client's step after each submission v:
// move the manual clock by 1–7 s, end the oldest running job at every 5th
// id and cancel an earlier job of alice's at every 11th. False: the
// service is gone, the client stops.
func disturb(ctx context.Context, admin, alice *Client, v JobView) bool {
	h, err := admin.Health(ctx)
	if err != nil {
		return false
	}
	if _, err := admin.SetClock(ctx, h.Now+int64(1+v.ID%7), true); err != nil {
		return false
	}
	if v.ID%5 == 0 {
		l, err := admin.Jobs(ctx, "running", "")
		if err != nil || len(l.Jobs) == 0 {
			return true
		}
		if _, err := admin.End(ctx, l.Jobs[0].ID, nil); err != nil {
			return false
		}
	}
	if v.ID%11 == 0 {
		if _, err := alice.Cancel(ctx, v.ID-3); err != nil {
			return false
		}
	}
	return true
}
