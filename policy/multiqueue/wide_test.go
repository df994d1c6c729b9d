package multiqueue

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/job"
	"github.com/backfill-hpc/backfill/profile"
)

// wideByDefinition is the cross-partition reservation by its definition:
// the earliest t ≥ now, among now and every breakpoint of any partition
// after it, at which the partitions' least free counts over [t, t+e) sum
// to n or more, with those counts.
func wideByDefinition(prof []*profile.Profile, now int64, n int, e int64) (int64, []int) {
	times := []int64{now}
	for _, pr := range prof {
		for _, s := range pr.Steps() {
			if s.At > now {
				times = append(times, s.At)
			}
		}
	}
	slices.Sort(times)
	for _, t := range slices.Compact(times) {
		amt := make([]int, len(prof))
		sum := 0
		for p, pr := range prof {
			amt[p] = pr.MinFree(t, t+e)
			sum += amt[p]
		}
		if sum >= n {
			return t, amt
		}
	}
	panic("no fit")
}

// TestReserveWideByDefinition compares reserveWide (rising instants only,
// sliding window minima) with the definition on random partition
// profiles, and a second call on the same profiles (the memo) with the
// first, also at a later now.
func TestReserveWideByDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 22))
	for iter := range 3000 {
		q := 2 + rng.IntN(3)
		procs := q * (1 + rng.IntN(6))
		m, err := New(procs, Config{Bounds: DefaultBounds[:q-1]})
		if err != nil {
			t.Fatal(err)
		}
		now := int64(rng.IntN(20))
		for p, pr := range m.prof {
			for range rng.IntN(8) {
				s := now - 5 + int64(rng.IntN(40))
				d := 1 + int64(rng.IntN(30))
				if k := pr.MinFree(s, s+d); k > 0 {
					_ = pr.Add(s, s+d, 1+rng.IntN(k))
				}
			}
			if iter%2 == 0 {
				pr.Forget(now)
			}
			m.free[p] = pr.FreeAt(now)
		}
		n := 1 + rng.IntN(procs)
		e := 1 + int64(rng.IntN(25))
		qq := rng.IntN(q)
		wantT, wantAmt := wideByDefinition(m.prof, now, n, e)
		before := make([][]profile.Step, q)
		for p, pr := range m.prof {
			before[p] = pr.Steps()
		}
		m.reserveWide(now, qq, 1, n, e)
		check := func(label string, now int64) {
			t.Helper()
			got := 0
			need := n
			for k := range q {
				p := (qq + k) % q
				a := min(need, wantAmt[p])
				need -= a
				if a > 0 {
					h := m.holds[got]
					if h.p != p || h.start != wantT || h.end != wantT+e || h.n != a {
						t.Fatalf("iter %d %s (now %d, n %d, e %d): hold %+v, want partition %d [%d, %d) × %d", iter, label, now, n, e, h, p, wantT, wantT+e, a)
					}
					got++
				}
			}
			if got != len(m.holds) {
				t.Fatalf("iter %d %s: %d holds, want %d", iter, label, len(m.holds), got)
			}
			for _, h := range m.holds {
				_ = m.prof[h.p].Remove(h.start, h.end, h.n)
			}
			m.holds = m.holds[:0]
			for p, pr := range m.prof {
				if !slices.Equal(pr.Steps(), before[p]) {
					t.Fatalf("iter %d %s: partition %d's profile changed", iter, label, p)
				}
			}
		}
		check("first", now)
		// the memo: same profiles, now moved up to (at most) the time found
		later := now + int64(rng.IntN(int(wantT-now)+1))
		if later > now {
			for _, pr := range m.prof {
				pr.Forget(later)
			}
			for p, pr := range m.prof {
				before[p] = pr.Steps()
			}
			if t2, _ := wideByDefinition(m.prof, later, n, e); t2 != wantT {
				t.Fatalf("iter %d: the definition moved from %d to %d at now %d: the memo's premise is wrong", iter, wantT, t2, later)
			}
		}
		m.reserveWide(later, qq, 1, n, e)
		check("memo", later)
	}
}

// TestGiveByDefinition compares giveSteps, the backfill scan's test, with
// its definition: what the partitions give together for [now, now+e) is
// the sum of their least free counts over the window (MinFree), and what
// try sums (gives), for every e, on random partitions whose running jobs
// began by now and whose future falls are the pass's reservations
// (m.add), before and after starts (try).
func TestGiveByDefinition(t *testing.T) {
	rng := rand.New(rand.NewPCG(22, 7))
	for iter := range 2000 {
		q := 2 + rng.IntN(3)
		procs := q * (1 + rng.IntN(8))
		m, err := New(procs, Config{Bounds: DefaultBounds[:q-1]})
		if err != nil {
			t.Fatal(err)
		}
		now := int64(10 + rng.IntN(20))
		for _, pr := range m.prof {
			for range rng.IntN(6) { // running jobs: started by now
				s := now - int64(rng.IntN(10))
				d := now - s + 1 + int64(rng.IntN(30))
				if k := pr.MinFree(s, s+d); k > 0 {
					_ = pr.Add(s, s+d, 1+rng.IntN(k))
				}
			}
			pr.Forget(now)
		}
		total := 0
		for p, pr := range m.prof {
			m.free[p] = pr.FreeAt(now)
			m.first[p] = 1<<63 - 1
			m.nholds[p] = 0
			total += m.free[p]
		}
		m.gDirty = true
		for range rng.IntN(5) { // the pass's reservations
			p := rng.IntN(q)
			s := now + 1 + int64(rng.IntN(30))
			d := 1 + int64(rng.IntN(20))
			if k := m.prof[p].MinFree(s, s+d); k > 0 {
				m.add(p, s, s+d, 1+rng.IntN(k))
			}
		}
		check := func(label string) {
			t.Helper()
			for e := int64(1); e <= 70; e++ {
				def, sum := 0, 0
				for p, pr := range m.prof {
					def += pr.MinFree(now, now+e)
					m.memo[p].reset()
					if m.free[p] > 0 {
						sum += m.gives(p, now, e)
					}
				}
				if got := m.give(now, e); got != def || got != sum {
					t.Fatalf("iter %d %s: G(%d) = %d, MinFree sum %d, gives sum %d", iter, label, e, got, def, sum)
				}
			}
		}
		check("reservations")
		// starts: each job that fits (n ≤ G(e)) starts, and G follows
		for id := range 4 {
			n, e := 1+rng.IntN(procs), 1+int64(rng.IntN(40))
			fits := n <= m.give(now, e)
			m.qs[0].Push(&job.Request{ID: id, Procs: n, Estimate: e})
			pos, _ := m.qs[0].Head()
			if got := m.try(now, 0, pos, m.qs[0].At(pos), &total, func(*job.Request) {}); got != fits {
				t.Fatalf("iter %d: job %d×%d: try %v, G says %v", iter, n, e, got, fits)
			}
			if !fits {
				m.qs[0].Take(pos)
			}
			check("starts")
		}
	}
}
