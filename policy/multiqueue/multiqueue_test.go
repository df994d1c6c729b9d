package multiqueue_test

import (
	"math/rand/v2"
	"reflect"
	"strconv"
	"testing"

	"github.com/backfill-hpc/backfill/audit"
	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/all"
	"github.com/backfill-hpc/backfill/policy/multiqueue"
	"github.com/backfill-hpc/backfill/sim"
)

func req(id int, submit int64, procs int, est int64) *job.Request {
	return &job.Request{ID: id, SWFID: int64(id + 1), Submit: submit, Procs: procs, Estimate: est, User: -1, Group: -1, Queue: -1, Partition: -1}
}

// driver runs the policy by hand, as the engine would, so that the
// partition state can be inspected between instants.
type driver struct {
	t       *testing.T
	m       *multiqueue.Policy
	started map[int]int64
}

func (d *driver) at(now int64, ended []*job.Request, submitted []*job.Request) []int {
	for _, j := range ended {
		d.m.Remove(now, j)
	}
	for _, j := range submitted {
		d.m.Insert(now, j)
	}
	var ids []int
	d.m.Tick(now, func(j *job.Request) {
		d.started[j.ID] = now
		ids = append(ids, j.ID)
	})
	return ids
}

func (d *driver) parts(want ...multiqueue.PartState) {
	d.t.Helper()
	if got := d.m.Partitions(); !reflect.DeepEqual(got, want) {
		d.t.Fatalf("partitions %+v, want %+v", got, want)
	}
}

// TestBorrowAndReturn: 8 processors, two queues (estimate ≤ 100 s, longer)
// on 4 + 4. A long job of 6 processors takes its own 4 and borrows 2 idle
// processors of the short partition, whose boundary moves; a short job
// then uses the 2 left; another short job of 3 cannot start — the long
// partition lends nothing (it is full) — and its reservation in its own
// partition waits for the lent processors. When the long job ends, the
// borrowed processors go back to the short partition and the short job
// starts there.
func TestBorrowAndReturn(t *testing.T) {
	m, err := multiqueue.New(8, multiqueue.Config{Bounds: []int64{100}})
	if err != nil {
		t.Fatal(err)
	}
	d := &driver{t: t, m: m, started: map[int]int64{}}
	long := req(0, 0, 6, 1000)
	if got := d.at(0, nil, []*job.Request{long}); len(got) != 1 {
		t.Fatalf("the long job did not start by borrowing: %v", got)
	}
	d.parts(multiqueue.PartState{Home: 4, Lent: 2}, multiqueue.PartState{Home: 4, Own: 4, Borrowed: 2})
	s1 := req(1, 10, 2, 50)
	if got := d.at(10, nil, []*job.Request{s1}); len(got) != 1 {
		t.Fatalf("short job of 2 did not start in its partition's 2 idle processors")
	}
	d.parts(multiqueue.PartState{Home: 4, Own: 2, Lent: 2}, multiqueue.PartState{Home: 4, Own: 4, Borrowed: 2})
	s2 := req(2, 20, 3, 50)
	if got := d.at(20, nil, []*job.Request{s2}); len(got) != 0 {
		t.Fatalf("short job of 3 started with no room: %v", got)
	}
	// s1 ends: 2 processors of the short partition free, still not 3
	if got := d.at(60, []*job.Request{s1}, nil); len(got) != 0 {
		t.Fatalf("short job of 3 started on 2 processors: %v", got)
	}
	d.parts(multiqueue.PartState{Home: 4, Lent: 2}, multiqueue.PartState{Home: 4, Own: 4, Borrowed: 2})
	// the long job ends early: its borrowed processors return
	if got := d.at(300, []*job.Request{long}, nil); len(got) != 1 || got[0] != 2 {
		t.Fatalf("at the return of the lent processors: started %v, want the short job 2", got)
	}
	d.parts(multiqueue.PartState{Home: 4, Own: 3}, multiqueue.PartState{Home: 4})
}

// TestLendingKeepsPivot: a partition lends only what keeps its own pivot's
// reservation. 8 processors on 4 + 4 (estimate ≤ 100 s, longer). In the
// short partition a job of 3 processors runs until 100; in the long one a
// job of 3 runs until 5000. A short job of 4 cannot start (1 + 1 lent) and
// becomes the short queue's pivot, reserved at 100 on its partition's 4
// processors. A job of 2 then needs the idle processor of each partition:
// a long one (estimate 5000) would hold the short partition's processor
// past 100 and waits; a short one (estimate 50) ends by 100 and starts.
func TestLendingKeepsPivot(t *testing.T) {
	for _, c := range []struct {
		est   int64
		start bool
	}{{5000, false}, {50, true}} {
		m, err := multiqueue.New(8, multiqueue.Config{Bounds: []int64{100}})
		if err != nil {
			t.Fatal(err)
		}
		d := &driver{t: t, m: m, started: map[int]int64{}}
		if got := d.at(0, nil, []*job.Request{req(0, 0, 3, 100), req(1, 0, 3, 5000)}); len(got) != 2 {
			t.Fatalf("started %v, want both", got)
		}
		if got := d.at(1, nil, []*job.Request{req(2, 1, 4, 100)}); len(got) != 0 {
			t.Fatalf("pivot started: %v", got)
		}
		got := d.at(2, nil, []*job.Request{req(3, 2, 2, c.est)})
		if (len(got) == 1) != c.start {
			t.Errorf("job of 2 processors, estimate %d: started %v, want start=%v", c.est, got, c.start)
		}
		if c.start {
			d.parts(multiqueue.PartState{Home: 4, Own: 4, Borrowed: 1}, multiqueue.PartState{Home: 4, Own: 3, Lent: 1})
		}
	}
}

// TestWideJob: a job wider than its partition starts by borrowing, and
// when it must wait its reservation spans the partitions, so later jobs
// cannot delay it.
func TestWideJob(t *testing.T) {
	jobs := []job.Job{}
	add := func(submit int64, procs int, est, run int64) {
		jobs = append(jobs, job.Job{Request: *req(len(jobs), submit, procs, est), Runtime: run})
	}
	add(0, 2, 1000, 1000) // long partition (4): 2 busy until 1000
	add(1, 8, 50, 50)     // wide short job: needs the whole machine; reserved at 1000
	for t := int64(2); t < 900; t += 10 {
		add(t, 1, 2000, 2000) // long one-processor jobs that would delay it
	}
	o := simulate(t, "multiqueue:bounds=100", 8, jobs)
	if o[1].Start != 1000 {
		t.Errorf("wide job starts at %d, want 1000 (its reservation across both partitions)", o[1].Start)
	}
}

func simulate(t *testing.T, spec string, procs int, jobs []job.Job) []job.Outcome {
	t.Helper()
	s, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(jobs, s, sim.Options{Procs: procs})
	if err != nil {
		t.Fatal(err)
	}
	rep := audit.Audit(res.Outcomes, audit.Options{Procs: procs, Kill: true, KnownRuntime: true, Expect: len(jobs)})
	if !rep.OK() {
		t.Fatalf("%s: %s", spec, rep.String())
	}
	return res.Outcomes
}

// TestOneQueueIsEASY: with one bound above every estimate and the whole
// machine in the first partition (the second has none), every job is in
// one queue scheduled by EASY inside one partition: the schedule is EASY's
// job by job, on random workloads, with and without kills.
func TestOneQueueIsEASY(t *testing.T) {
	n := 200
	if longtest.Short() {
		n = 40
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 31))
		spec := testgen.Random(r)
		jobs := testgen.Jobs(r, spec)
		for _, noKill := range []bool{false, true} {
			a := run(t, "easy", spec.Procs, jobs, noKill)
			b := run(t, "multiqueue:bounds=1000000000:procs="+strconv.Itoa(spec.Procs)+"/0", spec.Procs, jobs, noKill)
			for i := range jobs {
				if a[i].Start != b[i].Start {
					t.Fatalf("seed %d noKill=%v: job %d starts at %d (EASY) vs %d (multiqueue)", seed, noKill, i, a[i].Start, b[i].Start)
				}
			}
		}
	}
}

func run(t *testing.T, spec string, procs int, jobs []job.Job, noKill bool) []job.Outcome {
	t.Helper()
	s, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	res, err := sim.Run(jobs, s, sim.Options{Procs: procs, NoKill: noKill})
	if err != nil {
		t.Fatal(err)
	}
	return res.Outcomes
}

// TestParams: names round-trip; bad parameters are errors.
func TestParams(t *testing.T) {
	for _, spec := range []string{"multiqueue", "multiqueue:bounds=60/3600", "multiqueue:procs=5/4/4/3", "multiqueue:order=sjf"} {
		s, err := policy.New(spec, 16)
		if err != nil {
			t.Fatal(err)
		}
		if s.Name() != spec {
			t.Errorf("%s: Name() = %s", spec, s.Name())
		}
	}
	if s, _ := policy.New("multiqueue:procs=4/4/4/3", 15); s.Name() != "multiqueue" {
		t.Errorf("4/4/4/3 on 15 is the even split, named %s", s.Name())
	}
	for _, bad := range []string{"multiqueue:bounds=100/10", "multiqueue:bounds=x", "multiqueue:procs=4/4/4", "multiqueue:procs=4/4/4/5", "multiqueue:order=lifo", "multiqueue:depth=2"} {
		if _, err := policy.New(bad, 16); err == nil {
			t.Errorf("%s: no error", bad)
		}
	}
}
