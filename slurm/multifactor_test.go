package slurm

import (
	"math"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

func req(id int, submit int64, procs int, user, group int32) *job.Request {
	return &job.Request{ID: id, SWFID: int64(id + 1), Submit: submit, Procs: procs, Estimate: 1000, User: user, Group: group, Queue: -1, Partition: -1}
}

// TestMultifactorByHand: a machine of 100 one-CPU nodes; accounts 1 (1
// share) and 2 (3 shares), user 10 in account 1 and user 20 in account 2;
// no decay; calculations every 100 s from 0. A job of user 10 on 10 CPUs
// runs from 0. Worked by hand from the formulas of docs/policies.md:
//
//   - size (PriorityFavorSmall, weight 1000): a waiting job of 10 CPUs
//     needs 10 nodes: ((100−10)/100 + (100−10)/100)/2 = 0.9 → 900;
//   - age (PriorityMaxAge 1000 s, weight 1000): a job submitted at 0 has
//     age 0 until the calculation at 100 (0.1 → 100), 0.2 → 200 at 200;
//   - fair-share (weight 10000): the usage of [0, 100) (10 CPUs × 100 s =
//     1000) is added at the calculation at 100, after the accounts'
//     effective usage was taken (0), so user 10's factor stays 1 at 100
//     (its effective usage is its account's, the only child: 0); at 200
//     account 1's effective usage is 1000/1000 = 1 and user 10's factor
//     2^(−1/0.25) = 1/16 → 625; user 20 keeps 1 → 10000.
func TestMultifactorByHand(t *testing.T) {
	c := DefaultConf()
	c.FairTree = false
	c.DecayHalfLife = 0
	c.CalcPeriod = 100
	c.MaxAge = 1000
	c.FavorSmall = true
	c.WeightAge, c.WeightFairshare, c.WeightJobSize = 1000, 10000, 1000
	tr := NewTree()
	tr.AddAccount("1", "root", 1)
	tr.AddAccount("2", "root", 3)
	tr.AddUser("10", "1", 1)
	tr.AddUser("20", "2", 1)
	m := NewMultifactor(c, tr, 100, nil, 0)
	running := req(0, 0, 10, 10, 1)
	a := req(1, 0, 10, 10, 1)
	b := req(2, 0, 10, 20, 2)
	m.Submitted(0, running)
	m.Submitted(0, a)
	m.Submitted(0, b)
	m.Started(0, running)
	check := func(now int64, j *job.Request, want uint32) {
		t.Helper()
		m.Advance(now)
		if got := m.Priority(j); got != want {
			t.Errorf("t=%d job %d: priority %d, want %d (factors %+v)", now, j.ID, got, want, m.Factors(j))
		}
	}
	check(0, a, 10000+900)
	check(0, b, 10000+900)
	check(99, a, 10000+900)
	// held, the calculation at 100 waits (the age stays 0) until released
	m.Hold(100)
	check(100, a, 10000+900)
	m.Hold(0)
	check(100, a, 10000+900+100)
	check(100, b, 10000+900+100)
	if u := tr.User("10", "1").UsageRaw(); u != 1000 {
		t.Errorf("usage of user 10 at 100: %g, want 1000", u)
	}
	check(200, a, 625+900+200)
	check(200, b, 10000+900+200)
	if !m.Less(200, b, a) || m.Less(200, a, b) {
		t.Error("user 20's job must go first at 200")
	}
	// without AccountingStorageEnforce=limits the end adds nothing: the
	// usage of [200, 250) is lost, as in Slurm
	m.Ended(250, running)
	if u := tr.Root.UsageRaw(); u != 2000 {
		t.Errorf("root usage after the end at 250: %g, want 2000", u)
	}
	// with it, ending at 250 adds [200, 250) at once: 2000 + 500
	c.EnforceLimits = true
	m = NewMultifactor(c, NewTree(), 100, nil, 0)
	m.Submitted(200, running)
	m.Started(200, running)
	m.Ended(250, running)
	if u := m.Tree().Root.UsageRaw(); u != 500 {
		t.Errorf("usage of a job that ran [200, 250) with limits enforced: %g, want 500", u)
	}
}

// TestMultifactorDecay: with PriorityDecayHalfLife H, usage decays by
// d = 1 − 0.693/H per second, and a job's usage over Δ seconds is
// Δ·d^Δ·CPUs (Slurm's formulas). H = 1000 s, a 10-CPU job from 0,
// calculations every 100 s: at 100 the usage is 100·d^100·10; at 200 it
// is that times d^100, plus the same again.
func TestMultifactorDecay(t *testing.T) {
	c := DefaultConf()
	c.DecayHalfLife, c.CalcPeriod, c.FairTree = 1000, 100, false
	c.WeightFairshare = 1 // usage is kept only for a fair-share weight
	m := NewMultifactor(c, nil, 100, nil, 0)
	j := req(0, 0, 10, 1, 1)
	m.Submitted(0, j)
	m.Started(0, j)
	d := 1 - 0.693/1000
	one := 100 * math.Pow(d, 100) * 10
	m.Advance(100)
	if u := m.Tree().Root.UsageRaw(); math.Abs(u-one) > 1e-9 {
		t.Errorf("usage at 100: %g, want %g", u, one)
	}
	m.Advance(200)
	if u, want := m.Tree().Root.UsageRaw(), one*math.Pow(d, 100)+one; math.Abs(u-want) > 1e-9 {
		t.Errorf("usage at 200: %g, want %g", u, want)
	}
}

// TestMultifactorQOSNiceAndFloor: QOS priority over the largest, minus
// nice, floored at 1.
func TestMultifactorQOSNiceAndFloor(t *testing.T) {
	c := DefaultConf()
	c.WeightQOS = 2000
	tr := NewTree()
	tr.QOSNamed("1").Priority = 250
	tr.QOSNamed("2").Priority = 1000
	infos := map[int]Info{0: {User: "u", Account: "a", QOS: "1", Nice: 100}, 1: {User: "u", Account: "a", QOS: "normal", Nice: 5}}
	m := NewMultifactor(c, tr, 10, func(j *job.Request) Info { return infos[j.ID] }, 0)
	a, b := req(0, 0, 1, 1, 1), req(1, 0, 1, 1, 1)
	m.Submitted(0, a)
	m.Submitted(0, b)
	if got := m.Priority(a); got != 500-100 {
		t.Errorf("QOS 250/1000 × 2000 − nice 100 = %d, want 400", got)
	}
	if got := m.Priority(b); got != 1 {
		t.Errorf("0 − nice 5 floors at %d, want 1", got)
	}
}

// TestMultifactorRegistered: with no configuration every weight is 0, so
// every priority is 1 and the order is arrival order.
func TestMultifactorRegistered(t *testing.T) {
	o, err := policy.NewOrder(policy.Params{"order": "multifactor"}, "fcfs", 64)
	if err != nil {
		t.Fatal(err)
	}
	m := o.(*Multifactor)
	a, b := req(0, 0, 8, 1, 1), req(1, 5, 1, 2, 2)
	m.Submitted(0, a)
	m.Submitted(5, b)
	m.Advance(10000)
	if m.Priority(a) != 1 || m.Priority(b) != 1 || !m.Less(10000, a, b) {
		t.Errorf("priorities %d %d", m.Priority(a), m.Priority(b))
	}
	if _, err := policy.NewOrder(policy.Params{"order": "multifactor", "slurmconf": "/nonexistent"}, "fcfs", 64); err == nil {
		t.Error("a missing slurm.conf must be an error")
	}
}

// TestAdvanceStatic: with every weight 0 a calculation changes nothing
// but its instant, and Advance goes to the last one due at once (one
// loop per PriorityCalcPeriod would take hours over 10¹⁵ s). The
// calculations fall at origin + k·PriorityCalcPeriod (here 7 + k·300);
// Hold stops them before the held second.
func TestAdvanceStatic(t *testing.T) {
	m := NewMultifactor(DefaultConf(), nil, 4, nil, 7)
	m.Advance(0)
	if got := m.NextCalc(); got != 7 {
		t.Fatalf("next calculation %d after Advance(0), want 7", got)
	}
	const far = 1_000_000_000_000_003
	m.Advance(far)
	if got, want := m.NextCalc(), int64(7+((far-7)/300+1)*300); got != want {
		t.Errorf("next calculation %d after Advance(%d), want %d", got, int64(far), want)
	}
	h := NewMultifactor(DefaultConf(), nil, 4, nil, 7)
	h.Advance(0)
	h.Hold(907)
	h.Advance(5000)
	if got := h.NextCalc(); got != 907 {
		t.Errorf("held at 907: next calculation %d after Advance(5000), want 907", got)
	}
	h.Hold(0)
	h.Advance(5000)
	if got := h.NextCalc(); got != 5107 {
		t.Errorf("released: next calculation %d after Advance(5000), want 5107", got)
	}
}
