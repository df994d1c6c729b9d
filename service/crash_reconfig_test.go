package service

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"sync"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/service/store"
)

// TestCrashKill9Reconfigure: SIGKILLs at random moments while clients
// submit (idempotency keys, retried after each restart), the clock moves,
// jobs end and are cancelled, and the admin reconfigures the live service
// — policy among conservative, slack, EASY, FCFS and slurm, machine
// between 16 and 32 processors (growing and shrinking; a shrink below the
// running jobs is refused with 409). After every restart, every 2xx answer
// is checked:
//   - no acknowledged submission is lost or duplicated, and it keeps its
//     id and submit time;
//   - a guarantee the client was given (by the submission's answer, or
//     seen later) stands, unless an acknowledged reconfiguration reported
//     the job re-planned (then it is the reported new one) or cancelled —
//     the documented rule (reconfig.go); a job without a guarantee may get
//     a first one from a new policy;
//   - an acknowledged reconfiguration is in force (health shows its policy
//     and size unless a later one changed them).
//
// A reconfiguration whose answer was lost in a kill may or may not have
// been committed: health after the restart tells (each changes the size),
// and then the jobs' guarantees are taken as they are (the client never
// saw that report). At the end the schedule runs to completion and is
// audited (every job started by its final guarantee; capacity never
// exceeded at the largest size, 32).
func TestCrashKill9Reconfigure(t *testing.T) {
	rounds := 30
	if longtest.Short() {
		rounds = 3
	}
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(18, 9))
	ctx := context.Background()
	var userTok string
	acked := map[string]JobView{} // key → the submission's answer
	expect := map[int64]*int64{}  // job id → the guarantee it must keep
	var sent []string
	next, retried := 0, 0
	// the configuration in force as the client knows it; pending is a
	// reconfiguration whose answer was lost
	policies := []string{"conservative", "slack", "easy", "fcfs", "slurm"}
	type config struct {
		policy string
		procs  int
	}
	cur := config{"conservative", 16}
	var pending *config
	reconfigs, uncertain, refused, replanned := 0, 0, 0, 0
	for round := 0; round <= rounds; round++ {
		srv := startHelper(t, dir, "conservative")
		admin := NewClient(srv.base, "admin-secret")
		fail := func(format string, a ...any) {
			t.Helper()
			srv.kill9()
			t.Fatalf("round %d: "+format, append([]any{round}, a...)...)
		}
		if round == 0 {
			u, err := admin.CreateUser(ctx, UserRequest{Name: "alice"})
			if err != nil {
				fail("%v", err)
			}
			userTok = u.Token
		}
		alice := NewClient(srv.base, userTok)
		h, err := admin.Health(ctx)
		if err != nil {
			fail("%v", err)
		}
		rebase := false
		if pending != nil {
			if h.Procs == pending.procs {
				cur, rebase = *pending, true // committed before the kill
				uncertain++
			}
			pending = nil
		}
		if h.Procs != cur.procs {
			fail("the service runs on %d processors, the acknowledged configuration is %d", h.Procs, cur.procs)
		}
		check := func(rebase bool) {
			l, err := admin.Jobs(ctx, "", "")
			if err != nil {
				fail("%v", err)
			}
			byKey := map[string]JobView{}
			for _, j := range l.Jobs {
				if _, dup := byKey[j.IdempotencyKey]; dup {
					fail("key %s submitted twice", j.IdempotencyKey)
				}
				byKey[j.IdempotencyKey] = j
			}
			for k, a := range acked {
				b, ok := byKey[k]
				if !ok {
					fail("acknowledged job %d (key %s) lost", a.ID, k)
				}
				if a.ID != b.ID || a.Submit != b.Submit {
					fail("job %s changed after restart:\n%+v\n%+v", k, a, b)
				}
				want, known := expect[a.ID]
				switch {
				case !known || want == nil || rebase:
					// no promise yet (or a reconfiguration the client never
					// saw the report of): what the service says now stands
					expect[a.ID] = b.GuaranteedStart
				case !eq(want, b.GuaranteedStart) && b.State != Cancelled:
					fail("job %d's guarantee %v became %v, and no reconfiguration reported it", a.ID, fmtp(want), fmtp(b.GuaranteedStart))
				}
			}
			if len(byKey) > len(sent) {
				fail("%d jobs, only %d keys sent", len(byKey), len(sent))
			}
		}
		check(rebase)
		for _, k := range sent {
			if _, ok := acked[k]; !ok {
				retried++
				v, err := alice.Submit(ctx, crashJob(k))
				if err != nil {
					fail("retrying %s: %v", k, err)
				}
				acked[k] = v
				if _, known := expect[v.ID]; !known {
					expect[v.ID] = v.GuaranteedStart
				}
			}
		}
		if round == rounds {
			check(false)
			t.Logf("%d rounds, %d keys sent, %d retried; %d reconfigurations acknowledged (%d jobs re-planned), %d refused, %d committed without an answer",
				rounds, len(sent), retried, reconfigs, replanned, refused, uncertain)
			if reconfigs == 0 {
				fail("no reconfiguration was acknowledged: the test is too weak")
			}
			runToEndClient(t, admin)
			finalCheckProcs(t, admin, acked, 32)
			srv.kill9()
			st, in, err := store.OpenReadOnly(dir)
			if err != nil {
				t.Fatal(err)
			}
			if st != nil {
				st.Close()
			}
			if in.Snapshots == 0 {
				t.Fatalf("no snapshot in the state directory")
			}
			return
		}
		// the stream, killed at a random moment
		var mu sync.Mutex
		var wg sync.WaitGroup
		stop := make(chan struct{})
		stopped := func() bool {
			select {
			case <-stop:
				return true
			default:
				return false
			}
		}
		for c := 0; c < 3; c++ {
			wg.Add(1)
			go func(c int) {
				defer wg.Done()
				for !stopped() {
					mu.Lock()
					k := fmt.Sprintf("k%05d", next)
					next++
					sent = append(sent, k)
					mu.Unlock()
					v, err := alice.Submit(ctx, crashJob(k))
					if err != nil {
						return // killed
					}
					mu.Lock()
					acked[k] = v
					if _, known := expect[v.ID]; !known {
						expect[v.ID] = v.GuaranteedStart
					}
					mu.Unlock()
					if c != 0 {
						continue
					}
					if !disturb(ctx, admin, alice, v) {
						return
					}
				}
			}(c)
		}
		// the admin: reconfigurations, one after another
		rr := rand.New(rand.NewPCG(uint64(round), 18))
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stopped() {
				time.Sleep(time.Duration(5+rr.IntN(30)) * time.Millisecond)
				// mostly a size the running jobs fit (drained); now and then
				// any, which a shrink below them makes a 409
				low := 16
				if rr.IntN(4) > 0 {
					h, err := admin.Health(ctx)
					if err != nil {
						return
					}
					low = max(low, h.Busy)
				}
				mu.Lock()
				var sizes []int
				for p := 16; p <= 32; p += 4 {
					if p != cur.procs && p >= low {
						sizes = append(sizes, p)
					}
				}
				if len(sizes) == 0 {
					mu.Unlock()
					continue
				}
				to := config{policies[rr.IntN(len(policies))], sizes[rr.IntN(len(sizes))]}
				pending = &to
				mu.Unlock()
				var rep ReconfigReport
				err := admin.Do(ctx, "POST", "/v1/reconfigure", ReconfigRequest{Policy: &to.policy, Procs: &to.procs, Note: "crash test"}, &rep)
				var ae *APIError
				mu.Lock()
				switch {
				case errors.As(err, &ae) && ae.Status == 409:
					pending = nil // refused: a shrink below the running jobs
					refused++
				case err != nil:
					mu.Unlock()
					return // killed: pending stays uncertain
				default:
					pending, cur = nil, to
					reconfigs++
					if rep.Procs != to.procs || len(rep.Cancelled) != 0 {
						mu.Unlock()
						t.Errorf("reconfiguration to %+v answered %+v", to, rep)
						return
					}
					for _, x := range rep.Replanned {
						g := x.New
						if x.New < 0 {
							expect[x.ID] = nil
						} else {
							expect[x.ID] = &g
						}
						replanned++
					}
				}
				mu.Unlock()
			}
		}()
		time.Sleep(time.Duration(40+r.IntN(200)) * time.Millisecond)
		srv.kill9()
		close(stop)
		wg.Wait()
	}
}

func fmtp(p *int64) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}
