package machine

import (
	"fmt"
	"math/bits"
	"strconv"
)

// Rule is a core selection rule.
type Rule int

// The selection rules. Each gives a started job of k cores k free cores
// (jobs ask for cores and may span nodes, so any job that fits the free
// core count can be placed: the policies' counts stay exact). A job with
// a Demand (SetDemands) is placed on nodes by the same rules, node by
// node (see Demand).
const (
	// FirstFit takes free cores in node index order, lowest core first
	// (each node's free cores before the next node's).
	FirstFit Rule = iota
	// BestFit follows Slurm's select/cons_tres: if some node has k free
	// cores, the node with the fewest free cores that still holds the
	// whole job (ties: the lowest index); else nodes with the most free
	// cores first (ties: the lowest index), all their free cores, until
	// the rest fits on one node, which is chosen by the single-node rule.
	BestFit
	// Contiguous takes the lowest run of k consecutive free core ids (the
	// job's cores form one interval), else falls back to FirstFit.
	Contiguous
)

// Rules names the rules for flags and documents.
var Rules = map[string]Rule{"firstfit": FirstFit, "bestfit": BestFit, "contiguous": Contiguous}

func (r Rule) String() string {
	switch r {
	case FirstFit:
		return "firstfit"
	case BestFit:
		return "bestfit"
	case Contiguous:
		return "contiguous"
	}
	return "rule(" + strconv.Itoa(int(r)) + ")"
}

// Allocator assigns core ids to jobs on a machine. Not safe for concurrent
// use.
type Allocator struct {
	m    *Machine
	rule Rule
	node []int32  // node of each core
	core []uint64 // bit set: core free
	wsum bitset   // words of core with a free core (not kept by BestFit: only firstFit and findRun read it)
	sum  bool     // wsum is kept
	// per node (BestFit only): the nodes bucketed by free count (a node's
	// free count is the popcount of its cores' bits: freeOf)
	perNode bool
	byF     []bitset // byF[f]: nodes with exactly f free cores, f ≥ 1 (BestFit; byF[0] stays empty: no search asks for full nodes)
	// the bucket index over byF: cnt[f] nodes in byF[f], fset the f with
	// cnt[f] > 0 (BestFit finds the fewest free ≥ k, or the most, at once)
	cnt   []int
	fset  bitset
	nfree int
	maxC  int // the largest node's cores
	// sameEnd[n]: the last node of the run of equal-size nodes holding n
	// (BestFit)
	sameEnd []int32
	// shift is log2 of the node size on a machine of equal nodes of a
	// power-of-two size (node of core c = c >> shift), else -1
	shift int

	// allocations: job id → [start, end) into ivs (pairs lo, hi of core
	// ids, inclusive)
	first, last []int32
	ivs         []int32
	// ns is the node-level bookkeeping (SetDemands), nil without demands
	ns *nodeState
	// stats
	Stats Stats
}

// Stats are the fragmentation figures of the jobs placed so far.
type Stats struct {
	// Jobs placed.
	Jobs int
	// Split is the number of jobs that span more nodes than they need
	// (⌈k / the largest node⌉), and ExtraNodes the nodes beyond that need,
	// summed.
	Split, ExtraNodes int
	// Scattered is the number of jobs whose cores are not one interval.
	Scattered int
}

// NewAllocator returns an allocator for m under rule, for jobs with ids
// below jobs (a capacity hint; larger ids grow the tables).
func NewAllocator(m *Machine, rule Rule, jobs int) *Allocator {
	P := m.Procs()
	a := &Allocator{m: m, rule: rule, node: make([]int32, P),
		core: make([]uint64, (P+63)/64), wsum: newBitset((P + 63) / 64), nfree: P, sum: rule != BestFit,
		maxC: m.MaxCores(), perNode: rule == BestFit, shift: -1}
	if c := m.MaxCores(); c&(c-1) == 0 && c*len(m.Nodes) == P {
		a.shift = bits.TrailingZeros(uint(c))
	}
	for i := range m.Nodes {
		for c := m.offset[i]; c < m.offset[i+1]; c++ {
			a.node[c] = int32(i)
		}
	}
	for c := 0; c < P; c++ {
		a.core[c>>6] |= 1 << (c & 63)
	}
	for w := range a.core {
		a.wsum.set(w)
	}
	if rule == BestFit {
		a.runs()
		a.byF = make([]bitset, m.MaxCores()+1)
		for f := range a.byF {
			a.byF[f] = newBitset(len(m.Nodes))
		}
		a.cnt = make([]int, m.MaxCores()+1)
		a.fset = newBitset(m.MaxCores() + 1)
		for i := range m.Nodes {
			a.byF[m.Nodes[i].Cores].set(i)
			a.bucket(m.Nodes[i].Cores, 1)
		}
	}
	a.first = make([]int32, 0, jobs)
	a.last = make([]int32, 0, jobs)
	a.ivs = make([]int32, 0, 4*jobs) // most jobs hold one or two intervals
	return a
}

// runs fills sameEnd (the per-node bookkeeping of BestFit and SetDemands).
func (a *Allocator) runs() {
	m := a.m
	a.sameEnd = make([]int32, len(m.Nodes))
	for n := len(m.Nodes) - 1; n >= 0; n-- {
		a.sameEnd[n] = int32(n)
		if n+1 < len(m.Nodes) && m.Nodes[n+1].Cores == m.Nodes[n].Cores {
			a.sameEnd[n] = a.sameEnd[n+1]
		}
	}
}

// nodeOf is the node of core c.
func (a *Allocator) nodeOf(c int) int {
	if a.shift >= 0 {
		return c >> a.shift
	}
	return int(a.node[c])
}

// off is the first core of node n (n = len(Nodes): the core count).
func (a *Allocator) off(n int) int {
	if a.shift >= 0 {
		return n << a.shift
	}
	return a.m.offset[n]
}

// runEnd is the last node of the run of equal-size nodes holding n.
func (a *Allocator) runEnd(n int) int {
	if a.shift >= 0 {
		return len(a.m.Nodes) - 1
	}
	return int(a.sameEnd[n])
}

// Free is the number of free cores.
func (a *Allocator) Free() int { return a.nfree }

// Place gives job id k free cores by the allocator's rule. It fails only
// when fewer than k cores are free or the job holds cores already.
func (a *Allocator) Place(id, k int) error {
	if k < 1 || k > a.nfree {
		return fmt.Errorf("machine: job %d needs %d cores, %d free", id, k, a.nfree)
	}
	for len(a.first) <= id {
		a.first = append(a.first, -1)
		a.last = append(a.last, -1)
	}
	if a.first[id] >= 0 && a.last[id] > a.first[id] {
		return fmt.Errorf("machine: job %d placed twice", id)
	}
	a.first[id] = int32(len(a.ivs))
	nodes0 := a.countNodesStart()
	switch d := a.demand(id); {
	case d.Set:
		if err := a.placeNodes(id, k, d); err != nil {
			a.first[id] = -1
			return err
		}
	case a.rule == Contiguous:
		if lo := a.findRun(k); lo >= 0 {
			a.takeRange(lo, lo+k)
			break
		}
		a.firstFit(k)
	case a.rule == BestFit:
		a.bestFit(k)
	default:
		a.firstFit(k)
	}
	a.last[id] = int32(len(a.ivs))
	a.nfree -= k
	if a.ns != nil {
		a.ns.memo = false
	}
	// stats
	a.Stats.Jobs++
	if a.last[id]-a.first[id] > 2 {
		a.Stats.Scattered++
	}
	need := (k + a.maxC - 1) / a.maxC
	if used := a.countNodesEnd(nodes0); used > need {
		a.Stats.Split++
		a.Stats.ExtraNodes += used - need
	}
	return nil
}

// countNodesStart/End count the distinct nodes of the intervals appended
// since the start mark.
func (a *Allocator) countNodesStart() int { return len(a.ivs) }

func (a *Allocator) countNodesEnd(from int) int {
	n, prev := 0, -1
	for i := from; i < len(a.ivs); i += 2 {
		lo, hi := a.nodeOf(int(a.ivs[i])), a.nodeOf(int(a.ivs[i+1]))
		n += hi - lo + 1
		if lo == prev {
			n--
		}
		prev = hi
	}
	return n
}

// Release frees the cores of job id.
func (a *Allocator) Release(id int) error {
	if id < 0 || id >= len(a.first) || a.first[id] < 0 || a.last[id] <= a.first[id] {
		return fmt.Errorf("machine: job %d holds no cores", id)
	}
	for i := a.first[id]; i < a.last[id]; i += 2 {
		lo, hi := int(a.ivs[i]), int(a.ivs[i+1])
		a.setBits(lo, hi)
		if a.perNode {
			a.releaseNodes(lo, hi)
		}
		a.nfree += hi - lo + 1
	}
	a.releaseCharges(id)
	// keep the intervals (Intervals still answers); mark released
	a.first[id] = -1 - a.first[id]
	return nil
}

// releaseNodes updates the per-node counts for the cores lo..hi
// (inclusive) just freed: partial nodes one by one; runs of whole nodes of
// the same size (held entirely, so free 0 before) in bulk.
func (a *Allocator) releaseNodes(lo, hi int) {
	for c := lo; c <= hi; {
		n := a.nodeOf(c)
		end := a.off(n+1) - 1
		if c != a.off(n) || end > hi {
			end = min(end, hi)
			f := a.freeOf(n) // the bits are set already
			a.setFree(n, f-(end-c+1), f)
			c = end + 1
			continue
		}
		// whole nodes n..m of n's size
		size := a.m.Nodes[n].Cores
		last := a.nodeOf(hi) // the last node wholly inside ..hi
		if a.off(last+1)-1 != hi {
			last--
		}
		m := min(a.runEnd(n), last)
		a.byF[size].setRange(n, m)
		a.bucket(size, m-n+1)
		c = a.off(m + 1)
	}
}

// takeWhole takes the whole free nodes n..m (all of size f): cores, counts
// and sets in bulk.
func (a *Allocator) takeWhole(n, m, f, start int) {
	lo, hi := a.off(n), a.off(m+1)-1
	a.clearBits(lo, hi)
	if k := len(a.ivs); k > start && int(a.ivs[k-1]) == lo-1 {
		a.ivs[k-1] = int32(hi)
	} else {
		a.ivs = append(a.ivs, int32(lo), int32(hi))
	}
	a.byF[f].clearRange(n, m)
	a.bucket(f, -(m - n + 1))
}

// setBits marks the cores lo..hi (inclusive) free: the words inside the
// range whole, the summary once.
func (a *Allocator) setBits(lo, hi int) {
	wl, wh := lo>>6, hi>>6
	a.core[wl] |= rangeMask(wl, lo, hi)
	if wh > wl {
		for w := wl + 1; w < wh; w++ {
			a.core[w] = ^uint64(0)
		}
		a.core[wh] |= rangeMask(wh, lo, hi)
	}
	if a.sum {
		a.wsum.setRange(wl, wh)
	}
}

// clearBits marks the cores lo..hi (inclusive) taken: the words inside the
// range become empty, only the end words are tested.
func (a *Allocator) clearBits(lo, hi int) {
	wl, wh := lo>>6, hi>>6
	a.core[wl] &^= rangeMask(wl, lo, hi)
	if a.core[wl] == 0 && a.sum {
		a.wsum.clear(wl)
	}
	if wh > wl {
		if wh > wl+1 {
			clear(a.core[wl+1 : wh])
			if a.sum {
				a.wsum.clearRange(wl+1, wh-1)
			}
		}
		a.core[wh] &^= rangeMask(wh, lo, hi)
		if a.core[wh] == 0 && a.sum {
			a.wsum.clear(wh)
		}
	}
}

// rangeMask is the bits of word w within cores lo..hi (inclusive).
func rangeMask(w, lo, hi int) uint64 {
	m := ^uint64(0)
	if w == lo>>6 {
		m &= ^uint64(0) << (lo & 63)
	}
	if w == hi>>6 {
		m &= ^uint64(0) >> (63 - hi&63)
	}
	return m
}

// Intervals returns the core intervals [lo, hi] (inclusive, increasing) of
// job id, released or not; nil for a job never placed.
func (a *Allocator) Intervals(id int) [][2]int {
	if id < 0 || id >= len(a.first) {
		return nil
	}
	f := a.first[id]
	if f < 0 {
		f = -1 - f
	}
	var out [][2]int
	for i := f; i < a.last[id]; i += 2 {
		out = append(out, [2]int{int(a.ivs[i]), int(a.ivs[i+1])})
	}
	return out
}

// String formats job id's cores as Batsim's interval set: "0-3 8-11 15"
// (intervals separated by spaces, a single core without dash).
func (a *Allocator) String(id int) string {
	return FormatIntervals(a.Intervals(id))
}

// FormatIntervals formats inclusive intervals as "0-3 8-11 15".
func FormatIntervals(iv [][2]int) string {
	var b []byte
	for i, x := range iv {
		if i > 0 {
			b = append(b, ' ')
		}
		b = strconv.AppendInt(b, int64(x[0]), 10)
		if x[1] != x[0] {
			b = append(b, '-')
			b = strconv.AppendInt(b, int64(x[1]), 10)
		}
	}
	return string(b)
}

// setFree moves node n from bucket old to bucket f of byF (BestFit).
func (a *Allocator) setFree(n, old, f int) {
	if a.byF == nil || old == f {
		return
	}
	if old > 0 {
		a.byF[old].clear(n)
		a.bucket(old, -1)
	}
	if f > 0 {
		a.byF[f].set(n)
		a.bucket(f, 1)
	}
}

// bucket adds d nodes to the count of byF[f] (f ≥ 1), keeping fset.
func (a *Allocator) bucket(f, d int) {
	was := a.cnt[f]
	a.cnt[f] += d
	switch {
	case was == 0 && a.cnt[f] > 0:
		a.fset.set(f)
	case was > 0 && a.cnt[f] == 0:
		a.fset.clear(f)
	}
}

// freeOf is the number of free cores of node n.
func (a *Allocator) freeOf(n int) int {
	lo, hi := a.off(n), a.off(n+1)-1
	c := 0
	for w := lo >> 6; w <= hi>>6; w++ {
		c += bits.OnesCount64(a.core[w] & rangeMask(w, lo, hi))
	}
	return c
}

// appendCore adds core c to the job being placed, merging with the last
// interval when adjacent.
func (a *Allocator) appendCore(c int32, start int) {
	if n := len(a.ivs); n > start && a.ivs[n-1] == c-1 {
		a.ivs[n-1] = c
		return
	}
	a.ivs = append(a.ivs, c, c)
}

// takeNode takes up to k free cores of node n, lowest first; returns how
// many.
func (a *Allocator) takeNode(n, k, start int) int {
	old := 0
	if a.byF != nil {
		old = a.freeOf(n)
	}
	lo, hi := a.off(n), a.off(n+1)
	got := 0
	for w := lo >> 6; w <= (hi-1)>>6 && got < k; w++ {
		word := a.core[w]
		// mask to the node's cores
		if w == lo>>6 {
			word &= ^uint64(0) << (lo & 63)
		}
		if w == (hi-1)>>6 && hi&63 != 0 {
			word &= ^uint64(0) >> (64 - hi&63)
		}
		for word != 0 && got < k {
			// the run of free cores starting at the lowest free one
			b := bits.TrailingZeros64(word)
			r := bits.TrailingZeros64(^(word >> b)) // 64 when all ones from b
			if r > 64-b {
				r = 64 - b
			}
			t := min(r, k-got)
			var mask uint64
			if t == 64 {
				mask = ^uint64(0)
			} else {
				mask = (uint64(1)<<t - 1) << b
			}
			a.core[w] &^= mask
			if a.core[w] == 0 && a.sum {
				a.wsum.clear(w)
			}
			word &^= mask
			c := int32(w<<6 | b)
			if m := len(a.ivs); m > start && a.ivs[m-1] == c-1 {
				a.ivs[m-1] = c + int32(t) - 1
			} else {
				a.ivs = append(a.ivs, c, c+int32(t)-1)
			}
			got += t
		}
	}
	a.setFree(n, old, old-got)
	return got
}

// firstFit takes the k lowest free core ids: nodes are numbered in core
// order, so this is node index order, lowest core first.
func (a *Allocator) firstFit(k int) {
	start := len(a.ivs)
	for w := a.wsum.next(0); k > 0; w = a.wsum.next(w + 1) {
		word := a.core[w]
		for word != 0 && k > 0 {
			b := bits.TrailingZeros64(word)
			r := bits.TrailingZeros64(^(word >> b))
			t := min(r, k)
			c := w<<6 | b
			if a.perNode {
				for x := c; x < c+t; {
					n := a.nodeOf(x)
					end := min(c+t, a.off(n+1))
					f := a.freeOf(n) // this run's bits are still set
					a.setFree(n, f, f-(end-x))
					x = end
				}
			}
			var mask uint64
			if t == 64 {
				mask = ^uint64(0)
			} else {
				mask = (uint64(1)<<t - 1) << b
			}
			word &^= mask
			a.core[w] &^= mask
			if m := len(a.ivs); m > start && a.ivs[m-1] == int32(c)-1 {
				a.ivs[m-1] = int32(c + t - 1)
			} else {
				a.ivs = append(a.ivs, int32(c), int32(c+t-1))
			}
			k -= t
		}
		if a.core[w] == 0 {
			a.wsum.clear(w)
		}
	}
}

// bestNode is the node with the fewest free cores >= k (lowest index), or -1.
func (a *Allocator) bestNode(k int) int {
	if f := a.fset.next(k); f >= 0 {
		return a.byF[f].next(0)
	}
	return -1
}

func (a *Allocator) bestFit(k int) {
	start := len(a.ivs)
	for k > 0 {
		if n := a.bestNode(k); n >= 0 {
			a.takeNode(n, k, start)
			break
		}
		// no node holds the rest: the nodes with the most free cores,
		// lowest index first, while the rest exceeds f
		for f := a.fset.prev(len(a.byF) - 1); f > 0; {
			n := a.byF[f].next(0)
			if a.m.Nodes[n].Cores != f {
				k -= a.takeNode(n, k, start)
				break
			}
			// whole free nodes in runs of consecutive indices, in bulk
			for n >= 0 && k > f && a.m.Nodes[n].Cores == f {
				// n..m: free whole nodes of size f, as many as the rest
				// needs while it exceeds f ((k-1)/f of them)
				limit := min(a.runEnd(n), n+(k-1)/f-1)
				m := a.byF[f].runEnd(n, limit)
				a.takeWhole(n, m, f, start)
				k -= (m - n + 1) * f
				n = a.byF[f].next(m + 1)
			}
			break
		}
	}
	a.sortLast(start)
}

// sortLast sorts the intervals appended since start by core id (BestFit
// takes nodes out of index order) and merges adjacent ones.
func (a *Allocator) sortLast(start int) {
	iv := a.ivs[start:]
	n := len(iv) / 2
	for i := 1; i < n; i++ { // insertion sort: few intervals
		for j := i; j > 0 && iv[2*j] < iv[2*j-2]; j-- {
			iv[2*j], iv[2*j-2] = iv[2*j-2], iv[2*j]
			iv[2*j+1], iv[2*j-1] = iv[2*j-1], iv[2*j+1]
		}
	}
	out := start
	for i := start; i < len(a.ivs); i += 2 {
		if out > start && a.ivs[out-1] == a.ivs[i]-1 {
			a.ivs[out-1] = a.ivs[i+1]
			continue
		}
		a.ivs[out], a.ivs[out+1] = a.ivs[i], a.ivs[i+1]
		out += 2
	}
	a.ivs = a.ivs[:out]
}

// findRun returns the lowest core id starting k consecutive free cores, or -1.
func (a *Allocator) findRun(k int) int {
	P := len(a.node)
	run, startC, prev := 0, 0, -2
	for w := a.wsum.next(0); w >= 0; w = a.wsum.next(w + 1) {
		if w != prev+1 {
			run = 0 // words without a free core in between
		}
		prev = w
		word := a.core[w]
		if word == ^uint64(0) && w<<6+64 <= P {
			if run == 0 {
				startC = w << 6
			}
			run += 64
			if run >= k {
				return startC
			}
			continue
		}
		for b := 0; b < 64 && w<<6+b < P; {
			if word>>b&1 == 0 {
				run = 0
				// skip the taken cores
				z := bits.TrailingZeros64(word >> b)
				if z == 64 {
					break
				}
				b += z
				continue
			}
			if run == 0 {
				startC = w<<6 + b
			}
			o := bits.TrailingZeros64(^(word >> b)) // free cores from b
			if w<<6+b+o > P {
				o = P - (w<<6 + b)
			}
			run += o
			if run >= k {
				return startC
			}
			b += o
		}
	}
	return -1
}

// takeRange takes the free cores [lo, hi).
func (a *Allocator) takeRange(lo, hi int) {
	a.clearBits(lo, hi-1)
	for c := lo; c < hi && a.perNode; {
		n := a.nodeOf(c)
		end := min(hi, a.off(n+1))
		f := a.freeOf(n) // the bits are cleared already
		a.setFree(n, f+(end-c), f)
		c = end
	}
	a.ivs = append(a.ivs, int32(lo), int32(hi-1))
}

// bitset is a set of small integers with a summary word per 64 words, for
// a fast "next member at or after i".
type bitset struct {
	w   []uint64
	sum []uint64
}

func newBitset(n int) bitset {
	nw := (n + 63) / 64
	return bitset{w: make([]uint64, nw), sum: make([]uint64, (nw+63)/64)}
}

func (s bitset) set(i int) {
	s.w[i>>6] |= 1 << (i & 63)
	s.sum[i>>12] |= 1 << ((i >> 6) & 63)
}

func (s bitset) clear(i int) {
	s.w[i>>6] &^= 1 << (i & 63)
	if s.w[i>>6] == 0 {
		s.sum[i>>12] &^= 1 << ((i >> 6) & 63)
	}
}

// runEnd returns the last m in i..limit such that i..m are all members
// (i must be a member).
func (s bitset) runEnd(i, limit int) int {
	m := i
	for m < limit {
		w := (m + 1) >> 6
		word := s.w[w] >> ((m + 1) & 63)
		ones := bits.TrailingZeros64(^word) // members from m+1 in this word
		if ones > 64-(m+1)&63 {
			ones = 64 - (m+1)&63
		}
		if ones == 0 {
			break
		}
		m = min(m+ones, limit)
		if (m+1)&63 != 0 && m < limit {
			break // the run ended inside the word
		}
	}
	return m
}

// prev returns the largest member <= i, or -1 (a linear scan of the words:
// for the small sets of the bucket index).
func (s bitset) prev(i int) int {
	for w := i >> 6; w >= 0; w-- {
		word := s.w[w]
		if w == i>>6 && i&63 != 63 {
			word &= 1<<(i&63+1) - 1
		}
		if word != 0 {
			return w<<6 | (63 - bits.LeadingZeros64(word))
		}
	}
	return -1
}

// setRange adds lo..hi (inclusive).
func (s bitset) setRange(lo, hi int) {
	for w := lo >> 6; w <= hi>>6; w++ {
		s.w[w] |= rangeMask(w, lo, hi)
		s.sum[w>>6] |= 1 << (w & 63)
	}
}

// clearRange removes lo..hi (inclusive).
func (s bitset) clearRange(lo, hi int) {
	for w := lo >> 6; w <= hi>>6; w++ {
		s.w[w] &^= rangeMask(w, lo, hi)
		if s.w[w] == 0 {
			s.sum[w>>6] &^= 1 << (w & 63)
		}
	}
}

// next returns the smallest member >= i, or -1.
func (s bitset) next(i int) int {
	if i < 0 {
		i = 0
	}
	w := i >> 6
	if w >= len(s.w) {
		return -1
	}
	if word := s.w[w] &^ (1<<(i&63) - 1); word != 0 {
		return w<<6 | bits.TrailingZeros64(word)
	}
	// the summary: words after w
	w++
	for sw := w >> 6; sw < len(s.sum); sw++ {
		word := s.sum[sw]
		if sw == w>>6 {
			word &^= 1<<(w&63) - 1
		}
		if word != 0 {
			ww := sw<<6 | bits.TrailingZeros64(word)
			return ww<<6 | bits.TrailingZeros64(s.w[ww])
		}
	}
	return -1
}
