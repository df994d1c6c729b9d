package profile

import (
	"math/rand/v2"
	"testing"
)

// TestPrefixMaxArg checks the instant a walk remembers (PrefixMax.arg, which
// PrefixMaxKept trusts) against its definition, by brute force over every
// second: the first instant of [from, upto) with the walk's largest free
// count, or noArg. Walks fresh (PrefixMax, then Before), restarted with a
// range query (PrefixMaxAt) and carried over a change (PrefixMaxKept), on
// profiles with many steps of one or two seconds, where an instant one
// second off is no longer one of the largest count; it requires the
// instant to be known on most walks. TestPrefixMax and TestPrefixMaxKept
// check only the counts, which an instant one second late usually keeps.
func TestPrefixMaxArg(t *testing.T) {
	known, checked := 0, 0
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 93))
		p := New(6)
		if seed%2 == 0 { // small blocks: walks across blocks, range-query folds
			p.lim, p.fan = 4, 3
		}
		add := func(s, e int64, n int) {
			if e > s && p.MinFree(s, e) >= n {
				mustAdd(t, p, s, e, n)
			}
		}
		for range 60 + 60*int(seed%3) { // on one seed in three, hardly an instant all free
			s := int64(r.IntN(150))
			d := int64(1 + r.IntN(3))
			if r.IntN(4) == 0 {
				d = int64(1 + r.IntN(40))
			}
			add(s, s+d, 1+r.IntN(6))
		}
		check := func(pm PrefixMax, how string) {
			if pm.upto <= pm.from {
				return
			}
			checked++
			best, first := -1, int64(0)
			for x := pm.from; x < pm.upto; x++ {
				if f := p.FreeAt(x); f > best {
					best, first = f, x
				}
			}
			if got := p.procs - pm.lo; got != best {
				t.Fatalf("seed %d, %s: walk [%d, %d) has largest free %d, brute force %d; steps %v", seed, how, pm.from, pm.upto, got, best, p.Steps())
			}
			if pm.arg == noArg {
				return
			}
			known++
			if pm.arg != first {
				t.Fatalf("seed %d, %s: walk [%d, %d) remembers instant %d, the first with %d free is %d; steps %v", seed, how, pm.from, pm.upto, pm.arg, best, first, p.Steps())
			}
		}
		from := int64(r.IntN(60))
		pm := p.PrefixMax(from)
		x := from
		for range 25 {
			x += int64(r.IntN(12))
			if r.IntN(3) == 0 { // over many blocks: Before folds them with a range query
				x += int64(r.IntN(80))
			}
			pm.Before(x)
			check(pm, "Before")
			switch r.IntN(4) {
			case 0:
				pm = p.PrefixMaxAt(from, x)
				check(pm, "PrefixMaxAt")
			case 1: // a hold before x, as a compression's move, then carried
				lo := from + int64(r.IntN(int(x-from)+1))
				hi := min(x, lo+int64(1+r.IntN(4)))
				add(lo, hi, 1+r.IntN(2))
				if k, ok := p.PrefixMaxKept(pm, lo, hi); ok {
					pm = k
				} else {
					pm = p.PrefixMaxAt(from, x)
				}
				check(pm, "PrefixMaxKept")
			}
		}
	}
	if known < checked*3/4 {
		t.Fatalf("the walk knew its instant in %d of %d checks", known, checked)
	}
}
