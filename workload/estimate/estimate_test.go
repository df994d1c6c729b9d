package estimate

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/workload"
)

func kth(t *testing.T, opts workload.Options) []job.Job {
	t.Helper()
	tr, err := workload.Builtin(opts)
	if err != nil {
		t.Fatal(err)
	}
	return tr.Jobs
}

func apply(t *testing.T, jobs []job.Job, spec string, seed uint64) []job.Job {
	t.Helper()
	out := slices.Clone(jobs)
	if _, err := Apply(out, spec, seed); err != nil {
		t.Fatal(err)
	}
	return out
}

func estimates(jobs []job.Job) []int64 {
	e := make([]int64, len(jobs))
	for i := range jobs {
		e[i] = jobs[i].Estimate
	}
	return e
}

func TestUserExactDouble(t *testing.T) {
	user := kth(t, workload.Options{})
	if got := apply(t, user, "user", 1); !slices.Equal(estimates(got), estimates(user)) {
		t.Fatal("user changed the estimates")
	}
	exact := kth(t, workload.Options{Estimate: "exact"})
	if got := apply(t, user, "exact", 1); !slices.Equal(estimates(got), estimates(exact)) {
		t.Fatal("exact differs from the workload's exact estimates")
	}
	d := apply(t, user, "double", 1)
	for i := range d {
		if d[i].Estimate != 2*user[i].Estimate {
			t.Fatalf("job %d: double gives %d for %d", i, d[i].Estimate, user[i].Estimate)
		}
	}
	big := []job.Job{{Request: job.Request{Estimate: MaxEstimate - 1}}}
	if Double.Apply(Double{}, big, nil); big[0].Estimate != MaxEstimate {
		t.Fatalf("double of a huge estimate: %d", big[0].Estimate)
	}
}

func TestFactorBoundsAndSeeding(t *testing.T) {
	user := kth(t, workload.Options{})
	exact := kth(t, workload.Options{Estimate: "exact"})
	// f = 1 is exact, whatever the seed
	for _, seed := range []uint64{1, 2, 99} {
		if got := apply(t, user, "factor:1", seed); !slices.Equal(estimates(got), estimates(exact)) {
			t.Fatalf("factor:1 (seed %d) differs from exact", seed)
		}
	}
	for _, f := range []float64{1.5, 3, 10} {
		spec := Factor{F: f}.Spec()
		a := apply(t, user, spec, 7)
		b := apply(t, user, spec, 7)
		c := apply(t, user, spec, 8)
		if !slices.Equal(estimates(a), estimates(b)) {
			t.Fatalf("%s: same seed, different estimates", spec)
		}
		if slices.Equal(estimates(a), estimates(c)) {
			t.Fatalf("%s: seeds 7 and 8 give the same estimates", spec)
		}
		// bounds, and the position in [r, fr] is uniform (mean 1/2)
		var pos float64
		n := 0
		for i := range a {
			r, e := a[i].Runtime, a[i].Estimate
			if e < max(r, 1) || float64(e) > math.Max(1, math.Floor(f*float64(r))) {
				t.Fatalf("%s: job %d runtime %d estimate %d out of [r, fr]", spec, i, r, e)
			}
			if r >= 1000 {
				pos += float64(e-r) / ((f - 1) * float64(r))
				n++
			}
		}
		if m := pos / float64(n); math.Abs(m-0.5) > 0.02 {
			t.Fatalf("%s: mean relative position %.3f, want 0.5", spec, m)
		}
	}
}

func TestModalDistribution(t *testing.T) {
	user := kth(t, workload.Options{})
	for _, c := range []struct {
		spec  string
		M     int64
		atMax float64
	}{
		{"modal", 53400, DefaultAtMax()},
		{"modal:atmax=50", 53400, 50},
		{"modal:max=64800", 64800, DefaultAtMax()},
		{"modal:atmax=trace", 53400, 100 * 403.0 / 28475},
	} {
		a := slices.Clone(user)
		notes, err := Apply(a, c.spec, 3)
		if err != nil {
			t.Fatal(err)
		}
		var over, raised int
		if _, err := fmt.Sscanf(notes[3], "modal: %d jobs run longer than M and get estimate M; %d estimates raised", &over, &raised); err != nil {
			t.Fatalf("notes %q: %v", notes[3], err)
		}
		if b := apply(t, user, c.spec, 3); !slices.Equal(estimates(a), estimates(b)) {
			t.Fatalf("%s: same seed, different estimates", c.spec)
		}
		if b := apply(t, user, c.spec, 4); slices.Equal(estimates(a), estimates(b)) {
			t.Fatalf("%s: seeds 3 and 4 give the same estimates", c.spec)
		}
		count := map[int64]int{}
		for i := range a {
			e, r := a[i].Estimate, a[i].Runtime
			if e > c.M || e < 1 || e < min(r, c.M) {
				t.Fatalf("%s: job %d runtime %d estimate %d (M %d)", c.spec, i, r, e, c.M)
			}
			count[e]++
		}
		n := float64(len(a))
		if got := 100 * float64(count[c.M]) / n; math.Abs(got-c.atMax) > 0.01+100*float64(raised)/n {
			t.Errorf("%s: %.2f%% at M, want %.2f%%", c.spec, got, c.atMax)
		}
		head := 0
		for _, v := range headTimes(c.M) {
			head += count[v]
		}
		// raising an estimate to fit a long job moves that job to
		// another value
		if got := 100 * float64(head) / n; math.Abs(got-HeadShare) > 1+100*float64(raised)/n {
			t.Errorf("%s: the 20 head values cover %.1f%% of jobs, want about %g%%", c.spec, got, HeadShare)
		}
		if k := len(count); k < HeadSize || k > binCount(len(a)) {
			t.Errorf("%s: %d distinct values, want 20..%d", c.spec, k, binCount(len(a)))
		}
		// the round values the slides name are among the popular ones
		for _, v := range []int64{5 * minute, 15 * minute, 30 * minute, hour, 2 * hour} {
			if 100*float64(count[v])/n < 0.5 {
				t.Errorf("%s: round value %d s used by %.2f%% of jobs only", c.spec, v, 100*float64(count[v])/n)
			}
		}
	}
	if d := DefaultAtMax(); math.Abs(d-21.73) > 0.01 {
		t.Errorf("DefaultAtMax = %.4f, want 21.73", d)
	}
}

func TestModalSmallAndOdd(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for _, n := range []int{0, 1, 2, 7, 30, 250} {
		jobs := make([]job.Job, n)
		for i := range jobs {
			jobs[i] = job.Job{Request: job.Request{ID: i, Estimate: 1 + r.Int64N(100)}, Runtime: r.Int64N(200000)}
			if i%3 == 0 {
				jobs[i].Runtime = 0
			}
		}
		for _, spec := range []string{"modal", "modal:atmax=89", "modal:atmax=trace", "modal:max=3600"} {
			out := apply(t, jobs, spec, 5)
			for i := range out {
				if out[i].Estimate < 1 {
					t.Fatalf("n=%d %s: estimate %d", n, spec, out[i].Estimate)
				}
			}
		}
	}
}

func TestHeadTimes(t *testing.T) {
	h := headTimes(18 * hour)
	if len(h) != HeadSize || h[0] != 18*hour {
		t.Fatalf("head %v", h)
	}
	for _, v := range jointValues[:len(jointValues)-1] { // all but 18 h, which is M
		if !slices.Contains(h, v) {
			t.Errorf("head for M = 18 h lacks %d", v)
		}
	}
	if !slices.IsSorted(h[1:]) {
		t.Errorf("head not in time order: %v", h)
	}
	// ranks form a permutation with M most popular
	for seed := uint64(0); seed < 50; seed++ {
		for _, n := range []int{5, 12, 20} {
			rk := mapRanks(n, rand.New(rand.NewPCG(seed, 0)))
			s := slices.Clone(rk)
			slices.Sort(s)
			for i := range s {
				if s[i] != i+1 {
					t.Fatalf("mapRanks(%d) = %v is not a permutation", n, rk)
				}
			}
			if rk[0] != 1 {
				t.Fatalf("M has rank %d", rk[0])
			}
		}
	}
}

func TestParse(t *testing.T) {
	for _, ok := range []string{"user", "exact", "double", "factor:1", "factor:2.5", "modal", "modal:atmax=40", "modal:max=64800", "modal:atmax=trace:max=7200", "factor:f=2", " modal : max = 7200 "} {
		m, err := Parse(ok)
		if err != nil {
			t.Fatalf("%s: %v", ok, err)
		}
		if m2, err := Parse(m.Spec()); err != nil || m2.Spec() != m.Spec() {
			t.Fatalf("%s: spec %q does not round-trip", ok, m.Spec())
		}
	}
	for _, bad := range []string{"", "x", "factor", "factor:0.5", "factor:x", "factor:NaN", "factor:2:3", "user:1", "modal:atmax=0", "modal:atmax=95", "modal:max=60", "modal:foo=1", "modal:max", "modal:max=7200:max=3600", "factor:f=2:g=1", "factor:g=2", "modal:max=all"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) succeeded", bad)
		}
	}
	// errors of package spec's shape
	if _, err := Parse("modal:max=60"); err == nil || err.Error() != `estimate model modal: parameter max: expected an integer in [3600, 1099511627776], found "60"` {
		t.Errorf("modal:max=60: %v", err)
	}
	if _, err := Parse("factor:0.5"); err == nil || err.Error() != `estimate model factor: parameter f: expected a number in [1, 1000], found "0.5"` {
		t.Errorf("factor:0.5: %v", err)
	}
}
