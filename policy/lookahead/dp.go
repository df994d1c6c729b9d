package lookahead

import "math/bits"

// Item is one waiting job offered to the dynamic program: its size, and
// whether it runs, by its estimate, past the shadow time of the reserved
// job (then it also uses the extra processors).
type Item struct {
	Size int
	Long bool
}

// Solver is the dynamic program of Shmueli & Feitelson (and of the seed
// paper's (|WQ|+1)×(n+1) matrix): among the items, the set that uses the
// most processors with
//
//	Σ size ≤ free             (processors free now)
//	Σ size of long items ≤ extra (processors left at the shadow time)
//
// Without a reservation every item is short and this is the 0/1 knapsack
// of the seed paper, whose cell m[i][j] is the best use of j processors by
// the first i jobs. With one it is Reservation_DP's two-capacity
// knapsack, m[i][j][k] with k extra processors.
//
// Ties between sets of equal use are broken as the matrix's trace-back
// does: going from the last item back to the first, an item is left out
// whenever the best use can still be reached without it. The chosen set is
// therefore the one whose membership vector, read from the last item to
// the first, is smallest: jobs nearer the head of the queue win.
//
// Representation. The matrix is kept as bitsets of reachable sums: for
// the first i short items, the set RS_i of sums of their subsets (≤ free),
// and for the first i long items the set RL_i (≤ extra); m[i][j][k] is the
// largest b + a with b ∈ RL, b ≤ min(j, k), a ∈ RS, a ≤ j − b. Building the
// prefixes costs O(N·free/64) word operations for N items, the same cells
// as the matrix but 64 to a word; each step of the trace-back is one
// membership query per long subset sum. Solver keeps its buffers between
// calls.
type Solver struct {
	rs, rl []uint64 // prefix bitsets, flattened: rs[k*ws:(k+1)*ws] is RS_k
	ps, pl []int32  // for item i: the number of short / long items before it
}

// Solve fills sel (len(items)) with the chosen set and returns the
// processors it uses. Items that cannot be chosen alone (size > free, or
// long and size > extra) are never chosen.
func (s *Solver) Solve(items []Item, free, extra int, sel []bool) int {
	clear(sel)
	if free < 1 || len(items) == 0 {
		return 0
	}
	extra = max(0, min(extra, free))
	ok := func(it Item) bool { return it.Size >= 1 && it.Size <= free && (!it.Long || it.Size <= extra) }
	total, ltotal, ns, nl := 0, 0, 0, 0
	for _, it := range items {
		if !ok(it) {
			continue
		}
		total += it.Size
		if it.Long {
			ltotal += it.Size
			nl++
		} else {
			ns++
		}
	}
	if total <= free && ltotal <= extra {
		for i, it := range items {
			sel[i] = ok(it)
		}
		return total
	}
	C := min(free, total)
	X := min(extra, ltotal)
	ws, wl := (C+64)/64, (X+64)/64 // bits 0..C and 0..X
	s.rs = grow(s.rs, (ns+1)*ws)
	s.rl = grow(s.rl, (nl+1)*wl)
	s.ps = growInt(s.ps, len(items))
	s.pl = growInt(s.pl, len(items))
	clear(s.rs[:ws])
	clear(s.rl[:wl])
	s.rs[0], s.rl[0] = 1, 1
	ks, kl := 0, 0
	for i, it := range items {
		s.ps[i], s.pl[i] = int32(ks), int32(kl)
		if !ok(it) {
			continue
		}
		if it.Long {
			shiftOr(s.rl[(kl+1)*wl:(kl+2)*wl], s.rl[kl*wl:(kl+1)*wl], it.Size, X+1)
			kl++
		} else {
			shiftOr(s.rs[(ks+1)*ws:(ks+2)*ws], s.rs[ks*ws:(ks+1)*ws], it.Size, C+1)
			ks++
		}
	}
	rsAll, rlAll := s.rs[ks*ws:(ks+1)*ws], s.rl[kl*wl:(kl+1)*wl]
	best := 0
	forEachBit(rlAll, X, func(b int) bool {
		if a := highest(rsAll, C-b); a >= 0 && a+b > best {
			best = a + b
		}
		return best < C // C is the most anyone can use
	})
	// trace back
	j, k, u := C, X, best
	for i := len(items) - 1; i >= 0 && u > 0; i-- {
		it := items[i]
		if !ok(it) {
			continue
		}
		rs := s.rs[int(s.ps[i])*ws : int(s.ps[i]+1)*ws]
		rl := s.rl[int(s.pl[i])*wl : int(s.pl[i]+1)*wl]
		if reachable(rs, rl, j, k, u) {
			continue // the best use is still reachable without item i
		}
		sel[i] = true
		j -= it.Size
		if it.Long {
			k -= it.Size
		}
		u -= it.Size
	}
	return best
}

// reachable reports whether some b ∈ rl, b ≤ min(j, k), and a ∈ rs have
// u ≤ a + b ≤ j: the first items can use at least u processors within
// j free and k extra.
func reachable(rs, rl []uint64, j, k, u int) bool {
	found := false
	forEachBit(rl, min(j, k), func(b int) bool {
		found = anyIn(rs, max(0, u-b), j-b)
		return !found
	})
	return found
}

// shiftOr sets dst = src | src<<s, keeping bits 0..nbits-1.
func shiftOr(dst, src []uint64, s, nbits int) {
	q, r := s/64, uint(s%64)
	for w := len(dst) - 1; w >= 0; w-- {
		v := src[w]
		if w-q >= 0 {
			v |= src[w-q] << r
			if r > 0 && w-q-1 >= 0 {
				v |= src[w-q-1] >> (64 - r)
			}
		}
		dst[w] = v
	}
	if rem := nbits % 64; rem != 0 {
		dst[len(dst)-1] &= 1<<rem - 1
	}
}

// forEachBit calls f for the set bits ≤ hi in ascending order while f
// returns true.
func forEachBit(b []uint64, hi int, f func(int) bool) {
	for w := 0; w < len(b) && w*64 <= hi; w++ {
		x := b[w]
		for x != 0 {
			i := w*64 + bits.TrailingZeros64(x)
			if i > hi || !f(i) {
				return
			}
			x &= x - 1
		}
	}
}

// highest is the highest set bit ≤ x, or -1.
func highest(b []uint64, x int) int {
	if x < 0 {
		return -1
	}
	w := x / 64
	if w >= len(b) {
		w, x = len(b)-1, len(b)*64-1
	}
	m := b[w]
	if sh := uint(63 - x%64); sh > 0 {
		m = m << sh >> sh
	}
	for {
		if m != 0 {
			return w*64 + 63 - bits.LeadingZeros64(m)
		}
		w--
		if w < 0 {
			return -1
		}
		m = b[w]
	}
}

// anyIn reports whether a bit in [lo, hi] is set.
func anyIn(b []uint64, lo, hi int) bool {
	if hi >= len(b)*64 {
		hi = len(b)*64 - 1
	}
	if lo > hi {
		return false
	}
	for w := lo / 64; w <= hi/64; w++ {
		m := b[w]
		if w == lo/64 {
			m &= ^uint64(0) << uint(lo%64)
		}
		if w == hi/64 && hi%64 != 63 {
			m &= 1<<uint(hi%64+1) - 1
		}
		if m != 0 {
			return true
		}
	}
	return false
}

func grow(b []uint64, n int) []uint64 {
	if cap(b) < n {
		return make([]uint64, n, 2*n)
	}
	return b[:n]
}

func growInt(b []int32, n int) []int32 {
	if cap(b) < n {
		return make([]int32, n, 2*n)
	}
	return b[:n]
}
