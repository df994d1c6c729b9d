package profile

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// multiModel is the brute-force oracle for Multi: a list of holds, with
// free capacity computed by summing them.
type multiModel struct {
	caps  []int
	holds []mhold
}

type mhold struct {
	s, e int64
	need []int
}

func (m *multiModel) freeAt(t int64, i int) int {
	f := m.caps[i]
	for _, h := range m.holds {
		if h.s <= t && t < h.e {
			f -= h.need[i]
		}
	}
	return f
}

// fitsOver reports whether need is free over [s, e): checked at s and at
// every hold start inside.
func (m *multiModel) fitsOver(s, e int64, need []int) bool {
	if e <= s {
		return true
	}
	pts := []int64{s}
	for _, h := range m.holds {
		if h.s > s && h.s < e {
			pts = append(pts, h.s)
		}
	}
	for _, t := range pts {
		for i := range m.caps {
			if need[i] > 0 && m.freeAt(t, i) < need[i] {
				return false
			}
		}
	}
	return true
}

func (m *multiModel) earliest(after, dur int64, need []int, stop int64) int64 {
	for i := range need {
		if need[i] > m.caps[i] {
			return Infinity
		}
	}
	cands := []int64{after}
	for _, h := range m.holds {
		if h.e > after {
			cands = append(cands, h.e)
		}
	}
	slices.Sort(cands)
	for _, t := range cands {
		if t >= stop {
			return stop
		}
		if m.fitsOver(t, min(t+dur, stop), need) {
			return t
		}
	}
	return stop
}

func TestMultiAgainstModel(t *testing.T) {
	n := 400
	if longtest.Short() {
		n = 80
	}
	for seed := uint64(1); seed <= uint64(n); seed++ {
		r := rand.New(rand.NewPCG(seed, 77))
		checkMulti(t, fmt.Sprintf("seed %d", seed), r.IntN, seed%3 == 0, 150)
	}
}

// FuzzMulti drives checkMulti with the fuzzer's bytes as the source of
// every choice (K, capacities, operations, arguments).
func FuzzMulti(f *testing.F) {
	f.Add([]byte{2, 5, 9, 0, 3, 1, 4, 10, 2, 2, 0, 9, 7, 1, 3, 3, 8, 0, 5, 6, 2, 9, 9, 9, 1, 0, 4, 2})
	f.Add([]byte{0, 0, 0, 1, 1, 1, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9})
	f.Fuzz(func(t *testing.T, data []byte) {
		i := 0
		intn := func(n int) int {
			if i >= len(data) {
				return 0
			}
			v := int(data[i])
			i++
			return v % n
		}
		checkMulti(t, "fuzz", intn, len(data)%2 == 0, len(data)/3)
	})
}

// checkMulti applies steps random operations, each choice drawn with intn,
// to a Multi and to the brute-force model and fails at the first
// difference; small sets tiny block and node capacities.
func checkMulti(t *testing.T, name string, intn func(int) int, small bool, steps int) {
	t.Helper()
	K := 1 + intn(4)
	caps := make([]int, K)
	for i := range caps {
		caps[i] = 1 + intn(20)
	}
	m, err := NewMulti(caps)
	if err != nil {
		t.Fatal(err)
	}
	if small { // small blocks: exercise the tree
		for _, p := range m.res {
			p.lim, p.fan = 4, 3
		}
	}
	model := &multiModel{caps: caps}
	var now int64
	randNeed := func() []int {
		need := make([]int, K)
		for i := range need {
			switch intn(4) {
			case 0:
				need[i] = 0
			case 1:
				need[i] = caps[i]
			default:
				need[i] = intn(caps[i] + 1)
			}
		}
		if intn(20) == 0 {
			need[intn(K)] = caps[0] + 5 // sometimes more than some capacity
		}
		return need
	}
	for step := 0; step < steps; step++ {
		switch op := intn(10); {
		case op < 4: // add
			s := now + int64(intn(60))
			e := s + 1 + int64(intn(40))
			need := randNeed()
			ok := model.fitsOver(s, e, need)
			for i := range need {
				ok = ok && need[i] <= caps[i]
			}
			err := m.Add(s, e, need)
			if (err == nil) != ok {
				t.Fatalf("%s step %d: Add(%d,%d,%v) err=%v, model fits=%v", name, step, s, e, need, err, ok)
			}
			if ok {
				model.holds = append(model.holds, mhold{s, e, need})
			}
		case op < 6 && len(model.holds) > 0: // remove
			k := intn(len(model.holds))
			h := model.holds[k]
			s := max(h.s, now)
			if s >= h.e {
				model.holds = slices.Delete(model.holds, k, k+1)
				continue
			}
			if err := m.Remove(s, h.e, h.need); err != nil {
				t.Fatalf("%s step %d: Remove: %v", name, step, err)
			}
			model.holds = slices.Delete(model.holds, k, k+1)
		case op < 7: // advance time and forget
			now += int64(intn(30))
			m.Forget(now)
			// holds are clipped at now in the model
			kept := model.holds[:0]
			for _, h := range model.holds {
				if h.e > now {
					h.s = max(h.s, now)
					kept = append(kept, h)
				}
			}
			model.holds = kept
		case op < 8: // releasing what was never held fails
			need := make([]int, K)
			k := intn(K)
			need[k] = caps[k] + 1
			s := now + int64(intn(50))
			if err := m.Remove(s, s+5, need); err == nil {
				t.Fatalf("%s: Remove of an unheld amount succeeded", name)
			}
		default: // queries
			after := now + int64(intn(80))
			dur := 1 + int64(intn(50))
			need := randNeed()
			for i := range K {
				if got, want := m.Res(i).FreeAt(after), model.freeAt(after, i); got != want {
					t.Fatalf("%s step %d: FreeAt(%d)[%d] = %d, want %d", name, step, after, i, got, want)
				}
			}
			got := m.EarliestFit(after, dur, need)
			want := model.earliest(after, dur, need, Infinity)
			if got != want {
				t.Fatalf("%s step %d: EarliestFit(%d,%d,%v) = %d, want %d", name, step, after, dur, need, got, want)
			}
			fits := true
			for i := range need {
				fits = fits && need[i] <= caps[i]
			}
			fits = fits && model.fitsOver(after, after+dur, need)
			if m.Fits(after, dur, need) != fits {
				t.Fatalf("%s step %d: Fits(%d,%d,%v) = %v", name, step, after, dur, need, !fits)
			}
			if len(model.holds) > 0 {
				h := model.holds[intn(len(model.holds))]
				if h.e-h.s >= 1 {
					after := now + int64(intn(int(h.s-now)+1))
					got := m.EarliestFitMoving(after, h.e-h.s, h.need, h.s)
					want := h.s
					if after < h.s {
						want = model.earliest(after, h.e-h.s, h.need, h.s)
					}
					if got != want {
						t.Fatalf("%s step %d: EarliestFitMoving(%d,%d,%v,%d) = %d, want %d", name, step, after, h.e-h.s, h.need, h.s, got, want)
					}
					// restricted to starts before a limit: the same answer
					// when it is before the limit, else the own start
					limit := now + int64(intn(int(h.s-now)+2))
					wantB := want
					if want >= limit {
						wantB = h.s
					}
					if got := m.EarliestFitMovingBefore(after, h.e-h.s, h.need, h.s, limit); got != wantB {
						t.Fatalf("%s step %d: EarliestFitMovingBefore(%d,%d,%v,%d,%d) = %d, want %d", name, step, after, h.e-h.s, h.need, h.s, limit, got, wantB)
					}
				}
			}
		}
	}
}

// TestMultiK1IsScalar: with one resource every query is the scalar
// profile's.
func TestMultiK1IsScalar(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	m, _ := NewMulti([]int{16})
	p := New(16)
	for range 2000 {
		s := int64(r.IntN(500))
		e := s + 1 + int64(r.IntN(100))
		n := 1 + r.IntN(16)
		if p.Add(s, e, n) == nil {
			if err := m.Add(s, e, []int{n}); err != nil {
				t.Fatal(err)
			}
		} else if m.Add(s, e, []int{n}) == nil {
			t.Fatal("Multi accepted a hold the scalar profile refused")
		}
		after, dur, k := int64(r.IntN(600)), int64(1+r.IntN(80)), 1+r.IntN(16)
		if a, b := m.EarliestFit(after, dur, []int{k}), p.EarliestFit(after, dur, k); a != b {
			t.Fatalf("EarliestFit %d vs %d", a, b)
		}
	}
}

func TestMultiErrors(t *testing.T) {
	if _, err := NewMulti(nil); err == nil {
		t.Error("no resources accepted")
	}
	if _, err := NewMulti([]int{4, 0}); err == nil {
		t.Error("zero capacity accepted")
	}
	m, _ := NewMulti([]int{4, 8})
	if err := m.Add(0, 10, []int{1}); err == nil {
		t.Error("short vector accepted")
	}
	if err := m.Add(0, 10, []int{2, 9}); err == nil {
		t.Error("over capacity accepted")
	}
	if f := m.FreeAt(5, nil); f[0] != 4 || f[1] != 8 {
		t.Errorf("failed Add changed the profile: %v", f)
	}
	if got := m.EarliestFit(0, 5, []int{5, 1}); got != Infinity {
		t.Errorf("EarliestFit of an impossible job = %d", got)
	}
}
