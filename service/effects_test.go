package service

import (
	"context"
	"strings"
	"sync"
	"testing"

	"github.com/backfill-hpc/backfill/service/executor"
)

// gateExec is an executor whose calls block until the test opens the
// gate, and which records the order of its calls.
type gateExec struct {
	mu    sync.Mutex
	gate  chan struct{}
	calls []string
}

func (g *gateExec) call(what string) {
	<-g.gate
	g.mu.Lock()
	g.calls = append(g.calls, what)
	g.mu.Unlock()
}
func (g *gateExec) Name() string                        { return "gate" }
func (g *gateExec) Submit(executor.Job) (string, error) { g.call("submit"); return "", nil }
func (g *gateExec) Start(executor.Job) (string, error)  { g.call("start"); return "", nil }
func (g *gateExec) Kill(executor.Job) error             { g.call("kill"); return nil }
func (g *gateExec) Cancel(executor.Job) error           { g.call("cancel"); return nil }
func (g *gateExec) Close() error                        { return nil }
func (g *gateExec) Reconcile(running, _ []executor.Job) (map[int64]executor.Status, error) {
	g.call("reconcile")
	out := map[int64]executor.Status{}
	for _, j := range running {
		out[j.ID] = executor.Status{Running: true}
	}
	return out, nil
}

// TestSlowExecutorDoesNotStallTheAPI: with an executor that does not
// answer, submissions are still answered (the executor's actions wait in
// their own queue, outside the engine lock and the commit path); beyond
// MaxExecBacklog waiting actions a submission gets 503 with Retry-After;
// a restart opens and serves while the executor has not yet reconciled,
// and the executor is reconciled before it gets any other call.
func TestSlowExecutorDoesNotStallTheAPI(t *testing.T) {
	g := &gateExec{gate: make(chan struct{})}
	env := &testEnv{t: t, dir: t.TempDir()}
	env.cfg = Config{Policy: "conservative", Procs: 4, StateDir: env.dir, Sync: "normal", AdminToken: "admin-secret", MaxExecBacklog: 6,
		NewExecutor: func(executor.Events, executor.Options) (executor.Executor, error) { return g, nil }}
	env.start(0)
	ctx := context.Background()
	alice := env.user("alice")
	var ids []int64
	open1 := sync.OnceFunc(func() { close(g.gate) })
	t.Cleanup(open1)
	for i := 0; i < 12; i++ {
		v, err := alice.Submit(ctx, SubmitRequest{Procs: ip(4), Estimate: i64(10)})
		if err != nil {
			if statusOf(err) == 503 && strings.Contains(err.Error(), "executor") && len(ids) >= 6 {
				break
			}
			t.Fatalf("submission %d with the executor blocked: %v", i, err)
		}
		ids = append(ids, v.ID)
	}
	// one action is being carried out, at most 6 wait
	if len(ids) < 6 || len(ids) > 8 {
		t.Fatalf("%d submissions answered with a blocked executor and a backlog limit of 6", len(ids))
	}
	env.clockTo(1) // a pass: its start effect queues too
	must[JobList](t)(alice.Jobs(ctx, "", ""))
	open1() // let the first service drain (Close waits for it)

	// restart with a new executor that blocks: Open must not wait for its
	// reconciliation, and it must get no other call before
	g2 := &gateExec{gate: make(chan struct{})}
	open2 := sync.OnceFunc(func() { close(g2.gate) })
	t.Cleanup(open2)
	env.cfg.NewExecutor = func(executor.Events, executor.Options) (executor.Executor, error) { return g2, nil }
	env.restart()
	alice = NewClient(env.srv.URL, alice.Token)
	must[JobList](t)(alice.Jobs(ctx, "", ""))
	must[JobView](t)(alice.Submit(ctx, SubmitRequest{Procs: ip(1), Estimate: i64(10)}))
	env.clockTo(30) // kills and starts queue behind the reconciliation
	open2()
	env.stop()
	g2.mu.Lock()
	defer g2.mu.Unlock()
	if len(g2.calls) < 2 || g2.calls[0] != "reconcile" {
		t.Fatalf("after the restart the executor got %v; want reconcile first", g2.calls)
	}
}
