package profile

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/backfill-hpc/backfill/internal/longtest"
)

// checkOps decodes a sequence of operations from data, applies each to the
// profile and to the slice-based reference (ref_test.go), and fails at the
// first difference in a result, an error, or the step list.
//
// data[0] chooses the machine size; then every 5 bytes are one operation
// (op, a, b, c, d). Times are small, so that breakpoints coincide often.
// It returns the largest number of breakpoints reached.
func checkOps(t testing.TB, data []byte) (maxLen int) {
	if len(data) == 0 {
		return 0
	}
	procs := 1 + int(data[0]%16)
	if data[0] >= 192 {
		procs = 1 + int(data[0])*7
	}
	data = data[1:]
	p, q := New(procs), newRef(procs)
	if len(data) > 0 {
		// small blocks, to exercise splits, merges and multi-block descents
		if l := int(data[0] % 16); l >= 2 {
			p.lim = l
		}
		if f := int(data[0] / 16); f >= 3 {
			p.fan = f
		}
		data = data[1:]
	}
	type hold struct {
		s, e int64
		n    int
	}
	var held []hold
	// a snapshot taken by CopyFrom, with the reference's copy
	snap, qSnap, heldSnap := New(1), (*refProfile)(nil), []hold(nil)
	time := func(b byte) int64 { return int64(b) - 16 }
	size := func(b byte) int {
		switch b % 8 {
		case 0:
			return int(b/8)%(procs+3) - 1 // includes 0, -1, > procs
		case 1, 2:
			return procs
		default:
			return 1 + int(b/8)%procs
		}
	}
	errText := func(err error) string {
		if err == nil {
			return "<nil>"
		}
		return err.Error()
	}
	var trace []string
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("procs %d, after %v:\n"+format, append([]any{procs, trace}, args...)...)
	}
	add := func(s, e int64, n int) {
		e1, e2 := p.Add(s, e, n), q.Add(s, e, n)
		trace = append(trace, fmt.Sprintf("Add(%d,%d,%d)", s, e, n))
		if errText(e1) != errText(e2) {
			fail("Add(%d,%d,%d): %v, reference %v", s, e, n, e1, e2)
		}
		if e1 == nil && e > s && n > 0 {
			held = append(held, hold{s, e, n})
		}
	}
	remove := func(s, e int64, n int) {
		e1, e2 := p.Remove(s, e, n), q.Remove(s, e, n)
		trace = append(trace, fmt.Sprintf("Remove(%d,%d,%d)", s, e, n))
		if errText(e1) != errText(e2) {
			fail("Remove(%d,%d,%d): %v, reference %v", s, e, n, e1, e2)
		}
	}
	for len(data) >= 5 {
		op, a, b, c, d := data[0], data[1], data[2], data[3], data[4]
		data = data[5:]
		switch op % 10 {
		case 0, 1:
			s := time(a)
			add(s, s+int64(b%64)-2, size(c))
		case 2:
			if len(held) > 0 && c%4 != 0 {
				k := int(d) % len(held)
				h := held[k]
				held = slices.Delete(held, k, k+1)
				s := h.s
				if c%4 == 3 && h.e-h.s > 1 {
					// release the tail only, as an early end does
					s += int64(b) % (h.e - h.s)
					if s > h.s {
						held = append(held, hold{h.s, s, h.n})
					}
				}
				remove(s, h.e, h.n)
			} else {
				s := time(a)
				remove(s, s+int64(b%64)-2, size(c))
			}
		case 3:
			after, dur, n := time(a), int64(b%64)-1, size(c)
			if got, want := p.EarliestFit(after, dur, n), q.EarliestFit(after, dur, n); got != want {
				fail("EarliestFit(%d,%d,%d)=%d, reference %d", after, dur, n, got, want)
			}
		case 4:
			after, dur, n, own := time(a), int64(b%64)-1, size(c), time(d)
			if len(held) > 0 && c%2 == 0 {
				h := held[int(d)%len(held)]
				dur, n, own = h.e-h.s, h.n, h.s
			}
			want := q.EarliestFitMoving(after, dur, n, own)
			if got := p.EarliestFitMoving(after, dur, n, own); got != want {
				fail("EarliestFitMoving(%d,%d,%d,%d)=%d, reference %d", after, dur, n, own, got, want)
			}
			// restricted to starts before limit: the same answer if it is
			// before limit, else own
			limit := after + int64(b%48) - 4
			wantB := want
			if want >= limit {
				wantB = own
			}
			if got := p.EarliestFitMovingBefore(after, dur, n, own, limit); got != wantB {
				fail("EarliestFitMovingBefore(%d,%d,%d,%d,%d)=%d, reference %d", after, dur, n, own, limit, got, wantB)
			}
		case 5:
			p.Forget(time(a))
			q.Forget(time(a))
			trace = append(trace, fmt.Sprintf("Forget(%d)", time(a)))
		case 6:
			s, e, n := time(a), time(a)+int64(b%80)-4, size(c)
			if got, want := p.MinFree(s, e), q.MinFree(s, e); got != want {
				fail("MinFree(%d,%d)=%d, reference %d", s, e, got, want)
			}
			if got, want := p.MaxFree(s, e), q.MaxFree(s, e); got != want {
				fail("MaxFree(%d,%d)=%d, reference %d", s, e, got, want)
			}
			if got, want := p.FreeAt(s), q.FreeAt(s); got != want {
				fail("FreeAt(%d)=%d, reference %d", s, got, want)
			}
			if got, want := p.Fits(s, e-s, n), q.Fits(s, e-s, n); got != want {
				fail("Fits(%d,%d,%d)=%v, reference %v", s, e-s, n, got, want)
			}
		case 7:
			from := time(a)
			pm, rm := p.PrefixMax(from), q.refPrefixMax(from)
			x := from - int64(b%4)
			for _, step := range []byte{b, c, d, a ^ b, c ^ d} {
				x += int64(step % 24)
				if got, want := pm.Before(x), rm.Before(x); got != want {
					fail("PrefixMax(%d).Before(%d)=%d, reference %d", from, x, got, want)
				}
			}
		case 8:
			// spread over a longer horizon, for deeper trees
			after, dur, n := time(a)+256*int64(d%8), int64(b%64)+1, 1+int(c)%procs
			s := p.EarliestFit(after, dur, n)
			add(s, s+dur, n)
		case 9:
			if b == 0 && c < 16 {
				p.Reset()
				q.Reset()
				held = held[:0]
				trace = append(trace, "Reset")
			} else if b%16 == 1 && c < 96 {
				// snapshot (CopyFrom into scratch storage)
				snap.CopyFrom(p)
				qSnap = &refProfile{procs: q.procs, times: slices.Clone(q.times), free: slices.Clone(q.free)}
				heldSnap = slices.Clone(held)
				trace = append(trace, "Save")
			} else if b%16 == 2 && c < 96 && qSnap != nil {
				// back to the snapshot, into the same storage or a new profile
				if c%2 == 0 {
					p.CopyFrom(snap)
				} else {
					p = New(1)
					p.CopyFrom(snap)
				}
				q = &refProfile{procs: qSnap.procs, times: slices.Clone(qSnap.times), free: slices.Clone(qSnap.free)}
				held = slices.Clone(heldSnap)
				trace = append(trace, "Restore")
			} else {
				after, dur, n := time(a), int64(b%16)*8+8, 1+int(c)%max(1, procs/4)
				s := p.EarliestFit(after, dur, n)
				add(s, s+dur, n)
			}
		}
		if got, want := p.Steps(), q.Steps(); !slices.Equal(got, want) {
			fail("steps %v, reference %v", got, want)
		}
		if p.Procs() != q.Procs() {
			fail("Procs %d, reference %d", p.Procs(), q.Procs())
		}
		if p.Len() != q.Len() {
			fail("Len %d, reference %d", p.Len(), q.Len())
		}
		if err := checkInvariants(p); err != nil {
			fail("%v", err)
		}
		maxLen = max(maxLen, p.Len())
	}
	return maxLen
}

// TestAgainstRef runs random operation sequences against the reference.
func TestAgainstRef(t *testing.T) {
	seeds := 400
	if longtest.Short() {
		seeds = 50
	}
	biggest := 0
	for seed := uint64(1); seed <= uint64(seeds); seed++ {
		r := rand.New(rand.NewPCG(seed, 17))
		data := make([]byte, 2+5*(50+r.IntN(1000)))
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		biggest = max(biggest, checkOps(t, data))
	}
	t.Logf("largest profile: %d breakpoints", biggest)
}

// FuzzProfile checks fuzz-decoded operation sequences against the
// reference.
func FuzzProfile(f *testing.F) {
	f.Add([]byte{3, 2, 0, 20, 10, 9, 0, 8, 30, 40, 17, 0, 3, 4, 25, 33, 7, 3, 0, 0, 4, 30, 10, 13, 2, 5, 20, 0, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		checkOps(t, data)
	})
}

// checkInvariants verifies the tree: every leaf at the same depth and the
// leaves in tree order are the block list; keys increase; each inner entry
// holds its child's first breakpoint and summary; no node is empty, the
// root has two children or more, inner nodes other than the root are at
// least a quarter full (or have no sibling); blocks are within capacity
// and adjacent blocks hold more than lim/2 breakpoints together; the count
// and the free lists add up.
func checkInvariants(p *Profile) error {
	var leaves []int32
	inodes := 0
	var walk func(x int32, h int) (agg, int64, error)
	walk = func(x int32, h int) (agg, int64, error) {
		if h == 0 {
			b := &p.bl[x]
			if b.n < 1 || b.n > p.lim {
				return agg{}, 0, fmt.Errorf("block %d: %d breakpoints, capacity %d", x, b.n, p.lim)
			}
			own := agg{b.loc[b.n-1], negInf, posInf}
			for i := range b.n {
				own.mx, own.mn = max(own.mx, b.loc[i]), min(own.mn, b.loc[i])
				prev := 0
				if i > 0 {
					prev = b.loc[i-1]
					if b.key[i] <= b.key[i-1] {
						return agg{}, 0, fmt.Errorf("block %d: keys not increasing", x)
					}
				}
				if b.loc[i] == prev {
					return agg{}, 0, fmt.Errorf("block %d: breakpoint %d without change", x, b.key[i])
				}
			}
			if own != b.own && (p.height > 0 || own.sum != b.own.sum) {
				return agg{}, 0, fmt.Errorf("block %d: own %v, want %v", x, b.own, own)
			}
			leaves = append(leaves, x)
			return own, b.key[0], nil
		}
		inodes++
		in := &p.in[x]
		if in.n < 1 || in.n > p.fan {
			return agg{}, 0, fmt.Errorf("inode %d: %d children, capacity %d", x, in.n, p.fan)
		}
		for c := range in.n {
			a, f, err := walk(in.child[c], h-1)
			if err != nil {
				return agg{}, 0, err
			}
			if a != in.agg[c] || f != in.first[c] {
				return agg{}, 0, fmt.Errorf("inode %d child %d: entry %v %d, want %v %d", x, c, in.agg[c], in.first[c], a, f)
			}
			if h > 1 && in.n > 1 && p.in[in.child[c]].n < max(1, p.fan/4) {
				return agg{}, 0, fmt.Errorf("inode %d: underfull child %d (%d children)", x, in.child[c], p.in[in.child[c]].n)
			}
		}
		return in.summary(), in.first[0], nil
	}
	if p.root != 0 {
		if p.height > 0 && p.in[p.root].n < 2 {
			return fmt.Errorf("root with %d children", p.in[p.root].n)
		}
		a, _, err := walk(p.root, p.height)
		if err != nil {
			return err
		}
		if a.sum != 0 {
			return fmt.Errorf("changes sum to %d", a.sum)
		}
	} else if p.height != 0 || p.head != 0 {
		return fmt.Errorf("empty profile with height %d, head %d", p.height, p.head)
	}
	var list []int32
	n := 0
	prev := int32(0)
	for x := p.head; x != 0; x = p.bl[x].next {
		if p.bl[x].prev != prev {
			return fmt.Errorf("block %d: prev %d, want %d", x, p.bl[x].prev, prev)
		}
		if prev != 0 {
			if p.bl[prev].key[p.bl[prev].n-1] >= p.bl[x].key[0] {
				return fmt.Errorf("blocks %d, %d overlap", prev, x)
			}
			if p.bl[prev].n+p.bl[x].n <= p.lim/2 {
				return fmt.Errorf("blocks %d, %d hold %d+%d ≤ %d/2", prev, x, p.bl[prev].n, p.bl[x].n, p.lim)
			}
		}
		list = append(list, x)
		n += p.bl[x].n
		prev = x
	}
	if !slices.Equal(leaves, list) {
		return fmt.Errorf("tree order %v, list %v", leaves, list)
	}
	if n != p.count {
		return fmt.Errorf("count %d, %d breakpoints", p.count, n)
	}
	if len(p.bl)-1 != len(list)+len(p.freeB) {
		return fmt.Errorf("%d blocks, %d in use, %d free", len(p.bl)-1, len(list), len(p.freeB))
	}
	if len(p.in)-1 != inodes+len(p.freeI) {
		return fmt.Errorf("%d inner nodes, %d in use, %d free", len(p.in)-1, inodes, len(p.freeI))
	}
	return nil
}

// TestTreeShapes grows and shrinks large profiles with tiny blocks and
// inner nodes, so that the tree is several levels deep and inner nodes
// split, merge and even out, in every order of removal, checking the
// structure after each operation and the steps against the reference.
func TestTreeShapes(t *testing.T) {
	type hold struct {
		s, e int64
		n    int
	}
	for _, order := range []string{"random", "last", "first", "forget"} {
		for _, shape := range [][2]int{{2, 8}, {3, 9}, {4, 12}, {2, 3}} {
			r := rand.New(rand.NewPCG(uint64(shape[0]*100+shape[1]), uint64(len(order))))
			p, q := New(50), newRef(50)
			p.lim, p.fan = shape[0], shape[1]
			var held []hold
			check := func(op string, i int) {
				t.Helper()
				if err := checkInvariants(p); err != nil {
					t.Fatalf("%s %v: after %s %d: %v", order, shape, op, i, err)
				}
				if i%37 == 0 {
					if got, want := p.Steps(), q.Steps(); !slices.Equal(got, want) {
						t.Fatalf("%s %v: after %s %d: steps differ", order, shape, op, i)
					}
				}
			}
			for i := range 1500 {
				s := int64(r.IntN(20000))
				h := hold{s, s + 1 + int64(r.IntN(300)), 1 + r.IntN(10)}
				if p.Fits(h.s, h.e-h.s, h.n) {
					if err := p.Add(h.s, h.e, h.n); err != nil {
						t.Fatal(err)
					}
					_ = q.Add(h.s, h.e, h.n)
					held = append(held, h)
				}
				check("add", i)
			}
			if p.height < 2 {
				t.Fatalf("%v: height %d only", shape, p.height)
			}
			switch order {
			case "random":
				r.Shuffle(len(held), func(i, j int) { held[i], held[j] = held[j], held[i] })
			case "last":
				slices.SortFunc(held, func(a, b hold) int { return int(b.s - a.s) })
			case "first":
				slices.SortFunc(held, func(a, b hold) int { return int(a.e - b.e) })
			}
			if order == "forget" {
				for x := int64(0); p.Len() > 0; x += 50 {
					p.Forget(x)
					q.Forget(x)
					check("forget", int(x))
				}
				continue
			}
			for i, h := range held {
				if err := p.Remove(h.s, h.e, h.n); err != nil {
					t.Fatal(err)
				}
				_ = q.Remove(h.s, h.e, h.n)
				check("remove", i)
			}
			if p.Len() != 0 || p.root != 0 {
				t.Fatalf("%s %v: %d breakpoints left", order, shape, p.Len())
			}
		}
	}
}
