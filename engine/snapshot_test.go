package engine_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/backfill-hpc/backfill/engine"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
)

// pair drives a never-stopped engine (a) and one restored from snapshots
// (b) with the same events, and fails at the first difference: a start,
// a wake-up, a guarantee, or the full reservation list after a pass.
type pair struct {
	t    *testing.T
	spec string
	a, b *engine.Engine
	reqs []*job.Request
}

func newEngine(t *testing.T, spec string, procs int) *engine.Engine {
	t.Helper()
	s, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	e, err := engine.New(s, engine.Config{Procs: procs, Guarantees: true})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

// restart replaces b by a fresh engine restored from b's snapshot, sent
// through its JSON encoding (as the service stores it).
func (p *pair) restart(procs int) {
	p.t.Helper()
	st, err := p.b.Snapshot()
	if err != nil {
		p.t.Fatalf("%s: snapshot: %v", p.spec, err)
	}
	data, err := json.Marshal(st)
	if err != nil {
		p.t.Fatal(err)
	}
	var back engine.State
	if err := json.Unmarshal(data, &back); err != nil {
		p.t.Fatal(err)
	}
	b := newEngine(p.t, p.spec, procs)
	if err := b.Restore(back, func(id int) *job.Request { return p.reqs[id] }); err != nil {
		p.t.Fatalf("%s: restore: %v", p.spec, err)
	}
	p.b = b
}

func plan(e *engine.Engine, now int64) string {
	pl := e.Planner()
	if pl == nil {
		return ""
	}
	s := ""
	pl.Reservations(now, func(j *job.Request, start int64) { s += fmt.Sprintf("%d@%d ", j.ID, start) })
	return s
}

// TestSnapshotRestoreSameDecisions: for conservative (every waiting job's
// reservation and guarantee) and EASY (depth 1 and 3, orders fcfs, sjbf
// and sjf), an engine restored from a snapshot at random instants — after a
// pass, with releases of the instant pending (after ends, before the
// pass), and with submissions of the instant already inserted — makes
// exactly the decisions of the engine never stopped, on random workloads
// with early ends, kills at the estimate, runtime-0 jobs and
// cancellations; the reservation lists are compared in full after every
// pass.
func TestSnapshotRestoreSameDecisions(t *testing.T) {
	specs := []string{"conservative", "easy", "easy:depth=3", "easy:order=sjbf", "easy:order=sjf", "fcfs", "slack", "slack:sf=0.5:h=ast", "lookahead", "lookahead:reserve=false:order=sjf:depth=all:cs=3", "conservative:order=sjf", "slack:order=sjf", "multiqueue", "multiqueue:order=sjf:bounds=50/150", "qops", "qops:h=llf:new=sorted:k=1", "msb", "msb:h=edf", "mrt", "mrt:h=llf:nd=reject", "fcfs:order=sjf"}
	for _, spec := range specs {
		for seed := uint64(1); seed <= 8; seed++ {
			t.Run(fmt.Sprintf("%s/%d", spec, seed), func(t *testing.T) { snapshotRun(t, spec, seed) })
		}
	}
}

// TestSnapshotRestoreStatefulOrders: the same for the policies whose
// state follows from the whole history — the slurm policy (timers of the
// main scheduler and the backfill agent, the waiting list's order) and
// multifactor priority as the slurm policy's and as a queue order's
// (fair-share usage decayed at every calculation, the calculation clock,
// Fair Tree ranks or classic effective usage, priorities kept between
// calculations), with a slurm.conf where fair share weighs most and
// priorities are recalculated every minute.
func TestSnapshotRestoreStatefulOrders(t *testing.T) {
	dir := t.TempDir()
	conf := func(name, extra string) string {
		p := filepath.Join(dir, name)
		text := "PriorityWeightFairshare=10000\nPriorityWeightAge=1000\nPriorityWeightJobSize=100\nPriorityMaxAge=0-1\n" +
			"PriorityDecayHalfLife=10\nPriorityCalcPeriod=1\nSchedulerParameters=bf_interval=20,sched_interval=45\n" + extra
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tree := conf("tree.conf", "")
	classic := conf("classic.conf", "PriorityFlags=NO_FAIR_TREE\nAccountingStorageEnforce=limits\n")
	specs := []string{"slurm:slurmconf=" + tree, "slurm:slurmconf=" + classic, "slurm:order=sjf:bf_interval=20",
		"easy:order=multifactor:slurmconf=" + classic, "easy:depth=3:order=multifactor:slurmconf=" + tree,
		"lookahead:order=multifactor:slurmconf=" + tree, "multiqueue:order=multifactor:slurmconf=" + classic,
		"conservative:order=multifactor:slurmconf=" + tree, "slack:order=multifactor:slurmconf=" + classic,
		"fcfs:order=multifactor:slurmconf=" + tree}
	for _, spec := range specs {
		for seed := uint64(1); seed <= 4; seed++ {
			t.Run(fmt.Sprintf("%s/%d", strings.ReplaceAll(spec, dir+"/", ""), seed), func(t *testing.T) { snapshotRun(t, spec, seed) })
		}
	}
}

func snapshotRun(t *testing.T, spec string, seed uint64) {
	rng := rand.New(rand.NewPCG(seed, 7))
	const procs = 32
	n := 300
	type jb struct {
		submit, runtime int64
		cancel          int64 // cancel at this instant if still waiting (0: never)
	}
	jobs := make([]jb, n)
	var tt int64
	for i := range jobs {
		tt += rng.Int64N(40)
		est := 1 + rng.Int64N(300)
		rt := rng.Int64N(est + 1) // kill at the estimate: runtime ≤ estimate
		if rng.IntN(10) == 0 {
			rt = 0
		}
		jobs[i] = jb{submit: tt, runtime: rt}
		if rng.IntN(8) == 0 {
			jobs[i].cancel = tt + 1 + rng.Int64N(200)
		}
	}
	reqs := make([]*job.Request, n)
	rng2 := rand.New(rand.NewPCG(seed, 9))
	for i := range reqs {
		size := 1 + rng2.IntN(procs)
		if rng2.IntN(2) == 0 {
			size = 1 + rng2.IntN(4)
		}
		reqs[i] = &job.Request{ID: i, SWFID: int64(i + 1), Submit: jobs[i].submit, Procs: size, Estimate: 1 + rng2.Int64N(300), User: int32(rng2.IntN(5))}
		jobs[i].runtime = min(jobs[i].runtime, reqs[i].Estimate)
	}
	if k := strings.SplitN(spec, ":", 2)[0]; k == "qops" || k == "msb" || k == "mrt" {
		// deadline policies: most jobs with a deadline, tight enough that
		// some are rejected (their own generator: the workload of the
		// other policies is unchanged)
		rng3 := rand.New(rand.NewPCG(seed, 11))
		for _, r := range reqs {
			switch rng3.IntN(24) {
			case 0:
				// a long whole-machine job without a deadline (it ends
				// early): the backlog passes a day, so later jobs without a
				// deadline are admitted with extended deadlines, which the
				// snapshot must keep
				r.Procs, r.Estimate = procs, 20000+rng3.Int64N(60000)
			case 1, 2, 3, 4, 5:
			default:
				r.Deadline = r.Submit + r.Estimate + rng3.Int64N(900)
			}
		}
	}
	p := &pair{t: t, spec: spec, a: newEngine(t, spec, procs), reqs: reqs}
	p.b = newEngine(t, spec, procs)
	state := make([]uint8, n) // 0 not yet, 1 waiting, 2 running, 3 done
	end := map[int64][]int{}
	next := 0
	t0 := jobs[0].submit
	maybeRestart := func() {
		if rng.IntN(6) == 0 {
			p.restart(procs)
		}
	}
	for now := t0; ; {
		maybeRestart()
		// ends and cancellations of now, in job order
		ids := append([]int(nil), end[now]...)
		slices.Sort(ids)
		for _, id := range ids {
			if _, err := p.a.End(now, reqs[id]); err != nil {
				t.Fatal(err)
			}
			if _, err := p.b.End(now, reqs[id]); err != nil {
				t.Fatal(err)
			}
			state[id] = 3
		}
		delete(end, now)
		for id := range next {
			if state[id] == 1 && jobs[id].cancel == now {
				if err := p.a.Cancel(now, reqs[id]); err != nil {
					t.Fatal(err)
				}
				if err := p.b.Cancel(now, reqs[id]); err != nil {
					t.Fatal(err)
				}
				state[id] = 3
			}
		}
		maybeRestart() // releases pending
		for next < n && jobs[next].submit == now {
			aa, err := p.a.Submit(now, reqs[next])
			if err != nil {
				t.Fatal(err)
			}
			ab, err := p.b.Submit(now, reqs[next])
			if err != nil {
				t.Fatal(err)
			}
			if aa != ab {
				t.Fatalf("%s at %d: job %d admitted %+v, restored %+v", spec, now, next, aa, ab)
			}
			state[next] = 1
			if !aa.Admitted {
				state[next] = 3 // rejected by admission control
			}
			next++
			maybeRestart() // submissions of the instant inserted
		}
		for {
			var sa, sb []int
			wa, err := p.a.Pass(now, func(r *job.Request) { sa = append(sa, r.ID) })
			if err != nil {
				t.Fatal(err)
			}
			wb, err := p.b.Pass(now, func(r *job.Request) { sb = append(sb, r.ID) })
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(sa, sb) || wa != wb {
				t.Fatalf("%s at %d: never stopped starts %v wake %d; restored starts %v wake %d", spec, now, sa, wa, sb, wb)
			}
			if pa, pb := plan(p.a, now), plan(p.b, now); pa != pb {
				t.Fatalf("%s at %d: reservations differ:\nnever stopped %s\nrestored      %s", spec, now, pa, pb)
			}
			again := false
			for _, id := range sa {
				state[id] = 2
				e := now + jobs[id].runtime
				end[e] = append(end[e], id)
				again = again || e == now
			}
			if !again {
				nt := wa
				if next < n {
					nt = min(nt, jobs[next].submit)
				}
				for e := range end {
					nt = min(nt, e)
				}
				for id := range next {
					if state[id] == 1 && jobs[id].cancel > now {
						nt = min(nt, jobs[id].cancel)
					}
				}
				if nt == policy.NoWake {
					if p.a.Waiting() != 0 || p.a.Running() != 0 {
						t.Fatalf("%s: stuck with %d waiting", spec, p.a.Waiting())
					}
					return
				}
				now = nt
				break
			}
			// a job started now ends now: its end, then another pass
			ids := end[now]
			slices.Sort(ids)
			for _, id := range ids {
				if _, err := p.a.End(now, reqs[id]); err != nil {
					t.Fatal(err)
				}
				if _, err := p.b.End(now, reqs[id]); err != nil {
					t.Fatal(err)
				}
				state[id] = 3
			}
			delete(end, now)
		}
	}
}

// observingOrder is a queue order that observes the machine and cannot
// save what it saw (tests): newest submission first.
type observingOrder struct{ seen map[int]int64 }

func (o *observingOrder) Name() string { return "test-observing" }
func (o *observingOrder) Less(_ int64, a, b *job.Request) bool {
	if o.seen[a.ID] != o.seen[b.ID] {
		return o.seen[a.ID] > o.seen[b.ID]
	}
	return a.ID < b.ID
}
func (o *observingOrder) Submitted(now int64, j *job.Request) { o.seen[j.ID] = now }
func (o *observingOrder) Started(int64, *job.Request)         {}
func (o *observingOrder) Ended(_ int64, j *job.Request)       { delete(o.seen, j.ID) }
func (o *observingOrder) Advance(int64)                       {}

func init() {
	policy.RegisterOrder(policy.OrderInfo{Name: "test-observing", Doc: "tests: an observing order without a snapshot",
		New: func(int, policy.Params) (policy.Order, error) { return &observingOrder{seen: map[int]int64{}}, nil }})
}

// TestSnapshotRefused: configurations whose state is not saved (runtime
// predictors, a priority order that observes the machine but cannot save
// its state) make Snapshot fail, so that the live service falls back to
// replaying its whole log instead of restoring a partial state; the
// others, multifactor priority and the slurm policy included, save it.
func TestSnapshotRefused(t *testing.T) {
	for _, spec := range []string{"conservative:predict=history-2", "easy++", "easy:predict=history-2",
		"conservative:order=test-observing", "easy:order=test-observing", "slack:order=test-observing", "lookahead:order=test-observing", "multiqueue:order=test-observing", "fcfs:order=test-observing"} {
		e := newEngine(t, spec, 8)
		if _, err := e.Snapshot(); err == nil {
			t.Errorf("%s: Snapshot succeeded", spec)
		}
	}
	for _, spec := range []string{"conservative", "easy", "easy:order=sjf", "easy:depth=all", "fcfs", "slack", "qops", "msb", "mrt",
		"conservative:order=multifactor", "easy:order=multifactor", "slack:order=multifactor", "lookahead:order=multifactor", "multiqueue:order=multifactor", "fcfs:order=multifactor", "slurm", "slurm:order=sjf"} {
		e := newEngine(t, spec, 8)
		if _, err := e.Snapshot(); err != nil {
			t.Errorf("%s: %v", spec, err)
		}
	}
}
