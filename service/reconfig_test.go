package service

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// reconfigScenario: conservative on 10 processors at 0: A (6 procs, 100 s)
// runs; B (8, 50) is guaranteed 100, C (4, 200) 150 (B holds 8 of 10 in
// [100, 150)), D (10, 10) 350 (after C).
func reconfigScenario(t *testing.T, env *testEnv) {
	t.Helper()
	ctx := context.Background()
	alice := env.user("alice")
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(6), Estimate: i64(100)}))
	env.clockTo(0)
	for _, c := range []struct {
		procs int
		est   int64
		g     int64
	}{{8, 50, 100}, {4, 200, 150}, {10, 10, 350}} {
		v := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(c.procs), Estimate: i64(c.est)}))
		if *v.GuaranteedStart != c.g {
			t.Fatalf("job %d guaranteed %d, want %d", v.ID, *v.GuaranteedStart, c.g)
		}
	}
}

func reconfigure(t *testing.T, env *testEnv, body string) (*ReconfigReport, int, ErrorBody) {
	t.Helper()
	code, e := rawRequest(t, env, "POST", "/v1/reconfigure", "admin-secret", body)
	if code != 200 {
		return nil, code, e
	}
	var rep ReconfigReport
	if err := env.admin.Do(context.Background(), "GET", "/v1/health", nil, nil); err != nil {
		t.Fatal(err)
	}
	// the report is the last reconfigure record of the log
	env.svc.flushCommits()
	env.svc.mu.Lock()
	err := env.svc.st.Load(func(r Record) error {
		if r.Kind == KindReconfig {
			rep = ReconfigReport{}
			return json.Unmarshal(r.Data, &rep)
		}
		return nil
	})
	env.svc.mu.Unlock()
	if err != nil {
		t.Fatal(err)
	}
	return &rep, code, e
}

// TestReconfigure changes a live service's machine and policy, worked by
// hand from reconfigScenario, then checks that a restart — replaying the
// reconfiguration records, or from a snapshot — continues with the same
// decisions as a service never stopped.
func TestReconfigure(t *testing.T) {
	for _, snap := range []bool{false, true} {
		t.Run(fmt.Sprintf("snapshots=%v", snap), func(t *testing.T) {
			steps := func(env *testEnv, restart bool) string {
				reconfigScenario(t, env)
				env.clockTo(1)
				// more processors: a fresh conservative on 12 with A held
				// [0, 100): B at 100 (kept), C fits at 1 (≤ 150: kept),
				// D at 201 (≤ 350: kept)
				rep, code, e := reconfigure(t, env, `{"procs": 12}`)
				if code != 200 || rep.Kept != 3 || len(rep.Replanned) != 0 || len(rep.Cancelled) != 0 || rep.Running != 1 || rep.Procs != 12 || rep.OldProcs != 10 {
					t.Fatalf("grow to 12: %d %+v %+v", code, rep, e)
				}
				var s Schedule
				must[struct{}](t)(struct{}{}, env.admin.Do(context.Background(), "GET", "/v1/schedule", nil, &s))
				if len(s.Bars) != 4 || s.Procs != 12 || s.Bars[1].ID != 3 || s.Bars[1].Start != 1 || s.Bars[3].ID != 4 || s.Bars[3].Start != 201 {
					t.Fatalf("schedule on 12: %+v", s)
				}
				if restart {
					env.restart()
				}
				// fewer than the running jobs hold (A: 6): refused
				if _, code, e := reconfigure(t, env, `{"procs": 5}`); code != 409 || !strings.Contains(e.Error, "drain") {
					t.Fatalf("shrink below the running jobs: %d %+v", code, e)
				}
				// 8 processors: D (10) cannot run any more: cancelled; B at
				// 100 (kept), C at 150 (kept)
				rep, code, e = reconfigure(t, env, `{"procs": 8, "note": "nodes 9-12 down"}`)
				if code != 200 || rep.Kept != 2 || len(rep.Cancelled) != 1 || rep.Cancelled[0].ID != 4 || !strings.Contains(rep.Cancelled[0].Reason, "8") {
					t.Fatalf("shrink to 8: %d %+v %+v", code, rep, e)
				}
				if j := must[JobView](t)(env.admin.Job(context.Background(), 4)); j.State != Cancelled {
					t.Fatalf("job 4 after the shrink: %+v", j)
				}
				if restart {
					env.restart()
				}
				// EASY gives no guarantees: both withdrawn, re-planned
				rep, code, e = reconfigure(t, env, `{"policy": "easy"}`)
				if code != 200 || len(rep.Replanned) != 2 || rep.Replanned[0] != (Replanned{ID: 2, Old: 100, New: -1}) || rep.Replanned[1] != (Replanned{ID: 3, Old: 150, New: -1}) {
					t.Fatalf("to easy: %d %+v %+v", code, rep, e)
				}
				// back to conservative: new guarantees, none to keep
				if _, code, e = reconfigure(t, env, `{"policy": "conservative", "procs": 10}`); code != 200 {
					t.Fatalf("back to conservative: %d %+v", code, e)
				}
				if restart {
					env.restart()
				}
				runToEnd(t, env)
				l := must[JobList](t)(env.admin.Jobs(context.Background(), "", ""))
				b, _ := json.Marshal(l.Jobs)
				return string(b)
			}
			mk := func() *testEnv {
				env := newEnv(t, "conservative", 10)
				if !snap {
					env.cfg.SnapshotEvery = -1 // the restarts replay every record
					env.restart()
				}
				return env
			}
			straight := steps(mk(), false)
			restarted := steps(mk(), true)
			if straight != restarted {
				t.Fatalf("restarts changed the decisions:\n%s\n%s", straight, restarted)
			}
		})
	}
}

// TestReconfigureAtRestart: restarting with other --procs or --policy than
// the state's reconfigures the service by the same rule, once, recorded;
// a machine smaller than what runs is refused with the way out.
func TestReconfigureAtRestart(t *testing.T) {
	env := newEnv(t, "conservative", 10)
	reconfigScenario(t, env)
	ctx := context.Background()
	env.stop()
	env.cfg.Procs = 5 // A holds 6
	if _, err := Open(env.cfg); err == nil || !strings.Contains(err.Error(), "drain") || !strings.Contains(err.Error(), "--procs") {
		t.Fatalf("restart on fewer processors than run: %v", err)
	}
	env.cfg.Procs = 8
	env.start(env.clock.Now())
	if h := must[Health](t)(health(env)); h.Procs != 8 || h.Policy != "conservative" {
		t.Fatalf("after the restart on 8: %+v", h)
	}
	if j := must[JobView](t)(env.admin.Job(ctx, 4)); j.State != Cancelled || !strings.Contains(j.Reason, "reconfiguration") {
		t.Fatalf("job 4 (10 processors) after the restart on 8: %+v", j)
	}
	if j := must[JobView](t)(env.admin.Job(ctx, 3)); *j.GuaranteedStart != 150 {
		t.Fatalf("job 3 after the restart on 8: %+v", j)
	}
	// the same flags again: nothing more to change (the log after the
	// shutdown snapshot holds no new reconfiguration)
	n := countRecords(t, env, KindReconfig)
	env.restart()
	if m := countRecords(t, env, KindReconfig); n != 1 || m != 0 {
		t.Fatalf("reconfigure records: %d, then %d after a restart with the same flags", n, m)
	}
	// a submission larger than the new machine is refused
	if _, err := env.admin.Submit(ctx, SubmitRequest{Procs: ip(9), Estimate: i64(10)}); statusOf(err) != 400 {
		t.Fatalf("9 processors on 8: %v", err)
	}
	// a live change survives a restart with the same flags (a crash must
	// not undo a drain) …
	if _, code, e := reconfigure(t, env, `{"procs": 9}`); code != 200 {
		t.Fatalf("to 9: %d %+v", code, e)
	}
	env.restart()
	if h := must[Health](t)(health(env)); h.Procs != 9 {
		t.Fatalf("restart with the flags of the previous start (8) after a live change to 9: %+v", h)
	}
	// … and changed flags win
	env.stop()
	env.cfg.Procs = 12
	env.start(env.clock.Now())
	if h := must[Health](t)(health(env)); h.Procs != 12 {
		t.Fatalf("restart with --procs 12: %+v", h)
	}
}

func health(env *testEnv) (Health, error) {
	var h Health
	err := env.admin.Do(context.Background(), "GET", "/v1/health", nil, &h)
	return h, err
}

func countRecords(t *testing.T, env *testEnv, kind string) int {
	t.Helper()
	n := 0
	env.svc.flushCommits()
	env.svc.mu.Lock()
	defer env.svc.mu.Unlock()
	if err := env.svc.st.Load(func(r Record) error {
		if r.Kind == kind {
			n++
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReconfigureOtherPolicies: FCFS and slack-based backfilling take over
// running jobs too (policy.Adopter); FCFS gives no guarantee (all three
// re-planned to none, by hand), and a restart between the steps changes
// no decision.
func TestReconfigureOtherPolicies(t *testing.T) {
	steps := func(env *testEnv, restart bool) string {
		reconfigScenario(t, env)
		env.clockTo(1)
		rep, code, e := reconfigure(t, env, `{"policy": "fcfs"}`)
		want := []Replanned{{2, 100, -1}, {3, 150, -1}, {4, 350, -1}}
		if code != 200 || rep.Running != 1 || !slicesEqual(rep.Replanned, want) {
			t.Fatalf("to fcfs: %d %+v %+v", code, rep, e)
		}
		// B (8) does not fit beside A (6 of 10) and blocks C (4)
		if r := env.clockTo(2); len(r.Started) != 0 {
			t.Fatalf("fcfs started %+v", r.Started)
		}
		if restart {
			env.restart()
		}
		if _, code, e = reconfigure(t, env, `{"policy": "slack"}`); code != 200 {
			t.Fatalf("to slack: %d %+v", code, e)
		}
		if restart {
			env.restart()
		}
		runToEnd(t, env)
		l := must[JobList](t)(env.admin.Jobs(context.Background(), "", ""))
		for _, j := range l.Jobs {
			if j.State != Completed && j.State != Timeout {
				t.Fatalf("job %d ends %s", j.ID, j.State)
			}
		}
		b, _ := json.Marshal(l.Jobs)
		return string(b)
	}
	mk := func() *testEnv {
		env := newEnv(t, "conservative", 10)
		env.cfg.SnapshotEvery = -1
		env.restart()
		return env
	}
	// the restarts keep the flags (conservative on 10): the live changes
	// stand
	if a, b := steps(mk(), false), steps(mk(), true); a != b {
		t.Fatalf("restarts changed the decisions:\n%s\n%s", a, b)
	}
}

func slicesEqual[T comparable](a, b []T) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestReconfigureCrash: the state directory copied while the service runs
// (as a kill -9 leaves it: no shutdown snapshot, no checkpoint) right after
// a reconfiguration opens with that reconfiguration applied — the same
// policy, machine and jobs as the live service.
func TestReconfigureCrash(t *testing.T) {
	env := newEnv(t, "conservative", 10)
	reconfigScenario(t, env)
	env.clockTo(1)
	ctx := context.Background()
	jobsOf := func(c *Client) string {
		l := must[JobList](t)(c.Jobs(ctx, "", ""))
		for i := range l.Jobs {
			l.Jobs[i].ReservedStart = nil // re-planned at the next pass (view.go)
		}
		b, _ := json.Marshal(l.Jobs)
		return string(b)
	}
	for _, body := range []string{`{"procs": 8}`, `{"policy": "easy"}`, `{"policy": "slack", "procs": 12}`} {
		rep, code, e := reconfigure(t, env, body)
		if code != 200 {
			t.Fatalf("%s: %d %+v", body, code, e)
		}
		dir := t.TempDir()
		for _, f := range []string{"state.db", "state.mark"} {
			b, err := os.ReadFile(filepath.Join(env.dir, f))
			if err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, f), b, 0o600); err != nil {
				t.Fatal(err)
			}
		}
		cfg := env.cfg
		cfg.StateDir, cfg.Clock = dir, NewManualClock(0)
		svc, err := Open(cfg)
		if err != nil {
			t.Fatalf("after %s, the crashed copy: %v", body, err)
		}
		srv := httptest.NewServer(svc.Handler())
		c := NewClient(srv.URL, "admin-secret")
		var h Health
		if err := c.Do(ctx, "GET", "/v1/health", nil, &h); err != nil || h.Policy != rep.Policy || h.Procs != rep.Procs {
			t.Fatalf("after %s, the crashed copy runs %s on %d (%v)", body, h.Policy, h.Procs, err)
		}
		if a, b := jobsOf(env.admin), jobsOf(c); a != b {
			t.Fatalf("after %s, the crashed copy's jobs differ:\n%s\n%s", body, a, b)
		}
		srv.Close()
		svc.Close()
	}
}

// TestReconfigureToDeadlinePolicy: QoPS takes over running jobs too
// (policy.Adopter). From reconfigScenario at 1 (A runs on 6 of 10 until
// 100), by hand: B, C, D have no deadline, so each gets the artificial
// one 0 + max(24 h, 5 · estimate) = 86,400 and the guarantee 86,400 −
// estimate (all three re-planned). Inserted again in id order: B (8)
// fits at 100; C (4), at point 0, goes first, at 1 beside A, and B after
// it at 201; D (10), at point 0 of (C, B), goes first, at 100 after A,
// then B and C in EDF order (equal deadlines: by id), B at 110 and C at
// 160. The jobs run to their estimates.
// A restart after the switch (from a snapshot, or replaying the log)
// changes no decision.
func TestReconfigureToDeadlinePolicy(t *testing.T) {
	steps := func(env *testEnv, restart bool) string {
		reconfigScenario(t, env)
		env.clockTo(1)
		rep, code, e := reconfigure(t, env, `{"policy": "qops"}`)
		want := []Replanned{{2, 100, 86350}, {3, 150, 86200}, {4, 350, 86390}}
		if code != 200 || rep.Running != 1 || len(rep.Cancelled) != 0 || !slicesEqual(rep.Replanned, want) {
			t.Fatalf("to qops: %d %+v %+v", code, rep, e)
		}
		if restart {
			env.restart()
			if _, ok, _ := env.svc.st.LatestSnapshot(); ok != (env.cfg.SnapshotEvery > 0) {
				t.Fatalf("snapshot every %d: restarted from a snapshot: %v", env.cfg.SnapshotEvery, ok)
			}
		}
		plan := ""
		env.svc.mu.Lock()
		env.svc.eng.Reservations(func(j *Job, start int64) { plan += fmt.Sprintf(" %d@%d", j.ID(), start) })
		env.svc.mu.Unlock()
		if plan != " 4@100 2@110 3@160" {
			t.Fatalf("qops plan%s, want 4@100 2@110 3@160", plan)
		}
		runToEnd(t, env)
		l := must[JobList](t)(env.admin.Jobs(context.Background(), "", ""))
		starts := map[int64]int64{}
		for _, j := range l.Jobs {
			if j.State != Completed && j.State != Timeout {
				t.Fatalf("job %d ends %s", j.ID, j.State)
			}
			starts[j.ID] = *j.Start
		}
		if starts[4] != 100 || starts[2] != 110 || starts[3] != 160 {
			t.Fatalf("starts %v, want D at 100, B at 110, C at 160", starts)
		}
		b, _ := json.Marshal(l.Jobs)
		return string(b)
	}
	mk := func(every int) *testEnv {
		env := newEnv(t, "conservative", 10)
		env.cfg.SnapshotEvery = every
		env.restart()
		return env
	}
	a := steps(mk(-1), false)
	for _, every := range []int{-1, 3} {
		if b := steps(mk(every), true); a != b {
			t.Fatalf("restarts (snapshot every %d) changed the decisions:\n%s\n%s", every, a, b)
		}
	}
}

// TestReconfigureToSlurm: the slurm policy takes over running jobs too
// (policy.Adopter), with a multifactor configuration that keeps state
// (fair share recalculated every minute). From reconfigScenario at 1, by
// hand: the slurm policy gives no guarantee (B, C, D re-planned to none);
// A (6 of 10) runs until 100, when the main scheduler, seeing the end,
// starts B (8: the first in priority order — equal priorities, by id —
// and it fits); C (4) does not fit beside B until it ends. A restart
// after the switch and in the middle of the run (from a snapshot each
// time) changes no decision.
func TestReconfigureToSlurm(t *testing.T) {
	conf := filepath.Join(t.TempDir(), "slurm.conf")
	if err := os.WriteFile(conf, []byte("PriorityWeightFairshare=10000\nPriorityWeightAge=1000\nPriorityCalcPeriod=1\nPriorityDecayHalfLife=20\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	spec := "slurm:slurmconf=" + conf
	steps := func(env *testEnv, restart bool) string {
		reconfigScenario(t, env)
		env.clockTo(1)
		// the answer (the log is compacted behind every record here)
		var rep ReconfigReport
		err := env.admin.Do(context.Background(), "POST", "/v1/reconfigure", ReconfigRequest{Policy: &spec}, &rep)
		want := []Replanned{{2, 100, -1}, {3, 150, -1}, {4, 350, -1}}
		if err != nil || rep.Running != 1 || !slicesEqual(rep.Replanned, want) {
			t.Fatalf("to slurm: %v %+v", err, rep)
		}
		if restart {
			env.restart()
		}
		for _, now := range []int64{30, 60, 99} {
			if r := env.clockTo(now); len(r.Started) != 0 {
				t.Fatalf("slurm started %+v at %d", r.Started, now)
			}
		}
		if r := env.clockTo(100); len(r.Started) != 1 || r.Started[0].ID != 2 {
			t.Fatalf("at 100, slurm started %+v, want job 2", r.Started)
		}
		if restart {
			env.restart()
			if _, ok, _ := env.svc.st.LatestSnapshot(); !ok {
				t.Fatal("the restart did not begin from a snapshot")
			}
		}
		runToEnd(t, env)
		l := must[JobList](t)(env.admin.Jobs(context.Background(), "", ""))
		for _, j := range l.Jobs {
			if j.State != Completed && j.State != Timeout {
				t.Fatalf("job %d ends %s", j.ID, j.State)
			}
		}
		b, _ := json.Marshal(l.Jobs)
		return string(b)
	}
	mk := func() *testEnv {
		// created with the slurm policy and its file (a live
		// reconfiguration may name only the files of the service's own
		// configuration), switched to conservative before any job
		env := newEnv(t, spec, 10)
		env.cfg.SnapshotEvery = 1
		env.restart()
		cons := "conservative"
		if err := env.admin.Do(context.Background(), "POST", "/v1/reconfigure", ReconfigRequest{Policy: &cons}, nil); err != nil {
			t.Fatal(err)
		}
		return env
	}
	if a, b := steps(mk(), false), steps(mk(), true); a != b {
		t.Fatalf("restarts changed the decisions:\n%s\n%s", a, b)
	}
}
