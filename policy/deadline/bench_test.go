package deadline

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/internal/cputime"
	"github.com/backfill-hpc/backfill/job"
)

// benchState is a machine of 128 processors, busy with running jobs, and a
// queue of n admitted waiting jobs. Sizes are mostly small powers of two,
// estimates log-uniform between 1 minute and 10 hours. The waiting jobs
// are placed one after another at their earliest fits (the schedule that
// conservative backfilling would build), and each gets a deadline after
// its reservation's end: half of them with up to 1 h of slack, half with
// up to a quarter of the schedule's length, raised where needed so that
// deadlines never decrease in placement order (the schedule is then the
// one EDF builds, which QoPS and MRT rebuild as it is).
type benchState struct {
	r       *rand.Rand
	horizon int64
	nextID  int
}

const benchProcs = 128

func benchJob(r *rand.Rand, id int) *job.Request {
	size := 1 << r.IntN(7) // 1 … 64
	if r.IntN(4) == 0 {
		size = 1 + r.IntN(benchProcs)
	}
	est := int64(math.Exp(math.Log(60) + r.Float64()*(math.Log(36000)-math.Log(60))))
	return &job.Request{ID: id, SWFID: int64(id + 1), Procs: size, Estimate: est}
}

// useRef makes the benchmarks run the literal admission tests of
// ref_test.go (BACKFILL_DEADLINE_REF=1), to compare in one run.
func useRef(s *Policy) {
	if os.Getenv("BACKFILL_DEADLINE_REF") != "" {
		setRef(s)
	}
}

func newBenchSched(tb testing.TB, kind string, n int, seed uint64) (*Policy, *benchState) {
	s := mustNew(tb, kind, benchProcs, Defaults(kind))
	useRef(s)
	st := &benchState{r: rand.New(rand.NewPCG(seed, 99))}
	r := st.r
	// running jobs fill the machine
	for free := benchProcs; free > 0; {
		j := benchJob(r, st.nextID)
		st.nextID++
		j.Procs = min(j.Procs, free)
		free -= j.Procs
		if err := s.run.Start(0, j); err != nil {
			tb.Fatal(err)
		}
	}
	for i := 0; i < n; i++ {
		j := benchJob(r, st.nextID)
		st.nextID++
		x := newJob(j, 0)
		x.Start = s.run.Prof.EarliestFit(0, j.Estimate, j.Procs)
		s.hold(x, x.Start)
		s.book.SetWait(append(s.book.Wait(), x)) // appended in order of placement
		s.book.Index(x)
		st.horizon = max(st.horizon, x.Start+j.Estimate)
	}
	// deadlines in placement order, never decreasing: the schedule is the
	// one EDF would build, as a deadline scheduler's schedule tends to be
	var d int64
	for _, x := range s.book.Wait() {
		slack := int64(r.IntN(3600))
		if r.IntN(2) == 0 {
			slack = r.Int64N(st.horizon/4 + 1)
		}
		d = max(d, x.Start+x.J.Estimate+slack)
		x.X.d = d
		x.J.Deadline = x.X.d
		s.book.Index(x)
		s.keyInsert(x) // QoPS's list in the heuristic's order
	}
	s.book.Sort()
	return s, st
}

// probe is a new job at time 0 whose deadline leaves a slack
// log-uniform between 1 s and the schedule's length: some are admitted at
// once, some after reordering, some rejected.
func (st *benchState) probe() *job.Request {
	j := benchJob(st.r, st.nextID)
	st.nextID++
	slack := int64(math.Exp(st.r.Float64() * math.Log(float64(st.horizon+1))))
	j.Deadline = j.Estimate + slack
	return j
}

// decide times one admission decision (Insert and Admitted) and restores
// the state as it was before it; with b set, the benchmark timer runs
// during the decision only.
func decide(s *Policy, st *benchState, b *testing.B) (time.Duration, bool) {
	d, _, ok := decideCPU(s, st, b)
	return d, ok
}

// decideCPU is decide, also returning the decision's CPU time on its
// thread (threadCPU).
func decideCPU(s *Policy, st *benchState, b *testing.B) (time.Duration, time.Duration, bool) {
	old := make([]int64, len(s.book.Wait()))
	for i, x := range s.book.Wait() {
		old[i] = x.Start
	}
	ids := slices.Clone(s.book.Wait())
	j := st.probe()
	if b != nil {
		b.StartTimer()
	}
	t0, c0 := time.Now(), cputime.Thread()
	s.Insert(0, j)
	ok, _ := s.Admitted(j)
	d, c := time.Since(t0), cputime.Thread()-c0
	if b != nil {
		b.StopTimer()
	}
	if ok {
		if x, ok := s.book.Get(j.ID); ok {
			s.keyDelete(x)
		}
		for _, x := range s.book.Wait() {
			s.unhold(x, x.Start)
		}
		// j stays indexed: a fresh probe, never seen again
		for i, x := range ids {
			x.Start = old[i]
			s.hold(x, x.Start)
		}
		s.book.SetWait(ids)
	}
	return d, c, ok
}

// BenchmarkAdmission measures the admission decision latency of QoPS, MSB
// and MRT with n jobs waiting (the answer time a live service gives a
// user who submits a job), and reports its median and 99th percentile
// (p50-ms, p99-ms) and the share of probes admitted. MSB and MRT are
// quadratic in n; at n = 10000 run them with -benchtime=2x or so.
func BenchmarkAdmission(b *testing.B) {
	for _, kind := range []string{"qops", "msb", "mrt"} {
		for _, n := range []int{100, 1000, 10000} {
			b.Run(fmt.Sprintf("%s/queue=%d", kind, n), func(b *testing.B) {
				s, st := newBenchSched(b, kind, n, 1)
				var lat, cpu []time.Duration
				admitted := 0
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				b.ResetTimer()
				b.StopTimer()
				for i := 0; i < b.N; i++ {
					d, c, ok := decideCPU(s, st, b)
					lat = append(lat, d)
					cpu = append(cpu, c)
					if ok {
						admitted++
					}
				}
				slices.Sort(lat)
				q := func(p int) float64 {
					k := (p*len(lat) + 99) / 100
					return float64(lat[max(1, k)-1]) / 1e6
				}
				b.ReportMetric(q(50), "p50-ms")
				b.ReportMetric(q(99), "p99-ms")
				b.ReportMetric(quantileMs(cpu, 50), "cpu-p50-ms")
				b.ReportMetric(quantileMs(cpu, 99), "cpu-p99-ms")
				b.ReportMetric(float64(admitted)/float64(b.N), "admitted")
			})
		}
	}
}

// TestBenchStateRestores: a decision in the benchmark leaves the schedule
// exactly as it was (so that every probe sees the same queue).
func TestBenchStateRestores(t *testing.T) {
	for _, kind := range []string{"qops", "msb", "mrt"} {
		s, st := newBenchSched(t, kind, 60, 2)
		before := schedule(s)
		steps := s.run.Prof.Steps()
		admitted := 0
		for i := 0; i < 30; i++ {
			if _, ok := decide(s, st, nil); ok {
				admitted++
			}
			if schedule(s) != before || !slices.Equal(steps, s.run.Prof.Steps()) {
				t.Fatalf("%s: probe %d changed the state", kind, i)
			}
		}
		if admitted == 0 || admitted == 30 {
			t.Errorf("%s: %d of 30 probes admitted; the benchmark should see both outcomes", kind, admitted)
		}
	}
}
