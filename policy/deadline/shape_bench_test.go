package deadline

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/backfill-hpc/backfill/internal/cputime"
	"github.com/backfill-hpc/backfill/internal/testgen"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
	_ "github.com/backfill-hpc/backfill/policy/conservative"
)

// serviceShape is the state `backfill loadgen` builds in a live service
// (service/loadgen): a machine of P processors held whole by one running
// job for 300 days, and a queue of q jobs without deadlines submitted
// after it (sizes 1…P/8, one in ten up to P; estimates 60 s to 10 h), each
// admitted at the end of the schedule with its artificial deadline
// extended (nd=admit: the 24 h deadline cannot be met behind the long
// job).
type serviceShape struct {
	s          *Policy
	r          *rand.Rand
	q, procs   int
	blockerEnd int64
	nextID     int
	share      float64
}

const shapeBlocker = int64(300 * 24 * 3600)

func newServiceShape(tb testing.TB, kind string, procs, q int, share float64, seed uint64) *serviceShape {
	sh := &serviceShape{s: mustNew(tb, kind, procs, Defaults(kind)), r: rand.New(rand.NewPCG(seed, uint64(q))),
		q: q, procs: procs, blockerEnd: shapeBlocker, share: share}
	s := sh.s
	useRef(s)
	if err := s.run.Start(0, &job.Request{ID: sh.nextID, SWFID: 1, Procs: procs, Estimate: shapeBlocker}); err != nil {
		tb.Fatal(err)
	}
	sh.nextID++
	for i := 0; i < q; i++ {
		j := sh.job(false)
		x := newJob(j, s.Deadline(j))
		x.Start = s.run.Prof.EarliestFit(0, j.Estimate, j.Procs)
		x.X.d = max(x.X.d, x.Start+j.Estimate)
		s.hold(x, x.Start)
		s.book.Insert(x)
		s.keyInsert(x)
	}
	return sh
}

// job is loadgen's random job; with deadlines, a share of them carries a
// deadline after the long job's end, within about twice the queue's work.
func (sh *serviceShape) job(deadlines bool) *job.Request {
	r := sh.r
	n := 1 + r.IntN(max(1, sh.procs/8))
	if r.IntN(10) == 0 {
		n = 1 + r.IntN(sh.procs)
	}
	e := int64(60 + r.IntN(36000))
	j := &job.Request{ID: sh.nextID, SWFID: int64(sh.nextID + 1), Procs: n, Estimate: e}
	sh.nextID++
	if deadlines && r.Float64() < sh.share {
		j.Deadline = sh.blockerEnd + e + int64(r.Float64()*float64(4*e+int64(sh.q)*2000))
	}
	return j
}

// BenchmarkServiceShape measures the deadline policies in the state of
// `backfill loadgen --queue Q --deadline-share 0.5 --drain newest` without
// the service: each step submits a job (Insert and Admitted: the decision)
// and cancels it if admitted. The cancellation's compression, which the
// policy makes at its next call (settle) and a service charges to the next
// request, is timed apart. It reports the decisions' p50 and p99 (ms), in
// wall time and in the thread's CPU time (cpu-p50-ms, cpu-p99-ms: what a
// shared machine does not inflate), the compressions' p50 and p99
// (cp50-ms, cp99-ms) and the share admitted.
//
// With clients=c > 1, c admitted jobs are outstanding at a time, as with
// loadgen's c concurrent clients (each cancels the job it submitted after
// the others submitted theirs): the oldest is cancelled when the c-th is
// admitted.
func BenchmarkServiceShape(b *testing.B) {
	for _, kind := range []string{"qops", "msb", "mrt"} {
		for _, q := range []int{1000, 10000} {
			for _, clients := range []int{1, 8} {
				name := fmt.Sprintf("%s/queue=%d", kind, q)
				if clients > 1 {
					name += fmt.Sprintf("/clients=%d", clients)
				}
				b.Run(name, func(b *testing.B) { benchServiceShape(b, kind, q, clients) })
			}
		}
	}
}

func benchServiceShape(b *testing.B, kind string, q, clients int) {
	sh := newServiceShape(b, kind, 1024, q, 0.5, 1)
	var lat, clat, cpu []time.Duration
	var out []*job.Request
	admitted := 0
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		j := sh.job(true)
		t0 := time.Now()
		sh.s.book.Settle(0)
		t1 := time.Now()
		c1 := cputime.Thread()
		sh.s.Insert(0, j)
		ok, _ := sh.s.Admitted(j)
		cpu = append(cpu, cputime.Thread()-c1)
		lat = append(lat, time.Since(t1))
		clat = append(clat, t1.Sub(t0))
		if ok {
			admitted++
			out = append(out, j)
		}
		if len(out) >= clients {
			sh.s.Remove(0, out[0])
			out = out[1:]
		}
	}
	b.StopTimer()
	b.ReportMetric(quantileMs(lat, 50), "p50-ms")
	b.ReportMetric(quantileMs(lat, 99), "p99-ms")
	b.ReportMetric(quantileMs(cpu, 50), "cpu-p50-ms")
	b.ReportMetric(quantileMs(cpu, 99), "cpu-p99-ms")
	b.ReportMetric(quantileMs(clat, 50), "cp50-ms")
	b.ReportMetric(quantileMs(clat, 99), "cp99-ms")
	b.ReportMetric(float64(admitted)/float64(b.N), "admitted")
	b.ReportMetric(float64(sh.s.Stats.Placements)/float64(b.N), "fits/op")
	b.ReportMetric(float64(sh.s.Stats.Points)/float64(b.N), "points/op")
}

// quantileMs is the nearest-rank p-th percentile of ds in milliseconds
// (ds is sorted).
func quantileMs(ds []time.Duration, p int) float64 {
	slices.Sort(ds)
	k := (p*len(ds) + 99) / 100
	return float64(ds[max(1, k)-1]) / 1e6
}

// BenchmarkFrontCancel measures the cancellation of the front of the queue
// in the state of `backfill loadgen --drain oldest` (a long job holding the
// whole machine, a queue of q jobs without deadlines): each step cancels
// the oldest waiting job and submits a new one at the back; the time is
// that of the cancellation and of the policy's reaction to it, which the
// policy makes at its next call (the submission's Insert, timed with it:
// p50-ms, p99-ms). Conservative backfilling beside QoPS: both compress
// the schedule after a release (policy/reservation, Compress).
func BenchmarkFrontCancel(b *testing.B) {
	for _, spec := range []string{"conservative", "qops"} {
		for _, q := range []int{1000, 10000} {
			b.Run(fmt.Sprintf("%s/queue=%d", spec, q), func(b *testing.B) {
				s, err := policy.New(spec, 1024)
				if err != nil {
					b.Fatal(err)
				}
				r := rand.New(rand.NewPCG(1, uint64(q)))
				blocker := &job.Request{ID: 0, SWFID: 1, Procs: 1024, Estimate: shapeBlocker}
				next := testgen.ServiceJobs(r, 1)
				s.Insert(0, blocker)
				s.Tick(0, func(*job.Request) {})
				var fifo []*job.Request
				for i := 0; i < q; i++ {
					j := next()
					s.Insert(1, j)
					fifo = append(fifo, j)
				}
				var lat, cpu []time.Duration
				runtime.LockOSThread()
				defer runtime.UnlockOSThread()
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					j := next()
					t0, c0 := time.Now(), cputime.Thread()
					s.Remove(1, fifo[0])
					s.Insert(1, j)
					cpu = append(cpu, cputime.Thread()-c0)
					lat = append(lat, time.Since(t0))
					fifo = append(fifo[1:], j)
				}
				b.StopTimer()
				b.ReportMetric(quantileMs(lat, 50), "p50-ms")
				b.ReportMetric(quantileMs(lat, 99), "p99-ms")
				b.ReportMetric(quantileMs(cpu, 50), "cpu-p50-ms")
				b.ReportMetric(quantileMs(cpu, 99), "cpu-p99-ms")
			})
		}
	}
}
