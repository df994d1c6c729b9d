package service

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	"github.com/backfill-hpc/backfill/sim"
	"github.com/backfill-hpc/backfill/workload"
)

// agree replays jobs through a fresh service on the manual clock and
// through sim.Run, and compares the schedules job by job.
func agree(t *testing.T, spec string, procs int, jobs []job.Job) {
	t.Helper()
	sched, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sim.Run(jobs, sched, sim.Options{Procs: procs})
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, spec, procs)
	env.clock.Set(0)
	got, err := Replay(context.Background(), env.admin, jobs)
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	for i := range jobs {
		w, g := want.Outcomes[i], got[i]
		if w.Start != g.Start || w.End != g.End || w.Bound != g.Bound || w.Killed != g.Killed || w.Rejected != g.Rejected {
			t.Fatalf("%s on %d processors, job %d (submit %d, %d procs, estimate %d, runtime %d):\nsimulator start %d end %d bound %d killed %v\nservice   start %d end %d bound %d killed %v",
				spec, procs, jobs[i].SWFID, jobs[i].Submit, jobs[i].Procs, jobs[i].Estimate, jobs[i].Runtime,
				w.Start, w.End, w.Bound, w.Killed, g.Start, g.End, g.Bound, g.Killed)
		}
	}
	env.stop()
}

var agreePolicies = []string{"fcfs", "fcfs:order=sjf", "easy", "easy:depth=3", "easy:order=sjf", "easy++", "conservative", "slack", "multiqueue", "lookahead"}

// TestServiceAgreesWithSimulator: replaying random workloads (many ties,
// runtime-0 jobs, jobs killed at their estimate) through the service with
// the manual clock gives the simulator's schedule, job by job, for every
// policy.
func TestServiceAgreesWithSimulator(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 5))
	n := 6
	if longtest.Short() {
		n = 2
	}
	for k := 0; k < n; k++ {
		s := testgen.Random(r)
		s.Jobs = 60 + r.IntN(60)
		s.Overrun = 0.2
		jobs := testgen.Jobs(r, s)
		for _, spec := range agreePolicies {
			agree(t, spec, s.Procs, jobs)
		}
	}
}

// TestServiceAgreesOnDeadlines: the same for the deadline policies (QoPS,
// MSB, MRT: admission decisions included) on random workloads where most
// jobs have a deadline; skipped for the policies not in this tree.
func TestServiceAgreesOnDeadlines(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 13))
	for _, spec := range []string{"qops", "msb", "mrt"} {
		if _, err := policy.New(spec, 4); err != nil {
			t.Logf("%s: not in this tree (%v)", spec, err)
			continue
		}
		for k := 0; k < 2; k++ {
			s := testgen.Random(r)
			s.Jobs = 40 + r.IntN(40)
			jobs := testgen.Jobs(r, s)
			for i := range jobs {
				if r.IntN(4) > 0 {
					jobs[i].Deadline = jobs[i].Submit + jobs[i].Estimate + int64(r.IntN(600))
				}
			}
			agree(t, spec, s.Procs, jobs)
		}
	}
}

// TestServiceAgreesOnKTH replays the first jobs of the embedded KTH SP2
// trace.
func TestServiceAgreesOnKTH(t *testing.T) {
	if longtest.Short() {
		t.Skip("a real-trace replay through HTTP (-short)")
	}
	jobs, procs := kthHead(t, 1500)
	for _, spec := range []string{"easy", "conservative", "slack"} {
		agree(t, spec, procs, jobs)
	}
}

func kthHead(t *testing.T, n int) ([]job.Job, int) {
	t.Helper()
	w, err := workload.Builtin(workload.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return w.Jobs[:n], w.Procs
}

// TestServiceAgreesAcrossRestarts replays random workloads through a
// service that is closed and opened again at random instants (a restart
// rebuilds the state from the log, finished jobs from the archive) and
// checks the simulator's schedule job by job, as without restarts. The
// service saves a snapshot every few records, so that most restarts of
// the policies that save their state begin from a snapshot and replay
// only the log's tail.
func TestServiceAgreesAcrossRestarts(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 18))
	n := 4
	if longtest.Short() {
		n = 1
	}
	for k := 0; k < n; k++ {
		s := testgen.Random(r)
		s.Jobs = 80 + r.IntN(60)
		s.Overrun = 0.2
		all := testgen.Jobs(r, s)
		// the deadline policies see the same workload with deadlines on
		// most jobs (admissions and rejections), and a few long
		// whole-machine jobs without one that end early: the backlog
		// passes a day, so later jobs without a deadline are admitted
		// with extended deadlines, which a snapshot must keep
		withDeadlines := slices.Clone(all)
		dr := rand.New(rand.NewPCG(uint64(k), 2))
		for i := range withDeadlines {
			w := &withDeadlines[i]
			switch dr.IntN(8) {
			case 0:
				w.Procs, w.Estimate = s.Procs, 20000+dr.Int64N(60000)
			case 1, 2:
			default:
				w.Deadline = w.Submit + w.Estimate + int64(dr.IntN(600))
			}
		}
		for _, spec := range []string{"conservative", "easy", "slack", "fcfs", "qops", "msb", "mrt"} {
			jobs := all
			if spec == "qops" || spec == "msb" || spec == "mrt" {
				jobs = withDeadlines
			}
			agreeAcrossRestarts(t, spec, s.Procs, jobs, rand.New(rand.NewPCG(uint64(k), 1)))
		}
	}
}

// agreeAcrossRestarts replays jobs through a service that takes a
// snapshot every few records and is restarted at random instants (rr),
// and checks the simulator's schedule job by job; it fails unless some
// restart began from a snapshot.
func agreeAcrossRestarts(t *testing.T, spec string, procs int, jobs []job.Job, rr *rand.Rand) {
	t.Helper()
	sched, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	want, err := sim.Run(jobs, sched, sim.Options{Procs: procs})
	if err != nil {
		t.Fatal(err)
	}
	env := newEnv(t, spec, procs)
	// snapshots every few records: most restarts begin from one
	env.cfg.SnapshotEvery = 1 + rr.IntN(40)
	env.restart()
	env.clock.Set(0)
	restarts, fromSnap := 0, 0
	got, err := replay(context.Background(), env.admin, jobs, func(int64) *Client {
		if rr.IntN(8) == 0 {
			before := engineView(env.svc)
			env.restart()
			if after := engineView(env.svc); after != before {
				t.Fatalf("%s: the state before a restart\n%s\ndiffers from the state after it\n%s", spec, before, after)
			}
			restarts++
			if _, ok, _ := env.svc.st.LatestSnapshot(); ok {
				fromSnap++
			}
		}
		return env.admin
	})
	if err != nil {
		t.Fatalf("%s: %v", spec, err)
	}
	if restarts == 0 {
		t.Fatalf("%s: no restart happened", spec)
	}
	if fromSnap == 0 {
		t.Fatalf("%s: %d of %d restarts began from a snapshot", spec, fromSnap, restarts)
	}
	for i := range jobs {
		w, g := want.Outcomes[i], got[i]
		if w.Start != g.Start || w.End != g.End || w.Bound != g.Bound || w.Killed != g.Killed || w.Rejected != g.Rejected {
			t.Fatalf("%s with %d restarts, job %d: simulator start %d end %d bound %d killed %v rejected %v; service start %d end %d bound %d killed %v rejected %v",
				spec, restarts, jobs[i].SWFID, w.Start, w.End, w.Bound, w.Killed, w.Rejected, g.Start, g.End, g.Bound, g.Killed, g.Rejected)
		}
	}
	env.stop()
}

// TestStatefulPoliciesAgreeAcrossRestarts: the same for the slurm policy
// and the queue orders that keep state of their own (multifactor
// priority: fair-share usage decayed every calculation period, ages, Fair
// Tree ranks; the slurm policy's backfill and main-scheduler timers),
// with both fair-share algorithms: a restart from a snapshot must go on
// exactly as the service that never stopped.
func TestStatefulPoliciesAgreeAcrossRestarts(t *testing.T) {
	specs := statefulSpecs(t)
	r := rand.New(rand.NewPCG(20, 18))
	n := 2
	if longtest.Short() {
		n = 1
	}
	for k := 0; k < n; k++ {
		s := testgen.Random(r)
		s.Jobs = 80 + r.IntN(60)
		s.Overrun = 0.2
		jobs := testgen.Jobs(r, s)
		for i := range jobs {
			jobs[i].User = int32(r.IntN(4)) // a few users compete for their shares
		}
		for _, spec := range specs {
			agreeAcrossRestarts(t, spec, s.Procs, jobs, rand.New(rand.NewPCG(uint64(k), 3)))
		}
	}
}

// statefulSpecs are policies whose state follows from the whole history:
// the slurm policy and queue orders by multifactor priority, with a
// slurm.conf (written in a temporary directory) where fair share weighs
// most, usage halves every 20 minutes and is recalculated every minute,
// so that priorities change while jobs wait; Fair Tree and classic fair
// share (with the usage of ending jobs added at once).
func statefulSpecs(t *testing.T) []string {
	dir := t.TempDir()
	conf := func(name, extra string) string {
		p := filepath.Join(dir, name)
		text := "PriorityType=priority/multifactor\nPriorityWeightFairshare=10000\nPriorityWeightAge=1000\nPriorityWeightJobSize=100\n" +
			"PriorityMaxAge=0-2\nPriorityDecayHalfLife=20\nPriorityCalcPeriod=1\nSchedulerParameters=bf_interval=30,sched_interval=60,bf_resolution=60\n" + extra
		if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	tree := conf("fairtree.conf", "")
	classic := conf("classic.conf", "PriorityFlags=NO_FAIR_TREE\nAccountingStorageEnforce=limits\n")
	return []string{
		"slurm:slurmconf=" + tree,
		"slurm:slurmconf=" + classic,
		"easy:order=multifactor:slurmconf=" + tree,
		"lookahead:order=multifactor:slurmconf=" + classic,
		"multiqueue:order=multifactor:slurmconf=" + tree,
		"conservative:order=multifactor:slurmconf=" + classic,
		"slack:order=multifactor:slurmconf=" + tree,
		"fcfs:order=multifactor:slurmconf=" + classic,
	}
}

// engineView is what a restart must keep of the engine: the instant, the
// next wake-up, the counts, every waiting job's planned start and the
// decision feed.
func engineView(s *Service) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	e := s.eng
	w, r, b := e.Counts()
	v := fmt.Sprintf("now %d next %d waiting %d running %d busy %d seq %d\nplan", e.Now(), e.Next(), w, r, b, e.seq)
	e.Reservations(func(j *Job, start int64) { v += fmt.Sprintf(" %d@%d", j.ID(), start) })
	v += "\njobs"
	for _, j := range e.Jobs() {
		if j != nil {
			v += fmt.Sprintf(" %d:%s:%d:%d", j.ID(), j.State, j.Start, j.Guarantee)
		}
	}
	return v + fmt.Sprintf("\ndecisions %v", e.Decisions(0))
}
