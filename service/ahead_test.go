package service

import (
	"math"
	"testing"

	"github.com/backfill-hpc/backfill/policy"
)

// TestCompressAhead follows when the engine lets conservative compress
// ahead (Engine.SettleAhead, called at the end of every write): at a
// cancellation; not after a submission (nothing pending: a cancellation
// after it at the same instant is no burst); and, once a cancellation
// at the same instant undid a compression made ahead, no more for the
// rest of that instant; again at the next instant.
func TestCompressAhead(t *testing.T) {
	sched, err := policy.New("conservative", 8)
	if err != nil {
		t.Fatal(err)
	}
	e, err := NewEngine(sched, 8, 0)
	if err != nil {
		t.Fatal(err)
	}
	sub := func(tm int64) *Job {
		j, err := e.Submit(tm, SubmitInput{UID: 1, User: "u", Procs: 8, Estimate: 100})
		if err != nil {
			t.Fatal(err)
		}
		e.SettleAhead()
		return j
	}
	cancel := func(tm int64, j *Job) {
		if _, err := e.Cancel(tm, j); err != nil {
			t.Fatal(err)
		}
		e.SettleAhead()
	}
	check := func(what string, ahead, burst int64) {
		t.Helper()
		if e.aheadAt != ahead || e.burstAt != burst {
			t.Fatalf("%s: ahead at %d, burst at %d; want %d, %d", what, e.aheadAt, e.burstAt, ahead, burst)
		}
	}
	none := int64(math.MinInt64)
	sub(0)
	if err := e.Flush(); err != nil { // the first job starts
		t.Fatal(err)
	}
	var q []*Job
	for range 4 {
		q = append(q, sub(1))
	}
	if err := e.Advance(2); err != nil {
		t.Fatal(err)
	}
	check("before", none, none)
	cancel(2, q[0])
	check("a cancellation", 2, none)
	sub(2)
	check("a submission after it", none, none)
	cancel(2, q[1])
	check("a cancellation after the submission", 2, none)
	cancel(2, q[2])
	check("a second cancellation", 2, 2)
	if err := e.Advance(3); err != nil { // the pass of instant 2
		t.Fatal(err)
	}
	check("the next instant", none, 2)
	cancel(3, q[3])
	check("a cancellation at the next instant", 3, 2)
}
