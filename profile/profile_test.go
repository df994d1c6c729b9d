package profile

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// model is a brute-force profile: free processors per second on [0, horizon).
type model struct {
	procs int
	free  []int
}

func newModel(procs, horizon int) *model {
	m := &model{procs: procs, free: make([]int, horizon)}
	for i := range m.free {
		m.free[i] = procs
	}
	return m
}

func (m *model) minFree(s, e int64) int {
	r := m.procs
	for t := s; t < e; t++ {
		if t >= 0 && t < int64(len(m.free)) && m.free[t] < r {
			r = m.free[t]
		}
	}
	return r
}

func (m *model) maxFree(s, e int64) int {
	if e <= s {
		return 0
	}
	r := 0
	for t := s; t < e; t++ {
		f := m.procs
		if t >= 0 && t < int64(len(m.free)) {
			f = m.free[t]
		}
		r = max(r, f)
	}
	return r
}

// earliest is the first t ≥ after with minFree(t, t+dur) ≥ n, found by one
// forward scan that counts the instants in a row with n free.
func (m *model) earliest(after, dur int64, n int) int64 {
	run := int64(0)
	for x := after; ; x++ {
		if run >= dur {
			return x - run
		}
		if m.minFree(x, x+1) >= n {
			run++
		} else {
			run = 0
		}
	}
}

func TestEarliestFitWorkedExample(t *testing.T) {
	// 10 processors; 6 busy on [0,10), 8 busy on [10,20).
	p := New(10)
	mustAdd(t, p, 0, 10, 6)
	mustAdd(t, p, 10, 20, 8)
	cases := []struct {
		after, dur int64
		n          int
		want       int64
	}{
		{0, 5, 4, 0},   // fits now
		{0, 15, 4, 20}, // the second hold blocks 4 from 10 to 20
		{0, 15, 2, 0},  // 2 fit throughout
		{0, 1, 5, 20},  // 5 never free before 20
		{3, 7, 4, 3},   // fits exactly up to the breakpoint
		{0, 1, 10, 20},
		{25, 100, 10, 25},
	}
	for _, c := range cases {
		if got := p.EarliestFit(c.after, c.dur, c.n); got != c.want {
			t.Errorf("EarliestFit(%d,%d,%d) = %d, want %d", c.after, c.dur, c.n, got, c.want)
		}
	}
	if err := p.Add(5, 12, 3); err == nil {
		t.Errorf("Add over capacity succeeded")
	}
	if err := p.Remove(0, 30, 1); err == nil {
		t.Errorf("Remove of never-held capacity succeeded")
	}
}

func mustAdd(t *testing.T, p *Profile, s, e int64, n int) {
	t.Helper()
	if err := p.Add(s, e, n); err != nil {
		t.Fatal(err)
	}
}

// TestAgainstModel applies random holds and releases to the profile and to a
// per-second model and compares every query. The first configuration is the
// original one (small machines, few holds); the others grow the machine and
// the number of live holds, and advance a clock: holds start at or after
// now, early ends release the rest of a hold from now (as policy.Running
// does), and the profile forgets the past, so that only queries at or after
// now are compared.
func TestAgainstModel(t *testing.T) {
	configs := []struct {
		seeds, steps, maxProcs, horizon, maxDur int
		clock                                   bool
		lim                                     int // block capacity; 0: default
	}{
		{200, 60, 16, 400, 50, false, 0},
		{200, 60, 16, 400, 50, false, 2},
		{200, 300, 64, 2000, 200, false, 0},
		{200, 300, 64, 2000, 200, false, 5},
		{100, 800, 200, 3000, 300, true, 0},
		{100, 800, 200, 3000, 300, true, 8},
		{20, 3000, 1000, 10000, 600, true, 0},
		{20, 3000, 1000, 10000, 600, true, 16},
	}
	for ci, c := range configs {
		if longtest.Short() && c.steps > 1000 {
			continue
		}
		for seed := uint64(1); seed <= uint64(c.seeds); seed++ {
			checkAgainstModel(t, ci, seed, c.steps, c.maxProcs, c.horizon, c.maxDur, c.clock, c.lim)
		}
	}
}

func checkAgainstModel(t *testing.T, ci int, seed uint64, steps, maxProcs, horizon, maxDur int, clock bool, lim int) {
	r := rand.New(rand.NewPCG(seed, 7+uint64(ci)))
	procs := 1 + r.IntN(maxProcs)
	p := New(procs)
	if lim > 0 {
		p.lim = lim
		p.fan = max(3, lim)
	}
	m := newModel(procs, horizon+4*maxDur*steps+1000)
	type hold struct {
		s, e int64
		n    int
	}
	var held []hold
	now := int64(0)
	for step := 0; step < steps; step++ {
		if clock && r.IntN(4) == 0 {
			now += int64(r.IntN(maxDur / 4))
			p.Forget(now)
			// drop holds that ended
			k := 0
			for _, h := range held {
				if h.e > now {
					held[k] = h
					k++
				}
			}
			held = held[:k]
		}
		switch {
		case len(held) > 0 && r.IntN(3) == 0:
			k := r.IntN(len(held))
			h := held[k]
			held = append(held[:k], held[k+1:]...)
			s := max(h.s, now)
			if clock && r.IntN(2) == 0 && h.e-1 > s {
				// an early end: release only the rest
				s += int64(r.IntN(int(h.e - s)))
				s = max(s, now)
			}
			if err := p.Remove(s, h.e, h.n); err != nil {
				t.Fatalf("config %d seed %d: %v", ci, seed, err)
			}
			for x := s; x < h.e; x++ {
				m.free[x] += h.n
			}
			if s > h.s {
				held = append(held, hold{h.s, s, h.n})
			}
		case len(held) > 0 && r.IntN(4) == 0:
			// move a hold earlier, as compression does
			k := r.IntN(len(held))
			h := held[k]
			if h.s <= now {
				break
			}
			after := now + int64(r.IntN(int(h.s-now)+1))
			dur := h.e - h.s
			got := p.EarliestFitMoving(after, dur, h.n, h.s)
			for x := h.s; x < h.e; x++ {
				m.free[x] += h.n
			}
			want := min(m.earliest(after, dur, h.n), h.s)
			for x := h.s; x < h.e; x++ {
				m.free[x] -= h.n
			}
			if got != want {
				t.Fatalf("config %d seed %d: EarliestFitMoving(%d,%d,%d,%d)=%d want %d", ci, seed, after, dur, h.n, h.s, got, want)
			}
			if got < h.s && r.IntN(2) == 0 {
				p.Move(h.s, got, dur, h.n) // the compression's unchecked move
			} else if got < h.s {
				if err := p.Remove(h.s, h.e, h.n); err != nil {
					t.Fatalf("config %d seed %d: %v", ci, seed, err)
				}
				if err := p.Add(got, got+dur, h.n); err != nil {
					t.Fatalf("config %d seed %d: %v", ci, seed, err)
				}
			}
			if got < h.s {
				for x := h.s; x < h.e; x++ {
					m.free[x] += h.n
				}
				for x := got; x < got+dur; x++ {
					m.free[x] -= h.n
				}
				held[k] = hold{got, got + dur, h.n}
			}
		default:
			n := 1 + r.IntN(procs)
			if r.IntN(3) > 0 {
				n = 1 + r.IntN(1+procs/8)
			}
			dur := int64(1 + r.IntN(maxDur))
			after := now + int64(r.IntN(horizon/4))
			s := p.EarliestFit(after, dur, n)
			if want := m.earliest(after, dur, n); s != want {
				t.Fatalf("config %d seed %d: EarliestFit(%d,%d,%d)=%d want %d\n%v", ci, seed, after, dur, n, s, want, p.Steps())
			}
			if err := p.Add(s, s+dur, n); err != nil {
				t.Fatalf("config %d seed %d: %v", ci, seed, err)
			}
			for x := s; x < s+dur; x++ {
				m.free[x] -= n
			}
			held = append(held, hold{s, s + dur, n})
		}
		for q := 0; q < 5; q++ {
			a := now + int64(r.IntN(horizon))
			b := a + int64(r.IntN(3*maxDur/2))
			if got, want := p.MinFree(a, b), m.minFree(a, b); got != want {
				t.Fatalf("config %d seed %d: MinFree(%d,%d)=%d want %d", ci, seed, a, b, got, want)
			}
			if got, want := p.MaxFree(a, b), m.maxFree(a, b); got != want {
				t.Fatalf("config %d seed %d: MaxFree(%d,%d)=%d want %d", ci, seed, a, b, got, want)
			}
			if got, want := p.FreeAt(a), m.free[a]; got != want {
				t.Fatalf("config %d seed %d: FreeAt(%d)=%d want %d", ci, seed, a, got, want)
			}
			n := r.IntN(procs + 2)
			d := int64(r.IntN(maxDur))
			if got, want := p.Fits(a, d, n), m.minFree(a, a+d) >= n; got != want {
				t.Fatalf("config %d seed %d: Fits(%d,%d,%d)=%v want %v", ci, seed, a, d, n, got, want)
			}
		}
		// steps are canonical: strictly increasing, no equal neighbours
		st := p.Steps()
		for i := range st {
			if i > 0 && (st[i].At <= st[i-1].At || st[i].Free == st[i-1].Free) {
				t.Fatalf("config %d seed %d: non-canonical steps %v", ci, seed, st)
			}
		}
		if len(st) > 0 && st[len(st)-1].Free != procs {
			t.Fatalf("config %d seed %d: last step not fully free: %v", ci, seed, st)
		}
		if len(st) != p.Len() {
			t.Fatalf("config %d seed %d: Len %d, %d steps", ci, seed, p.Len(), len(st))
		}
		if clock && len(held) > 0 && len(st) > 2*len(held)+1 {
			t.Fatalf("config %d seed %d: %d breakpoints for %d holds after Forget", ci, seed, len(st), len(held))
		}
	}
}

func TestForget(t *testing.T) {
	p := New(4)
	mustAdd(t, p, 0, 10, 2)
	mustAdd(t, p, 5, 20, 1)
	p.Forget(7)
	if got := p.FreeAt(7); got != 1 {
		t.Fatalf("FreeAt(7) after Forget = %d, want 1", got)
	}
	if got := p.FreeAt(12); got != 3 {
		t.Fatalf("FreeAt(12) = %d, want 3", got)
	}
	if p.Steps()[0].At != 7 {
		t.Fatalf("first step at %d, want 7", p.Steps()[0].At)
	}
}

func TestPrefixMax(t *testing.T) {
	for seed := uint64(1); seed <= 100; seed++ {
		r := rand.New(rand.NewPCG(seed, 11))
		p := New(8)
		if seed%2 == 0 { // small blocks: walks and restarts across blocks
			p.lim, p.fan = 4, 3
		}
		for k := 0; k < 20; k++ {
			s := int64(r.IntN(200))
			d := int64(1 + r.IntN(40))
			n := 1 + r.IntN(8)
			if p.MinFree(s, s+d) >= n {
				mustAdd(t, p, s, s+d, n)
			}
		}
		from := int64(r.IntN(100))
		pm := p.PrefixMax(from)
		x := from
		for k := 0; k < 30; k++ {
			x += int64(r.IntN(20))
			if r.IntN(4) == 0 { // restart the walk, already at x
				pm = p.PrefixMaxAt(from, x)
			}
			if got, want := pm.Before(x), p.MaxFree(from, x); got != want {
				t.Fatalf("seed %d: PrefixMax(%d).Before(%d)=%d, MaxFree=%d; steps %v", seed, from, x, got, want, p.Steps())
			}
		}
	}
}

// TestPrefixMaxKept: a walk carried over a change that raised used counts
// only on [lo, hi) before its point (a new hold there) and anything at or
// after it (a hold added, another removed) goes on with the values a walk
// started afresh gives, whenever PrefixMaxKept accepts it; it accepts often
// (walks of one and many blocks, restarted walks too).
func TestPrefixMaxKept(t *testing.T) {
	kept, tries := 0, 0
	for seed := uint64(1); seed <= 400; seed++ {
		r := rand.New(rand.NewPCG(seed, 29))
		p := New(8)
		if seed%2 == 0 {
			p.lim, p.fan = 4, 3
		}
		type hold struct {
			s, e int64
			n    int
		}
		var held []hold
		add := func(s, e int64, n int) {
			if e > s && p.MinFree(s, e) >= n {
				mustAdd(t, p, s, e, n)
				held = append(held, hold{s, e, n})
			}
		}
		for k := 0; k < 40; k++ {
			s := int64(r.IntN(300))
			add(s, s+int64(1+r.IntN(40)), 1+r.IntN(8))
		}
		from := int64(r.IntN(100))
		pm := p.PrefixMax(from)
		if seed%3 == 0 { // a walk started by a range query
			pm = p.PrefixMaxAt(from, from+int64(r.IntN(50)))
		}
		x := pm.upto
		for k := 0; k < 20; k++ {
			x += int64(r.IntN(25))
			pm.Before(x)
			if r.IntN(2) == 0 {
				continue
			}
			// raise used on [lo, hi) before x, change things at or after x
			lo := from + int64(r.IntN(int(x-from)+1))
			hi := min(x, lo+int64(1+r.IntN(30)))
			// changes that start or end at or next to the instant where
			// the walk's largest count is
			if a := pm.arg; a > from && a+1 < x {
				switch r.IntN(6) {
				case 0, 1:
					lo = a + int64(r.IntN(2))
					hi = min(x, lo+int64(1+r.IntN(30)))
				case 2, 3:
					hi = a + int64(r.IntN(2))
					lo = max(from, hi-int64(1+r.IntN(30)))
				}
			}
			add(lo, hi, 1+r.IntN(3))
			if after := x + int64(r.IntN(40)); r.IntN(2) == 0 {
				add(after, after+int64(1+r.IntN(40)), 1+r.IntN(4))
			}
			for i, h := range held {
				if h.s >= x && r.IntN(3) == 0 {
					if err := p.Remove(h.s, h.e, h.n); err != nil {
						t.Fatal(err)
					}
					held = append(held[:i], held[i+1:]...)
					break
				}
			}
			tries++
			if k, ok := p.PrefixMaxKept(pm, lo, hi); ok {
				kept++
				pm = k
			} else {
				pm = p.PrefixMaxAt(from, x)
			}
			for y, end := x, x+60; y < end; y += int64(1 + r.IntN(15)) {
				if got, want := pm.Before(y), p.MaxFree(from, y); got != want {
					t.Fatalf("seed %d: after a change on [%d, %d), walk from %d at %d: Before(%d) = %d, MaxFree %d; steps %v", seed, lo, hi, from, x, y, got, want, p.Steps())
				}
				x = y
			}
		}
	}
	if kept < tries/4 {
		t.Fatalf("PrefixMaxKept accepted %d of %d changes", kept, tries)
	}
}

// TestEarliestFitMoving: equal to removing the own hold, EarliestFit, and
// capping at the own start, on random profiles with many coincident
// boundaries.
func TestEarliestFitMoving(t *testing.T) {
	for seed := uint64(1); seed <= 2000; seed++ {
		r := rand.New(rand.NewPCG(seed, 13))
		procs := 1 + r.IntN(10)
		p := New(procs)
		for k := 0; k < 1+r.IntN(15); k++ {
			s := int64(r.IntN(20) * 5)
			d := int64(1+r.IntN(8)) * 5
			n := 1 + r.IntN(procs)
			if p.MinFree(s, s+d) >= n {
				mustAdd(t, p, s, s+d, n)
			}
		}
		n := 1 + r.IntN(procs)
		dur := int64(1+r.IntN(8)) * 5
		own := p.EarliestFit(int64(r.IntN(20)*5), dur, n)
		mustAdd(t, p, own, own+dur, n)
		after := int64(r.IntN(20) * 5)
		if after > own {
			after = own
		}
		got := p.EarliestFitMoving(after, dur, n, own)
		if err := p.Remove(own, own+dur, n); err != nil {
			t.Fatal(err)
		}
		want := min(p.EarliestFit(after, dur, n), own)
		if got != want {
			t.Fatalf("seed %d: EarliestFitMoving(%d,%d,%d,own=%d)=%d want %d; steps %v", seed, after, dur, n, own, got, want, p.Steps())
		}
	}
}

func TestAppendStepsIsSteps(t *testing.T) {
	p := New(10)
	for i := int64(0); i < 300; i++ {
		if err := p.Add(i*3, i*3+50, 1+int(i%3)); err != nil {
			break
		}
	}
	buf := []Step{{At: -1, Free: -1}}
	got := p.AppendSteps(buf)
	want := p.Steps()
	if len(got) != len(want)+1 || got[0] != buf[0] {
		t.Fatalf("AppendSteps: %d steps after the prefix, Steps: %d", len(got)-1, len(want))
	}
	for i := range want {
		if got[i+1] != want[i] {
			t.Fatalf("step %d: %v, want %v", i, got[i+1], want[i])
		}
	}
}

// TestAppendStepsUntilIsCut compares AppendStepsUntil with the steps of
// AppendSteps at or before the cut, for cuts before, inside, on and after
// the breakpoints of a many-block profile.
func TestAppendStepsUntilIsCut(t *testing.T) {
	p := New(10)
	for i := int64(0); i < 300; i++ {
		if err := p.Add(i*3, i*3+50, 1+int(i%3)); err != nil {
			break
		}
	}
	all := p.Steps()
	for _, cut := range []int64{-5, 0, 1, 3, 4, 299, 300, 301, 600, 1000, 1 << 40} {
		var want []Step
		for _, st := range all {
			if st.At <= cut {
				want = append(want, st)
			}
		}
		got := p.AppendStepsUntil(nil, cut)
		if !slices.Equal(got, want) {
			t.Fatalf("cut %d: %d steps, want %d", cut, len(got), len(want))
		}
	}
}

// TestMoveIsRemoveAdd moves random holds earlier and later, overlapping
// their old place or not, on one- and many-block profiles, and compares
// the steps with Remove then Add on a copy.
func TestMoveIsRemoveAdd(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 23))
		p := New(16)
		if seed%2 == 0 {
			p.lim, p.fan = 4, 3
		}
		type hold struct {
			s, d int64
			n    int
		}
		var held []hold
		for k := 0; k < 60; k++ {
			s, d, n := int64(r.IntN(300)), int64(1+r.IntN(50)), 1+r.IntN(16)
			if p.MinFree(s, s+d) >= n {
				mustAdd(t, p, s, s+d, n)
				held = append(held, hold{s, d, n})
			}
		}
		for k := 0; k < 100 && len(held) > 0; k++ {
			i := r.IntN(len(held))
			h := held[i]
			to := max(0, h.s+int64(r.IntN(2*int(h.d)+20))-h.d-10)
			ref := New(16)
			ref.CopyFrom(p)
			if err := ref.Remove(h.s, h.s+h.d, h.n); err != nil {
				t.Fatal(err)
			}
			if ref.MinFree(to, to+h.d) < h.n {
				continue // no room there
			}
			if err := ref.Add(to, to+h.d, h.n); err != nil {
				t.Fatal(err)
			}
			p.Move(h.s, to, h.d, h.n)
			if got, want := p.Steps(), ref.Steps(); !slices.Equal(got, want) {
				t.Fatalf("seed %d: Move(%d, %d, %d, %d): %v, want %v", seed, h.s, to, h.d, h.n, got, want)
			}
			for q := 0; q < 5; q++ { // the summaries too
				a := int64(r.IntN(350))
				b := a + int64(r.IntN(80))
				if p.MinFree(a, b) != ref.MinFree(a, b) || p.MaxFree(a, b) != ref.MaxFree(a, b) {
					t.Fatalf("seed %d: after Move, MinFree/MaxFree(%d, %d) %d/%d, want %d/%d", seed, a, b, p.MinFree(a, b), p.MaxFree(a, b), ref.MinFree(a, b), ref.MaxFree(a, b))
				}
			}
			held[i].s = to
		}
	}
}

// TestEarliestFitMovingBounded: with a budget of 1 to 25 blocking runs, the
// bounded search either gives EarliestFitMovingBefore's answer or stops at
// a start t, after ≤ t < min(limit, own), with no fit in [after, t) (the
// unbounded search from after and from t agree), on one- and many-block
// profiles (scan and tree mode).
func TestEarliestFitMovingBounded(t *testing.T) {
	gaveUp := 0
	for seed := uint64(1); seed <= 6000; seed++ {
		r := rand.New(rand.NewPCG(seed, 29))
		holds := 1 + r.IntN(60)
		if seed%3 == 0 {
			holds = 1 + r.IntN(200) // many blocks: tree mode
		}
		procs := 1 + r.IntN(10)
		p := New(procs)
		if seed%2 == 0 {
			p.lim, p.fan = 4, 3
		}
		for k := 0; k < holds; k++ {
			s := int64(r.IntN(2+holds*2) * 5)
			d := int64(1+r.IntN(8)) * 5
			n := 1 + r.IntN(procs)
			if p.MinFree(s, s+d) >= n {
				mustAdd(t, p, s, s+d, n)
			}
		}
		n := 1 + r.IntN(procs)
		dur := int64(1+r.IntN(8)) * 5
		own := p.EarliestFit(int64(r.IntN(60)*5), dur, n)
		mustAdd(t, p, own, own+dur, n)
		after := min(int64(r.IntN(60)*5), own)
		limit := after + int64(r.IntN(400))
		want := p.EarliestFitMovingBefore(after, dur, n, own, limit)
		budget := 1 + r.IntN(25)
		got, done := p.EarliestFitMovingBounded(after, dur, n, own, limit, budget)
		if done {
			if got != want {
				t.Fatalf("seed %d: bounded(%d,%d,%d,own=%d,limit=%d,budget=%d)=%d want %d; steps %v", seed, after, dur, n, own, limit, budget, got, want, p.Steps())
			}
			continue
		}
		gaveUp++
		if got < after || got >= min(limit, own) || p.EarliestFitMovingBefore(got, dur, n, own, limit) != want {
			t.Fatalf("seed %d: bounded(%d,%d,%d,own=%d,limit=%d,budget=%d) gave up at %d, answer %d; steps %v", seed, after, dur, n, own, limit, budget, got, want, p.Steps())
		}
	}
	if gaveUp < 100 {
		t.Fatalf("only %d searches gave up", gaveUp)
	}
}

// TestAddFittedIsAdd places holds at their earliest fits with AddFitted
// and with Add, on small blocks (holds that span blocks) and large, and
// compares the steps and the range summaries.
func TestAddFittedIsAdd(t *testing.T) {
	for seed := uint64(1); seed <= 200; seed++ {
		r := rand.New(rand.NewPCG(seed, 29))
		p, ref := New(16), New(16)
		if seed%2 == 0 {
			p.lim, p.fan = 4, 3
			ref.lim, ref.fan = 4, 3
		}
		for k := 0; k < 80; k++ {
			after, d, n := int64(r.IntN(300)), int64(1+r.IntN(50)), 1+r.IntN(16)
			s := p.EarliestFit(after, d, n)
			if s != ref.EarliestFit(after, d, n) {
				t.Fatalf("seed %d: the profiles differ before hold %d", seed, k)
			}
			e := s + 1 + int64(r.IntN(int(d))) // a part of the window that starts it
			p.AddFitted(s, e, n)
			mustAdd(t, ref, s, e, n)
			if got, want := p.Steps(), ref.Steps(); !slices.Equal(got, want) {
				t.Fatalf("seed %d: AddFitted(%d, %d, %d): %v, want %v", seed, s, e, n, got, want)
			}
			a := int64(r.IntN(350))
			b := a + int64(r.IntN(80))
			if p.MinFree(a, b) != ref.MinFree(a, b) || p.MaxFree(a, b) != ref.MaxFree(a, b) {
				t.Fatalf("seed %d: MinFree/MaxFree(%d, %d) %d/%d, want %d/%d", seed, a, b, p.MinFree(a, b), p.MaxFree(a, b), ref.MinFree(a, b), ref.MaxFree(a, b))
			}
		}
	}
}
