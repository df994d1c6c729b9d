package deadline

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/policy"
)

// equivSpecs are the variants TestAdmissionEqualsReference compares.
var equivSpecs = []string{"qops", "qops:new=sorted", "qops:h=llf:k=0", "qops:k=20:nd=reject", "qops:h=llf:k=2:new=sorted",
	"msb", "msb:h=edf:au=0.5:af=0", "msb:h=llf:at=0.5", "mrt", "mrt:h=llf:backtrack=0", "mrt:backtrack=50:nd=reject"}

// TestAdmissionEqualsReference drives each variant twice — with the
// admission tests of the package and with the literal ones of ref_test.go
// — by the same random submissions (with and without deadlines, some
// tight, some loose, queues from a few jobs to a few hundred), passes,
// early ends and cancellations, and compares every decision and its
// reason, every reservation after every event, and the search counts;
// every other seed with the fit memo (memo.go) on at any queue length.
func TestAdmissionEqualsReference(t *testing.T) {
	n := 60
	if longtest.Short() {
		n = 12
	}
	defer func() { memoMinWait = 256 }()
	for _, spec := range equivSpecs {
		for seed := uint64(1); seed <= uint64(n); seed++ {
			// every other seed with the fit memo on at any queue length
			// (it is on from 256 waiting jobs, which few runs reach), so
			// that a bound it gives too high is caught
			memoMinWait = []int{256, 0}[seed%2]
			equivRun(t, spec, seed)
		}
	}
}

func newEquiv(t *testing.T, spec string, procs int) *Policy {
	t.Helper()
	s, err := policy.New(spec, procs)
	if err != nil {
		t.Fatal(err)
	}
	return s.(*Policy)
}

func equivRun(t *testing.T, spec string, seed uint64) {
	r := rand.New(rand.NewPCG(seed, 7919))
	procs := []int{1, 4, 16, 64, 128}[r.IntN(5)]
	fast, ref := newEquiv(t, spec, procs), newEquiv(t, spec, procs)
	setRef(ref)
	type run struct {
		j   *job.Request
		end int64
	}
	var running []run
	var now int64
	nextID := 0
	// the share of submissions among events: high makes long queues
	subShare := []int{4, 6, 8, 9}[r.IntN(4)]
	maxEst := []int{20, 100, 1000}[r.IntN(3)]
	slackMax := []int{1, 50, 400, 5000}[r.IntN(4)]
	noDeadline := r.IntN(4)
	steps := 100 + r.IntN(300)
	where := func(what string) string {
		return fmt.Sprintf("%s seed %d (procs %d) after %s at %d", spec, seed, procs, what, now)
	}
	check := func(what string) {
		fast.book.Settle(now)
		ref.book.Settle(now)
		if a, b := schedule(fast), schedule(ref); a != b {
			t.Fatalf("%s:\n fast: %s\n ref:  %s", where(what), a, b)
		}
		a, b := fast.Stats, ref.Stats
		a.Placements, b.Placements = 0, 0 // searches may count theirs differently
		if a != b {
			t.Fatalf("%s: stats %+v (fast) vs %+v (ref)", where(what), fast.Stats, ref.Stats)
		}
	}
	for step := 0; step < steps; step++ {
		switch k := r.IntN(10); {
		case k < subShare:
			est := int64(1 + r.IntN(maxEst))
			j := &job.Request{ID: nextID, SWFID: int64(nextID + 1), Submit: now, Procs: 1 + r.IntN(procs), Estimate: est}
			if r.IntN(4) >= noDeadline {
				j.Deadline = now + est + int64(r.IntN(slackMax))
				if r.IntN(8) == 0 {
					j.Deadline = now + est + int64(r.IntN(20*slackMax))
				}
			}
			nextID++
			j2 := *j
			fast.Insert(now, j)
			ref.Insert(now, &j2)
			a, ra := fast.Admitted(j)
			b, rb := ref.Admitted(&j2)
			if a != b || ra != rb {
				t.Fatalf("%s: job %d admitted %v %q (fast) vs %v %q (ref)", where("insert"), j.ID, a, ra, b, rb)
			}
			check("insert")
		case k < subShare+1 && len(fast.book.Wait()) > 0:
			x := fast.book.Wait()[r.IntN(len(fast.book.Wait()))]
			y, _ := ref.book.Get(x.J.ID)
			fast.Remove(now, x.J)
			ref.Remove(now, y.J)
			check("cancel")
		case k < subShare+2 && len(running) > 0:
			i := r.IntN(len(running))
			if x := running[i]; x.end > now {
				fast.Remove(now, x.j)
				ref.Remove(now, x.j)
				running = slices.Delete(running, i, i+1)
				check("early end")
			}
		default:
			next := now + int64(r.IntN(maxEst/2+1))
			if len(fast.book.Wait()) > 0 {
				next = min(next, max(now, fast.book.Wait()[0].Start))
			}
			for _, x := range running {
				next = min(next, x.end)
			}
			now = next
			kept := running[:0]
			for _, x := range running {
				if x.end == now {
					fast.Remove(now, x.j)
					ref.Remove(now, x.j)
				} else {
					kept = append(kept, x)
				}
			}
			running = kept
			var sa, sb []int
			fast.Tick(now, func(j *job.Request) {
				sa = append(sa, j.ID)
				running = append(running, run{j, now + j.Estimate})
			})
			ref.Tick(now, func(j *job.Request) { sb = append(sb, j.ID) })
			if !slices.Equal(sa, sb) {
				t.Fatalf("%s: pass started %v (fast) vs %v (ref)", where("pass"), sa, sb)
			}
			check("pass")
		}
	}
}

// setRef makes s run the literal admission tests of ref_test.go, with
// every search from now (no fit memo).
func setRef(s *Policy) {
	f := map[string]func(int64, *djob) bool{"qops": s.refQops, "msb": s.refMsb, "mrt": s.refMrt}[s.kind]
	s.refAdmit = func(now int64, x *djob) bool {
		s.fm.reset(0)
		return f(now, x)
	}
}
