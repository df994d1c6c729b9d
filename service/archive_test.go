package service

import (
	"context"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestFinishedJobsLeaveMemory: a job that finishes (completed, timeout,
// cancelled, rejected) leaves the engine's memory and stays visible
// through the archive: GET /v1/jobs/{id}, the list by state and user with
// limits, an idempotent retry (200, the same job), cancelling it again
// (no change), and after a restart; and a log from before the archive is
// archived at its first start.
func TestFinishedJobsLeaveMemory(t *testing.T) {
	env := newEnv(t, "conservative", 4)
	// no snapshots: the last part plays a log written before the archive
	// (and before snapshots), replayed whole
	env.cfg.SnapshotEvery = -1
	env.restart()
	ctx := context.Background()
	alice, bob := env.user("alice"), env.user("bob")
	a1 := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(4), Estimate: i64(10), IdempotencyKey: "a1"}))
	a2 := must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(2), Estimate: i64(10), IdempotencyKey: "a2"}))
	b1 := must[JobView](t)(bob.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(5)}))
	env.clockTo(0)                                     // a1 runs
	must[JobView](t)(alice.Cancel(ctx, a2.ID))         // cancelled while waiting
	must[JobView](t)(env.admin.End(ctx, a1.ID, ip(0))) // completed
	env.clockTo(20)                                    // b1 ran 10..15: timeout
	env.svc.mu.Lock()
	for _, id := range []int64{a1.ID, a2.ID, b1.ID} {
		if env.svc.eng.jobs.Get(int(id-1)) != nil {
			t.Errorf("finished job %d still in memory", id)
		}
	}
	env.svc.mu.Unlock()
	check := func(when string) {
		t.Helper()
		for id, want := range map[int64]State{a1.ID: Completed, a2.ID: Cancelled, b1.ID: Timeout} {
			v := must[JobView](t)(env.admin.Job(ctx, id))
			if v.State != want {
				t.Fatalf("%s: job %d is %s, want %s", when, id, v.State, want)
			}
		}
		if _, err := bob.Job(ctx, a1.ID); statusOf(err) != 404 {
			t.Fatalf("%s: bob sees alice's archived job: %v", when, err)
		}
		l := must[JobList](t)(alice.Jobs(ctx, "", ""))
		if len(l.Jobs) != 2 || l.Jobs[0].ID != a1.ID || l.Jobs[1].ID != a2.ID {
			t.Fatalf("%s: alice's list %+v", when, l.Jobs)
		}
		l = must[JobList](t)(env.admin.Jobs(ctx, "timeout,cancelled", ""))
		if len(l.Jobs) != 2 || l.Jobs[0].ID != a2.ID || l.Jobs[1].ID != b1.ID {
			t.Fatalf("%s: list by state %+v", when, l.Jobs)
		}
		var lim JobList
		if err := env.admin.Do(ctx, "GET", "/v1/jobs?limit=1", nil, &lim); err != nil || len(lim.Jobs) != 1 || lim.Jobs[0].ID != b1.ID {
			t.Fatalf("%s: limit 1: %+v %v", when, lim.Jobs, err)
		}
		// an idempotent retry returns the archived job
		v, err := alice.Submit(ctx, SubmitRequest{Procs: ip(4), Estimate: i64(10), IdempotencyKey: "a1"})
		if err != nil || v.ID != a1.ID || v.State != Completed {
			t.Fatalf("%s: retry of a finished job: %+v %v", when, v, err)
		}
		if _, err := alice.Submit(ctx, SubmitRequest{Procs: ip(3), Estimate: i64(10), IdempotencyKey: "a1"}); statusOf(err) != 409 {
			t.Fatalf("%s: key of a finished job reused with other parameters: %v", when, err)
		}
		if v := must[JobView](t)(alice.Cancel(ctx, a1.ID)); v.State != Completed {
			t.Fatalf("%s: cancelling a finished job changed it: %+v", when, v)
		}
	}
	check("live")
	env.restart()
	alice, bob = NewClient(env.srv.URL, alice.Token), NewClient(env.srv.URL, bob.Token)
	check("after a restart")

	// a log written before the archive: its finished jobs are archived at
	// the first start
	env.stop()
	tamper(t, env.dir, func(tx *bolt.Tx) error {
		for _, b := range []string{"archive", "archive_state", "archive_user", "archive_key"} {
			if err := tx.DeleteBucket([]byte(b)); err != nil {
				return err
			}
			if _, err := tx.CreateBucket([]byte(b)); err != nil {
				return err
			}
		}
		if err := tx.Bucket([]byte("meta")).Delete([]byte("archive")); err != nil {
			return err
		}
		return fixDigests(tx)
	})
	env.start(env.clock.Now())
	alice, bob = NewClient(env.srv.URL, alice.Token), NewClient(env.srv.URL, bob.Token)
	check("after archiving an old log")
}
