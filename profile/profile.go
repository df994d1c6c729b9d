// Package profile keeps the availability profile: the number of free
// processors over future time. It is the one place where capacity
// arithmetic lives; every reservation-based policy (EASY, conservative,
// k-depth backfilling, and the policies built on them) uses it.
//
// The profile is a step function free(t), with breakpoints
// t0 < t1 < … < tm where the value changes; before t0 and from tm on
// everything is free. A job that holds n processors over [s, e) lowers
// free(t) by n on [s, e).
//
// Representation: the breakpoints, in key order, are cut into blocks of at
// most leafCap consecutive breakpoints, and the blocks are the leaves of a
// B+-tree (inner nodes of at most fanCap children, every leaf at the same
// depth), also linked in a list. Write used(t) = Procs() − free(t). A block
// stores, for each of its breakpoints, the time and used(time) minus used
// just before the block's first breakpoint; so a hold changes at most two
// blocks (the ones holding its start and its end), and a block is a small
// sorted array that is scanned like the old slice representation. Every
// block stores the last, largest and smallest of its relative values, and
// every inner node the same three for each child's subtree (the sum of the
// changes, and the largest and smallest prefix sum in key order), so that a
// range maximum or minimum of used(t), or the next place where used(t)
// crosses a threshold, takes one descent that skips whole subtrees.
// Adjacent blocks always hold more than leafCap/2 breakpoints together, so
// there are O(B/leafCap) blocks. With few breakpoints (B ≤ leafCap, the
// usual case) the profile is one block: a sorted array, as before. The
// structure has no randomness: the same operations give the same tree.
//
// Complexity (B = number of breakpoints, at most twice the number of holds
// in the profile; the bounds are worst case and include O(leafCap + fanCap)
// work per level): FreeAt, Add, Remove, MinFree, MaxFree, Fits, PrefixMax
// and Forget are O(log B) (Forget also frees the blocks it drops, O(1)
// amortized per breakpoint ever added). EarliestFit and EarliestFitMoving
// are O(log B) per blocking run visited, where a blocking run is a maximal
// interval on which fewer than the requested processors are free.
// PrefixMax.Before is O(1) when the running maximum does not change and
// O(log B) when it does; PrefixMaxAt and PrefixMaxKept (a walk carried
// over a change that did not touch where its maximum is) are O(log B).
// Steps is O(B). Blocks and inner nodes live in two
// slices, linked by int32 indices, and are recycled through free lists:
// steady-state operations do not allocate.
package profile

import (
	"fmt"
	"math"
)

// Infinity is a time after every event (used for open-ended queries).
const Infinity int64 = math.MaxInt64

// leafCap is the largest number of breakpoints in a block, fanCap the
// largest number of children of an inner node.
const (
	leafCap = 64
	fanCap  = 32
)

// Sentinel bounds for prefix-sum maxima and minima of empty runs; far from
// the int range so that adding a (bounded) prefix sum cannot overflow.
const (
	negInf = math.MinInt64 / 4
	posInf = math.MaxInt64 / 4
)

// agg summarizes a run of breakpoints in key order: the sum of their
// changes of used(t), and the largest and smallest prefix sum.
type agg struct {
	sum, mx, mn int
}

// block is a leaf: a run of consecutive breakpoints. Index 0 of
// Profile.bl is unused (0 means "none").
type block struct {
	n          int   // breakpoints in key[:n], loc[:n]; never 0 in the tree
	prev, next int32 // neighbours in key order
	own        agg   // {loc[n-1], max loc, min loc}
	key        [leafCap]int64
	loc        [leafCap]int // used(key[i]) − used just before key[0]
}

// inode is an inner node: children in key order, each with the first
// breakpoint and the summary of its subtree. Index 0 of Profile.in is
// unused. The arrays have room for one child over the limit, split at once.
type inode struct {
	n     int
	first [fanCap + 1]int64
	child [fanCap + 1]int32 // blocks at height 1, inodes above
	agg   [fanCap + 1]agg
}

// step is one level of a root-to-leaf path: a node and the child taken.
type step struct {
	node int32
	idx  int
}

// Profile is the free capacity of a machine of Procs() processors over time.
// The zero value is not usable; call New.
type Profile struct {
	procs  int
	lim    int     // block capacity, leafCap (tests lower it)
	fan    int     // inner node capacity, fanCap (tests lower it)
	bl     []block // leaves; bl[0] unused
	in     []inode // inner nodes; in[0] unused
	freeB  []int32 // recycled leaves
	freeI  []int32 // recycled inner nodes
	root   int32   // a block if height is 0, else an inode; 0: empty
	height int     // number of inner levels
	head   int32   // first block in key order
	count  int     // number of breakpoints
	path   []step  // scratch: the root-to-leaf path of the last locate
}

// New returns an empty profile (all processors free at all times).
func New(procs int) *Profile {
	return &Profile{procs: procs, lim: leafCap, fan: fanCap, bl: make([]block, 1, 4), in: make([]inode, 1, 2)}
}

// Procs is the machine size.
func (p *Profile) Procs() int { return p.procs }

// Len is the number of breakpoints (the B in the complexity bounds).
func (p *Profile) Len() int { return p.count }

// Reset empties the profile, keeping its storage.
func (p *Profile) Reset() {
	p.bl, p.in = p.bl[:1], p.in[:1]
	p.freeB, p.freeI = p.freeB[:0], p.freeI[:0]
	p.root, p.height, p.head, p.count = 0, 0, 0, 0
}

// CopyFrom makes p an exact copy of src (same machine size, same
// breakpoints, same internal shape), reusing p's storage: O(B) word copies,
// with no tree operation. A policy that tries a schedule and may have to
// undo it can snapshot the profile into a scratch profile and copy it back,
// instead of undoing hold by hold.
func (p *Profile) CopyFrom(src *Profile) {
	p.procs, p.lim, p.fan = src.procs, src.lim, src.fan
	p.bl = append(p.bl[:0], src.bl...)
	p.in = append(p.in[:0], src.in...)
	p.freeB = append(p.freeB[:0], src.freeB...)
	p.freeI = append(p.freeI[:0], src.freeI...)
	p.root, p.height, p.head, p.count = src.root, src.height, src.head, src.count
}

// newBlock returns an empty, unlinked block. It may grow p.bl: pointers
// into it must be taken again afterwards.
func (p *Profile) newBlock() int32 {
	if k := len(p.freeB); k > 0 {
		x := p.freeB[k-1]
		p.freeB = p.freeB[:k-1]
		p.bl[x].n, p.bl[x].prev, p.bl[x].next = 0, 0, 0
		return x
	}
	p.bl = append(p.bl, block{})
	return int32(len(p.bl) - 1)
}

// newInode returns an empty inner node; it may grow p.in.
func (p *Profile) newInode() int32 {
	if k := len(p.freeI); k > 0 {
		x := p.freeI[k-1]
		p.freeI = p.freeI[:k-1]
		p.in[x].n = 0
		return x
	}
	p.in = append(p.in, inode{})
	return int32(len(p.in) - 1)
}

// setOwn recomputes the block's own summary. The extremes (mx, mn) of a
// block are read only through its parent or when a scan moves on to it from
// the block before; so while the tree is a lone block (height 0) they are
// not kept up to date, and splitBlock computes them when a second block
// appears. own.sum is always kept.
func (p *Profile) setOwn(x int32) {
	b := &p.bl[x]
	mx, mn := negInf, posInf
	for _, v := range b.loc[:b.n] {
		mx = max(mx, v)
		mn = min(mn, v)
	}
	b.own = agg{b.loc[b.n-1], mx, mn}
}

// summary combines the summaries of an inner node's children.
func (in *inode) summary() agg {
	s := agg{0, negInf, posInf}
	for _, a := range in.agg[:in.n] {
		s.mx = max(s.mx, s.sum+a.mx)
		s.mn = min(s.mn, s.sum+a.mn)
		s.sum += a.sum
	}
	return s
}

// nodeInfo is the summary and the first breakpoint of the subtree x at
// height h.
func (p *Profile) nodeInfo(x int32, h int) (agg, int64) {
	if h == 0 {
		return p.bl[x].own, p.bl[x].key[0]
	}
	in := &p.in[x]
	return in.summary(), in.first[0]
}

// route is the child of in whose range holds t: the last one whose first
// breakpoint is at or before t, or the first one; acc grows by the sums of
// the children before it.
func route(in *inode, t int64, acc int) (int, int) {
	c := 0
	for c+1 < in.n && in.first[c+1] <= t {
		acc += in.agg[c].sum
		c++
	}
	return c, acc
}

// upperBound is the number of the block's breakpoints at or before t.
func upperBound(b *block, t int64) int {
	// the searches from now (compression, passes) ask at the profile's
	// first breakpoints: look there before bisecting
	if b.n == 0 || b.key[0] > t {
		return 0
	}
	if b.n == 1 || b.key[1] > t {
		return 1
	}
	lo, hi := 2, b.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b.key[m] <= t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// lowerBound is the number of the block's breakpoints before t.
func lowerBound(b *block, t int64) int {
	lo, hi := 0, b.n
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if b.key[m] < t {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// locate finds the block whose range holds t (the last block whose first
// breakpoint is at or before t, or the first block) and the sum of the
// changes before it, and leaves the path from the root to it in p.path.
// The profile must not be empty.
func (p *Profile) locate(t int64) (x int32, acc int) {
	p.path = p.path[:0]
	x = p.root
	for h := p.height; h > 0; h-- {
		in := &p.in[x]
		var c int
		c, acc = route(in, t, acc)
		p.path = append(p.path, step{x, c})
		x = in.child[c]
	}
	return x, acc
}

// find is locate without the path.
func (p *Profile) find(t int64) (x int32, acc int) {
	x = p.root
	for h := p.height; h > 0; h-- {
		in := &p.in[x]
		var c int
		c, acc = route(in, t, acc)
		x = in.child[c]
	}
	return x, acc
}

// propagate writes the summary and first breakpoint of block x, which
// p.path leads to, into its ancestors. It stops at the first ancestor
// whose copy is already equal: every node above was computed from that
// copy (a change inside a block that keeps its sum, extremes and first
// breakpoint — most holds that begin and end in one block — costs no
// summary of an inner node).
func (p *Profile) propagate(x int32) {
	s, f := p.bl[x].own, p.bl[x].key[0]
	for k := len(p.path) - 1; k >= 0; k-- {
		st := p.path[k]
		in := &p.in[st.node]
		if in.agg[st.idx] == s && in.first[st.idx] == f {
			return
		}
		in.agg[st.idx], in.first[st.idx] = s, f
		if k == 0 {
			break
		}
		s, f = in.summary(), in.first[0]
	}
}

// refresh recomputes the ancestors' view of block x after a change of its
// breakpoints.
func (p *Profile) refresh(x int32) {
	p.locate(p.bl[x].key[0])
	p.propagate(x)
}

// change adds d ≠ 0 to the change of used(t) at key: a new breakpoint is
// inserted, one whose change becomes 0 is deleted.
func (p *Profile) change(key int64, d int) {
	if p.root == 0 {
		x := p.newBlock()
		b := &p.bl[x]
		b.n = 1
		b.key[0], b.loc[0] = key, d
		p.setOwn(x)
		p.root, p.head, p.height = x, x, 0
		p.count++
		return
	}
	x, _ := p.locate(key)
	p.changeAt(x, key, d)
}

// changeAt is change when key is in the range of block x and p.path leads
// to x.
func (p *Profile) changeAt(x int32, key int64, d int) {
	b := &p.bl[x]
	i := lowerBound(b, key)
	if i == b.n || b.key[i] != key {
		if b.n == p.lim {
			p.splitBlock(x)
			p.change(key, d)
			return
		}
		p.insertAt(b, i, key)
	}
	if p.height > 0 {
		addFrom(b, i, d)
	} else {
		for j := i; j < b.n; j++ {
			b.loc[j] += d
		}
		b.own.sum = b.loc[b.n-1]
	}
	prev := 0
	if i > 0 {
		prev = b.loc[i-1]
	}
	if b.loc[i] != prev {
		p.propagate(x)
		return
	}
	// the change at key is now 0: delete the breakpoint
	p.deleteAt(b, i)
	if b.n == 0 {
		p.dropMend(x, key)
		return
	}
	b.own.sum = b.loc[b.n-1]
	if i == 0 && p.height > 0 {
		p.setOwn(x) // the deleted 0 may have been the extreme
	}
	p.propagate(x)
	p.rebalance(x)
}

// addFrom adds d to the relative values of b from index i on, and
// recomputes b's own summary in the same pass.
func addFrom(b *block, i int, d int) {
	mx, mn := negInf, posInf
	for _, v := range b.loc[:i] {
		mx, mn = max(mx, v), min(mn, v)
	}
	for j := i; j < b.n; j++ {
		v := b.loc[j] + d
		b.loc[j] = v
		mx, mn = max(mx, v), min(mn, v)
	}
	b.own = agg{b.loc[b.n-1], mx, mn}
}

// splitBlock moves the upper half of the full block x to a new block after
// it.
func (p *Profile) splitBlock(x int32) {
	y := p.newBlock()
	b, c := &p.bl[x], &p.bl[y]
	h := b.n / 2
	c.n = b.n - h
	copy(c.key[:c.n], b.key[h:b.n])
	base := b.loc[h-1]
	for j := range c.n {
		c.loc[j] = b.loc[h+j] - base
	}
	b.n = h
	c.prev, c.next = x, b.next
	if b.next != 0 {
		p.bl[b.next].prev = y
	}
	b.next = y
	p.setOwn(x)
	p.setOwn(y)
	if p.height == 0 {
		p.root = p.newRoot(x, y)
		return
	}
	if sib := p.insertRec(p.root, p.height, p.bl[x].key[0], y); sib != 0 {
		p.root = p.newRoot(p.root, sib)
	}
}

// newRoot makes an inner node over the subtrees a and b, one level higher.
func (p *Profile) newRoot(a, b int32) int32 {
	r := p.newInode()
	for i, x := range [2]int32{a, b} {
		s, f := p.nodeInfo(x, p.height)
		p.in[r].child[i], p.in[r].agg[i], p.in[r].first[i] = x, s, f
	}
	p.in[r].n = 2
	p.height++
	return r
}

// insertRec puts the new block y right after the block whose range holds
// k, in the subtree x at height h ≥ 1, refreshing the summaries on the way
// back up. It returns the new right half if x had to split, else 0.
func (p *Profile) insertRec(x int32, h int, k int64, y int32) int32 {
	c, _ := route(&p.in[x], k, 0)
	var add int32 // the child to insert after c
	if h == 1 {
		add = y
	} else {
		add = p.insertRec(p.in[x].child[c], h-1, k, y)
	}
	in := &p.in[x]
	in.agg[c], in.first[c] = p.nodeInfo(in.child[c], h-1)
	if add == 0 {
		return 0
	}
	s, f := p.nodeInfo(add, h-1)
	copy(in.child[c+2:in.n+1], in.child[c+1:in.n])
	copy(in.agg[c+2:in.n+1], in.agg[c+1:in.n])
	copy(in.first[c+2:in.n+1], in.first[c+1:in.n])
	in.child[c+1], in.agg[c+1], in.first[c+1] = add, s, f
	in.n++
	if in.n <= p.fan {
		return 0
	}
	// split: the upper half goes to a new node
	z := p.newInode()
	in, nz := &p.in[x], &p.in[z]
	m := in.n / 2
	nz.n = in.n - m
	copy(nz.child[:nz.n], in.child[m:in.n])
	copy(nz.agg[:nz.n], in.agg[m:in.n])
	copy(nz.first[:nz.n], in.first[m:in.n])
	in.n = m
	return z
}

// dropBlock removes the block x, which has become empty; k was in its
// range.
func (p *Profile) dropBlock(x int32, k int64) {
	b := &p.bl[x]
	if b.prev != 0 {
		p.bl[b.prev].next = b.next
	} else {
		p.head = b.next
	}
	if b.next != 0 {
		p.bl[b.next].prev = b.prev
	}
	p.freeB = append(p.freeB, x)
	if p.height == 0 {
		p.root = 0
		return
	}
	p.removeRec(p.root, p.height, k)
	for p.height > 0 && p.in[p.root].n == 1 {
		// a root with one child: the child becomes the root
		r := p.root
		p.root = p.in[r].child[0]
		p.freeI = append(p.freeI, r)
		p.height--
	}
}

// dropMend is dropBlock followed by the merge of the two blocks that
// become neighbours, if they are small enough.
func (p *Profile) dropMend(x int32, k int64) {
	w := p.bl[x].prev
	p.dropBlock(x, k)
	if w != 0 {
		p.rebalance(w)
	}
}

// removeRec takes the block whose range holds k out of the subtree x at
// height h ≥ 1, merging or evening out inner nodes that fall below a
// quarter full, and refreshes the summaries on the way back up.
func (p *Profile) removeRec(x int32, h int, k int64) {
	c, _ := route(&p.in[x], k, 0)
	if h > 1 {
		y := p.in[x].child[c]
		p.removeRec(y, h-1, k)
		in := &p.in[x]
		if p.in[y].n > 0 {
			in.agg[c], in.first[c] = p.nodeInfo(y, h-1)
			if p.in[y].n < max(1, p.fan/4) && in.n > 1 {
				p.evenOut(x, h, c)
			}
			return
		}
		p.freeI = append(p.freeI, y)
	}
	in := &p.in[x]
	copy(in.child[c:in.n-1], in.child[c+1:in.n])
	copy(in.agg[c:in.n-1], in.agg[c+1:in.n])
	copy(in.first[c:in.n-1], in.first[c+1:in.n])
	in.n--
}

// evenOut merges the underfull child c of x (at height h ≥ 2) with a
// neighbour, or moves children over from it if both do not fit in one.
func (p *Profile) evenOut(x int32, h int, c int) {
	in := &p.in[x]
	if c+1 == in.n {
		c-- // pair c with c+1
	}
	a, b := &p.in[in.child[c]], &p.in[in.child[c+1]]
	if a.n+b.n <= p.fan {
		copy(a.child[a.n:a.n+b.n], b.child[:b.n])
		copy(a.agg[a.n:a.n+b.n], b.agg[:b.n])
		copy(a.first[a.n:a.n+b.n], b.first[:b.n])
		a.n += b.n
		p.freeI = append(p.freeI, in.child[c+1])
		copy(in.child[c+1:in.n-1], in.child[c+2:in.n])
		copy(in.agg[c+1:in.n-1], in.agg[c+2:in.n])
		copy(in.first[c+1:in.n-1], in.first[c+2:in.n])
		in.n--
		in.agg[c], in.first[c] = p.nodeInfo(in.child[c], h-1)
		return
	}
	// move children across so that both hold about half
	t := (a.n + b.n) / 2
	if a.n < t {
		m := t - a.n // b's first m go to a's end
		copy(a.child[a.n:t], b.child[:m])
		copy(a.agg[a.n:t], b.agg[:m])
		copy(a.first[a.n:t], b.first[:m])
		copy(b.child[:], b.child[m:b.n])
		copy(b.agg[:], b.agg[m:b.n])
		copy(b.first[:], b.first[m:b.n])
		a.n, b.n = t, b.n-m
	} else {
		m := a.n - t // a's last m go to b's front
		copy(b.child[m:b.n+m], b.child[:b.n])
		copy(b.agg[m:b.n+m], b.agg[:b.n])
		copy(b.first[m:b.n+m], b.first[:b.n])
		copy(b.child[:m], a.child[t:a.n])
		copy(b.agg[:m], a.agg[t:a.n])
		copy(b.first[:m], a.first[t:a.n])
		a.n, b.n = t, b.n+m
	}
	in.agg[c], in.first[c] = p.nodeInfo(in.child[c], h-1)
	in.agg[c+1], in.first[c+1] = p.nodeInfo(in.child[c+1], h-1)
}

// rebalance merges block x with a neighbour while the two hold at most
// lim/2 breakpoints together, which keeps the number of blocks O(B/lim).
func (p *Profile) rebalance(x int32) {
	for {
		b := &p.bl[x]
		if y := b.next; y != 0 && b.n+p.bl[y].n <= p.lim/2 {
			p.absorb(x, y)
			continue
		}
		if w := b.prev; w != 0 && p.bl[w].n+b.n <= p.lim/2 {
			p.absorb(w, x)
			x = w
			continue
		}
		return
	}
}

// absorb appends block y, the one after x, to x.
func (p *Profile) absorb(x, y int32) {
	b, c := &p.bl[x], &p.bl[y]
	base := b.own.sum
	copy(b.key[b.n:b.n+c.n], c.key[:c.n])
	for j := range c.n {
		b.loc[b.n+j] = c.loc[j] + base
	}
	b.n += c.n
	p.setOwn(x)
	p.dropBlock(y, c.key[0])
	p.refresh(x)
}

// used is the number of used processors at t.
func (p *Profile) used(t int64) int {
	if p.root == 0 {
		return 0
	}
	x, acc := p.find(t)
	b := &p.bl[x]
	if i := upperBound(b, t); i > 0 {
		return acc + b.loc[i-1]
	}
	return acc
}

// usedRange returns used(lo) and the largest and smallest used(k) over the
// breakpoints k with lo < k < hi (negInf and posInf if there is none). The
// used count over the instants of [lo, hi) thus ranges over
// [min(at, mn), max(at, mx)].
func (p *Profile) usedRange(lo, hi int64) (at, mx, mn int) {
	mx, mn = negInf, posInf
	if p.root == 0 {
		return 0, mx, mn
	}
	x, acc := p.find(lo)
	b := &p.bl[x]
	i := upperBound(b, lo)
	at = acc
	if i > 0 {
		at += b.loc[i-1]
	}
	for ; i < b.n && b.key[i] < hi; i++ {
		v := acc + b.loc[i]
		mx, mn = max(mx, v), min(mn, v)
	}
	if i < b.n || b.next == 0 || p.bl[b.next].key[0] >= hi {
		return at, mx, mn
	}
	// the range goes on past block x
	mx, mn = p.rangeAgg(p.root, p.height, 0, b.key[b.n-1], hi, mx, mn)
	return at, mx, mn
}

// rangeAgg folds into (mx, mn) the used counts at the breakpoints k with
// lo < k < hi in the subtree x at height h, whose breakpoints are preceded
// by changes summing to acc.
func (p *Profile) rangeAgg(x int32, h int, acc int, lo, hi int64, mx, mn int) (int, int) {
	if h == 0 {
		b := &p.bl[x]
		for _, v := range b.loc[upperBound(b, lo):lowerBound(b, hi)] {
			mx, mn = max(mx, acc+v), min(mn, acc+v)
		}
		return mx, mn
	}
	in := &p.in[x]
	c, acc := route(in, lo, acc)
	for ; c < in.n && in.first[c] < hi; c++ {
		a := &in.agg[c]
		if in.first[c] > lo && c+1 < in.n && in.first[c+1] <= hi {
			// the whole child is inside (lo, hi)
			mx, mn = max(mx, acc+a.mx), min(mn, acc+a.mn)
		} else {
			mx, mn = p.rangeAgg(in.child[c], h-1, acc, lo, hi, mx, mn)
		}
		acc += a.sum
	}
	return mx, mn
}

// lastAbove finds, in the subtree x at height h whose breakpoints are
// preceded by changes summing to acc, the last breakpoint k with
// lo < k < hi and used(k) > u.
func (p *Profile) lastAbove(x int32, h int, acc int, lo, hi int64, u int) (int64, bool) {
	if h == 0 {
		b := &p.bl[x]
		i, j := upperBound(b, lo), lowerBound(b, hi)
		for j--; j >= i; j-- {
			if acc+b.loc[j] > u {
				return b.key[j], true
			}
		}
		return 0, false
	}
	in := &p.in[x]
	c0, acc := route(in, lo, acc)
	c, a := c0, acc // the last child that starts before hi, and its acc
	for c+1 < in.n && in.first[c+1] < hi {
		a += in.agg[c].sum
		c++
	}
	for ; c >= c0; c-- {
		if a+in.agg[c].mx > u {
			if k, ok := p.lastAbove(in.child[c], h-1, a, lo, hi, u); ok {
				return k, true
			}
		}
		if c > c0 {
			a -= in.agg[c-1].sum
		}
	}
	return 0, false
}

// firstAtMost finds, in the subtree x at height h whose breakpoints are
// preceded by changes summing to acc, the first breakpoint k > lo with
// used(k) ≤ u.
func (p *Profile) firstAtMost(x int32, h int, acc int, lo int64, u int) (int64, bool) {
	if h == 0 {
		b := &p.bl[x]
		for i := upperBound(b, lo); i < b.n; i++ {
			if acc+b.loc[i] <= u {
				return b.key[i], true
			}
		}
		return 0, false
	}
	in := &p.in[x]
	c, acc := route(in, lo, acc)
	for ; c < in.n; c++ {
		if acc+in.agg[c].mn <= u {
			if k, ok := p.firstAtMost(in.child[c], h-1, acc, lo, u); ok {
				return k, true
			}
		}
		acc += in.agg[c].sum
	}
	return 0, false
}

// FreeAt is the number of free processors at time t.
func (p *Profile) FreeAt(t int64) int {
	return p.procs - p.used(t)
}

// Add occupies n processors over [start, end). It returns an error, and
// changes nothing, if that would leave fewer than zero free processors at
// some instant.
func (p *Profile) Add(start, end int64, n int) error {
	if end <= start || n == 0 {
		return nil
	}
	if n < 0 || n > p.procs {
		return fmt.Errorf("profile: cannot hold %d processors on a %d-processor machine", n, p.procs)
	}
	if !p.apply(start, end, n) {
		return fmt.Errorf("profile: %d processors over [%d, %d) exceed the %d free", n, start, end, p.MinFree(start, end))
	}
	return nil
}

// Remove releases n processors over [start, end) that an earlier Add held.
// It returns an error, and changes nothing, if that would leave more than
// Procs() free at some instant (releasing what was never held).
func (p *Profile) Remove(start, end int64, n int) error {
	if end <= start || n == 0 {
		return nil
	}
	if n < 0 {
		return fmt.Errorf("profile: cannot release %d processors", n)
	}
	if !p.apply(start, end, -n) {
		return fmt.Errorf("profile: releasing %d processors over [%d, %d) exceeds the machine (%d free of %d)", n, start, end, p.MaxFree(start, end), p.procs)
	}
	return nil
}

// Move moves a hold of n processors for dur seconds from [from, from+dur)
// to [to, to+dur) for a caller that knows the new place has room (a
// compression moving a reservation to the earliest fit it just found, its
// own hold counting as free). It is Remove then Add without their range
// checks, which cost a tree query when a hold spans blocks; it panics if
// the move leaves some instant with fewer than 0 or more than Procs()
// free where it can see it cheaply, and otherwise leaves a profile that
// breaks that invariant (the caller's bug).
func (p *Profile) Move(from, to, dur int64, n int) {
	if dur <= 0 || n == 0 || from == to {
		return
	}
	switch {
	case to < from && from < to+dur:
		// the holds overlap: +n before the old one, −n after the new one;
		// shorter ranges, more often within one block (after the first
		// change [to, from) already has its final value)
		p.applyTrusted(to, from, n)
		p.applyTrusted(to+dur, from+dur, -n)
	case from < to && to < from+dur:
		p.applyTrusted(from, to, -n)
		p.applyTrusted(from+dur, to+dur, n)
	default:
		p.applyTrusted(from, from+dur, -n)
		p.applyTrusted(to, to+dur, n)
	}
}

// AddFitted is Add for a hold the caller has just found room for (with
// EarliestFit, in this profile, over a window that contains [start, end)):
// it skips Add's range check, which costs a tree query when the hold spans
// blocks. A hold that does not fit leaves a profile that breaks its
// invariant (the caller's bug); it panics where it can see that cheaply.
func (p *Profile) AddFitted(start, end int64, n int) {
	if end <= start || n == 0 {
		return
	}
	p.applyTrusted(start, end, n)
}

// applyTrusted is apply without the range check when the change spans
// blocks.
func (p *Profile) applyTrusted(start, end int64, d int) {
	if p.root != 0 {
		x, acc := p.locate(start)
		b := &p.bl[x]
		if b.n+2 <= p.lim && (b.next == 0 || end < p.bl[b.next].key[0]) {
			if !p.applyIn(x, acc, start, end, d) {
				panic(fmt.Sprintf("profile: Move of %d processors over [%d, %d) leaves the machine's range", d, start, end))
			}
			return
		}
		p.changeAt(x, start, d) // p.path leads to x
	} else {
		p.change(start, d)
	}
	p.change(end, -d)
}

// apply adds d to used(t) on [start, end) if it stays within [0, procs]
// everywhere, and reports whether it did. When both ends fall in one block
// with room for two more breakpoints (always, for a one-block profile), it
// works in place in one pass, as the slice representation did; otherwise
// it checks with a range query and changes the two ends.
func (p *Profile) apply(start, end int64, d int) bool {
	if p.root == 0 {
		if d < 0 || d > p.procs {
			return false
		}
		p.change(start, d)
		p.change(end, -d)
		return true
	}
	x, acc := p.locate(start)
	b := &p.bl[x]
	if b.n+2 <= p.lim && (b.next == 0 || end < p.bl[b.next].key[0]) {
		return p.applyIn(x, acc, start, end, d)
	}
	// check: used at start, the breakpoints of x up to end, then the ones
	// after x
	i := upperBound(b, start)
	at := acc
	if i > 0 {
		at += b.loc[i-1]
	}
	mx, mn := at, at
	for ; i < b.n && b.key[i] < end; i++ {
		v := acc + b.loc[i]
		mx, mn = max(mx, v), min(mn, v)
	}
	if i == b.n && b.next != 0 && p.bl[b.next].key[0] < end {
		mx, mn = p.rangeAgg(p.root, p.height, 0, b.key[b.n-1], end, mx, mn)
	}
	if mx+d > p.procs || mn+d < 0 {
		return false
	}
	p.changeAt(x, start, d) // p.path still leads to x
	p.change(end, -d)
	return true
}

// applyIn is apply within block x, whose breakpoints are preceded by
// changes summing to acc; p.path leads to x.
func (p *Profile) applyIn(x int32, acc int, start, end int64, d int) bool {
	b := &p.bl[x]
	i := lowerBound(b, start)
	if i == b.n || b.key[i] != start {
		p.insertAt(b, i, start)
	}
	j := i + 1
	for j < b.n && b.key[j] < end {
		j++
	}
	if j == b.n || b.key[j] != end {
		p.insertAt(b, j, end)
	}
	// used(t) = acc + loc on [key[k], key[k+1]); need 0 ≤ acc + loc + d ≤ procs
	lo, hi := -acc-d, p.procs-acc-d
	rmx, rmn := negInf, posInf // old values over [i, j)
	ok := true
	k := i
	for ; k < j; k++ {
		v := b.loc[k]
		if v < lo || v > hi {
			ok = false
			break
		}
		rmx, rmn = max(rmx, v), min(rmn, v)
		b.loc[k] = v + d
	}
	if !ok {
		for k--; k >= i; k-- {
			b.loc[k] -= d
		}
	}
	// drop the breakpoints at the ends if they no longer change anything
	// (on failure, exactly the ones inserted above)
	if b.loc[j] == b.loc[j-1] {
		p.deleteAt(b, j)
	}
	prev := 0
	if i > 0 {
		prev = b.loc[i-1]
	}
	dropFirst := b.loc[i] == prev
	if dropFirst {
		p.deleteAt(b, i)
	}
	if !ok {
		return false // the block is as it was
	}
	if b.n == 0 {
		p.dropMend(x, start)
		return true
	}
	// own summary: the values outside [i, j) are unchanged, the ones
	// inside moved by d, and the inserted or deleted breakpoints repeat a
	// neighbour's value (or 0 at index 0); rescan when an extreme may have
	// been lost
	o := &b.own
	o.sum = b.loc[b.n-1]
	switch {
	case p.height == 0:
		// a lone block's extremes are not used (see setOwn)
	case dropFirst && i == 0:
		p.setOwn(x)
	case d > 0 && rmn > o.mn:
		o.mx = max(o.mx, rmx+d)
	case d < 0 && rmx < o.mx:
		o.mn = min(o.mn, rmn+d)
	default:
		p.setOwn(x)
	}
	p.propagate(x)
	if b.n <= p.lim/2 {
		p.rebalance(x)
	}
	return true
}

// insertAt inserts a breakpoint at key, with no change, at index i of b.
func (p *Profile) insertAt(b *block, i int, key int64) {
	copy(b.key[i+1:b.n+1], b.key[i:b.n])
	copy(b.loc[i+1:b.n+1], b.loc[i:b.n])
	b.key[i] = key
	if i > 0 {
		b.loc[i] = b.loc[i-1]
	} else {
		b.loc[i] = 0
	}
	b.n++
	p.count++
}

// deleteAt removes the breakpoint at index i of b.
func (p *Profile) deleteAt(b *block, i int) {
	copy(b.key[i:b.n-1], b.key[i+1:b.n])
	copy(b.loc[i:b.n-1], b.loc[i+1:b.n])
	b.n--
	p.count--
}

// MinFree is the least number of free processors at any instant of
// [start, end); Procs() for an empty interval.
func (p *Profile) MinFree(start, end int64) int {
	if end <= start {
		return p.procs
	}
	at, mx, _ := p.usedRange(start, end)
	return p.procs - max(at, mx)
}

// MaxFree is the largest number of free processors at any instant of
// [start, end); 0 for an empty interval.
func (p *Profile) MaxFree(start, end int64) int {
	if end <= start {
		return 0
	}
	at, _, mn := p.usedRange(start, end)
	return p.procs - min(at, mn)
}

// Fits reports whether n processors are free over all of [start, start+dur).
func (p *Profile) Fits(start, dur int64, n int) bool {
	return p.MinFree(start, start+dur) >= n
}

// EarliestFit is the earliest time t ≥ after at which n processors are free
// over all of [t, t+dur). n must be at most Procs(); the answer then always
// exists, because every hold in the profile ends. A non-positive dur fits
// wherever FreeAt(t) ≥ n would, and is treated as dur = 1.
func (p *Profile) EarliestFit(after, dur int64, n int) int64 {
	if n > p.procs {
		return Infinity
	}
	if dur < 1 {
		dur = 1
	}
	if n <= 0 || p.root == 0 {
		return after
	}
	t, _ := p.fit(after, dur, p.procs-n, Infinity, Infinity, math.MaxInt)
	return t
}

// EarliestFitMoving is EarliestFit for a job that already holds n
// processors over [own, own+dur) and may only move earlier: its own hold
// counts as free, and the answer is own when no earlier start fits. The
// profile is not changed. Conservative backfilling's compression uses it
// to learn, without touching the profile, whether a reservation can move.
//
// For a candidate t < own, the part of the window [t, t+dur) from own on
// lies inside the own hold, where the n processors are free by definition;
// so t fits iff n processors are free over [t, min(t+dur, own)), and the
// search is EarliestFit's with the window cut at own and stopped at own.
func (p *Profile) EarliestFitMoving(after, dur int64, n int, own int64) int64 {
	if dur < 1 {
		dur = 1
	}
	if after >= own || n > p.procs {
		return own
	}
	if n <= 0 || p.root == 0 {
		return after
	}
	t, _ := p.fit(after, dur, p.procs-n, own, own, math.MaxInt)
	return t
}

// EarliestFitMovingBefore is EarliestFitMoving restricted to starts before
// limit: the earliest t, after ≤ t < min(limit, own), at which the job fits
// (its own hold counting as free), or own if there is none. A compression
// that knows where capacity was released uses it to stop the search early:
// a start whose window meets no released capacity cannot fit if none did
// before the release.
func (p *Profile) EarliestFitMovingBefore(after, dur int64, n int, own, limit int64) int64 {
	if dur < 1 {
		dur = 1
	}
	limit = min(limit, own)
	if after >= limit || n > p.procs {
		return own
	}
	if n <= 0 || p.root == 0 {
		return after
	}
	t, _ := p.fit(after, dur, p.procs-n, own, limit, math.MaxInt)
	return t
}

// EarliestFitMovingBounded is EarliestFitMovingBefore that gives up after
// budget candidate starts (one per blocking run crossed): it returns
// (t, true) with the answer, or (t, false) when it gave up, where t <
// min(limit, own) and no start in [after, t) fits. A caller that knows a
// better lower bound than t for the answer (a dominance argument, say)
// can then go on from there with EarliestFitMovingBefore.
func (p *Profile) EarliestFitMovingBounded(after, dur int64, n int, own, limit int64, budget int) (int64, bool) {
	if dur < 1 {
		dur = 1
	}
	limit = min(limit, own)
	if after >= limit || n > p.procs {
		return own, true
	}
	if n <= 0 || p.root == 0 {
		return after, true
	}
	return p.fit(after, dur, p.procs-n, own, limit, budget)
}

// maxHops is how many blocks fit scans before it switches to descents.
const maxHops = 4

// fit is the earliest t, after ≤ t < limit, with used ≤ u over all of
// [t, min(t+dur, stop)), or stop if there is none (limit ≤ stop; after <
// limit), and true. After budget candidate starts (the first
// non-blocking breakpoint after each blocking run) it gives up and
// returns the current candidate t < limit and false: no start in
// [after, t) fits.
//
// It scans the breakpoints forward from after, as the slice representation
// did: on a blocking breakpoint (used > u) it looks for the next one that
// is not blocking, which is the next candidate t, and it stops at the end
// of t's window. Whole blocks that cannot block (or cannot unblock) are
// skipped by their summaries; after maxHops blocks it continues with
// treeFit, so that each blocking run costs O(log B).
func (p *Profile) fit(after, dur int64, u int, stop, limit int64, budget int) (int64, bool) {
	bl := p.bl
	x, la := p.find(after)
	b := &bl[x]
	i := upperBound(b, after)
	t := after
	v := la
	if i > 0 {
		v += b.loc[i-1]
	}
	blocked := v > u
	bk := after // while blocked: every instant from bk to the scan is blocked
	end := min(t+dur, stop)
	hops := 0
	for {
		if i == b.n {
			la += b.own.sum
			x = b.next
			if x == 0 {
				if blocked {
					return stop, true // unreachable: the profile ends fully free
				}
				return t, true
			}
			b = &bl[x]
			i = 0
			if hops++; hops > maxHops {
				if blocked {
					return p.treeFitAfter(bk, dur, u, stop, limit, budget)
				}
				return p.treeFit(t, dur, u, stop, limit, budget)
			}
			if blocked {
				if la+b.own.mn > u {
					i = b.n // the whole block blocks
				}
			} else {
				if b.key[0] >= end {
					return t, true
				}
				if b.key[b.n-1] < end && la+b.own.mx <= u {
					i = b.n // the whole block fits
				}
			}
			continue
		}
		k, w := b.key[i], la+b.loc[i]
		i++
		if blocked {
			if w <= u {
				if k >= limit {
					return stop, true
				}
				t, blocked = k, false
				end = min(t+dur, stop)
				if budget--; budget <= 0 {
					return t, false
				}
			}
		} else {
			if k >= end {
				return t, true
			}
			if w > u {
				blocked, bk = true, k
			}
		}
	}
}

// treeFitAfter is fit when every instant from bk to the next breakpoint is
// blocked.
func (p *Profile) treeFitAfter(bk, dur int64, u int, stop, limit int64, budget int) (int64, bool) {
	k, ok := p.firstAtMost(p.root, p.height, 0, bk, u)
	if !ok || k >= limit {
		return stop, true
	}
	if budget--; budget <= 0 {
		return k, false
	}
	return p.treeFit(k, dur, u, stop, limit, budget)
}

// treeFit is fit from a t with used(t) ≤ u, by descents: the last blocking
// breakpoint b of the window, then the first breakpoint after b that does
// not block, which is the next candidate; O(log B) per blocking run.
func (p *Profile) treeFit(t, dur int64, u int, stop, limit int64, budget int) (int64, bool) {
	for t < limit {
		b, ok := p.lastAbove(p.root, p.height, 0, t, min(t+dur, stop), u)
		if !ok {
			return t, true
		}
		k, ok := p.firstAtMost(p.root, p.height, 0, b, u)
		if !ok {
			return stop, true
		}
		t = k
		if budget--; budget <= 0 && t < limit {
			return t, false
		}
	}
	return stop, true
}

// Step is one step of the profile: Free processors from At until the next
// step's At.
type Step struct {
	At   int64
	Free int
}

// Steps returns a copy of the profile's steps, for tests and displays: the
// breakpoints in increasing order, no two neighbours with the same Free,
// the last one fully free.
func (p *Profile) Steps() []Step {
	s := make([]Step, 0, p.count)
	acc := 0
	for x := p.head; x != 0; x = p.bl[x].next {
		b := &p.bl[x]
		for i := range b.n {
			s = append(s, Step{b.key[i], p.procs - acc - b.loc[i]})
		}
		acc += b.own.sum
	}
	return s
}

// AppendSteps appends the steps that Steps returns to dst and returns the
// extended slice: Steps without an allocation, for a policy that scans the
// steps at every pass (multiple-queue backfilling's cross-partition
// reservation).
func (p *Profile) AppendSteps(dst []Step) []Step {
	acc := 0
	for x := p.head; x != 0; x = p.bl[x].next {
		b := &p.bl[x]
		for i := range b.n {
			dst = append(dst, Step{b.key[i], p.procs - acc - b.loc[i]})
		}
		acc += b.own.sum
	}
	return dst
}

// AppendStepsUntil appends the steps at or before t to dst and returns the
// extended slice: AppendSteps cut at t, walking only the part of the
// profile up to t (a search bounded to the near future).
func (p *Profile) AppendStepsUntil(dst []Step, t int64) []Step {
	acc := 0
	for x := p.head; x != 0; x = p.bl[x].next {
		b := &p.bl[x]
		for i := range b.n {
			if b.key[i] > t {
				return dst
			}
			dst = append(dst, Step{b.key[i], p.procs - acc - b.loc[i]})
		}
		acc += b.own.sum
	}
	return dst
}

// Forget drops the breakpoints before t that no longer matter: the value at
// t is kept. Policies call it as time advances so that B stays proportional
// to the jobs still held.
//
// The breakpoints before t are folded into one at t (as the slice
// representation moved the step containing t to start at t); a lone
// breakpoint before t, with none at t, is kept as it is.
func (p *Profile) Forget(t int64) {
	if p.root == 0 {
		return
	}
	h := &p.bl[p.head]
	if h.key[0] >= t {
		return // nothing before t
	}
	second := Infinity
	if h.n >= 2 {
		second = h.key[1]
	} else if h.next != 0 {
		second = p.bl[h.next].key[0]
	}
	if second > t {
		return // one breakpoint before t and none at t: kept
	}
	x, acc := p.locate(t)
	if x != p.head {
		// drop the blocks before x, whose changes sum to acc, and make
		// x's values relative to 0
		for p.head != x {
			y := p.head
			p.count -= p.bl[y].n
			p.dropBlock(y, p.bl[y].key[0])
		}
		b := &p.bl[x]
		for i := range b.n {
			b.loc[i] += acc
		}
		b.own = agg{b.own.sum + acc, b.own.mx + acc, b.own.mn + acc}
		p.locate(t)
	}
	// x is the first block: it keeps [t → used(t)] if not 0, then its
	// breakpoints after t
	b := &p.bl[x]
	i0 := upperBound(b, t) // ≥ 1
	keep := i0             // the breakpoints [keep:] stay
	if b.loc[i0-1] != 0 {
		keep--
	}
	rmx, rmn := negInf, posInf // values dropped
	for _, v := range b.loc[:keep] {
		rmx, rmn = max(rmx, v), min(rmn, v)
	}
	w := copy(b.key[:], b.key[keep:b.n])
	copy(b.loc[:], b.loc[keep:b.n])
	b.key[0] = max(b.key[0], t)
	p.count -= keep
	b.n = w
	if w == 0 {
		p.dropMend(x, t)
		return
	}
	b.own.sum = b.loc[b.n-1]
	if p.height > 0 && (rmx >= b.own.mx || rmn <= b.own.mn) {
		p.setOwn(x) // an extreme may have gone
	}
	p.propagate(x)
	p.rebalance(x)
}

// PrefixMax walks the profile forward from a time and answers "the largest
// number of free processors at any instant of [from, x)" for
// non-decreasing x. It is invalidated by any change to the profile (start a
// new one).
type PrefixMax struct {
	p    *Profile
	from int64
	upto int64 // the instants of [from, upto) are folded
	lo   int   // least used count over the instants folded so far
	arg  int64 // the first of them with used = lo; noArg: not known
	x    int32 // block of the cursor; 0: past the last breakpoint
	i    int   // next breakpoint of block x to fold
	la   int   // sum of the changes before block x
}

// noArg is PrefixMax.arg when the walk does not know where its least used
// count is (it was folded by a range query).
const noArg = math.MinInt64

// PrefixMax starts a forward walk at from. O(log B).
func (p *Profile) PrefixMax(from int64) PrefixMax {
	pm := PrefixMax{p: p, from: from, upto: from, arg: from}
	if p.root == 0 {
		return pm // lo = 0: all free
	}
	x, la := p.find(from)
	b := &p.bl[x]
	i := upperBound(b, from)
	pm.lo = la
	if i > 0 {
		pm.lo += b.loc[i-1]
	}
	pm.x, pm.i, pm.la = x, i, la
	return pm
}

// PrefixMaxAt is PrefixMax(from) already advanced to x (Before(x) called):
// one range query instead of the walk, for a caller that restarts the walk
// after changing the profile (the compression, after a move). O(log B).
func (p *Profile) PrefixMaxAt(from, x int64) PrefixMax {
	if x <= from || p.root == 0 {
		return p.PrefixMax(from)
	}
	at, _, mn := p.usedRange(from, x)
	y, la := p.find(x)
	arg := from
	if at > mn {
		// the first breakpoint after from with the least used count
		if k, ok := p.firstAtMost(p.root, p.height, 0, from, mn); ok {
			arg = k
		} else {
			arg = noArg // unreachable: mn is a breakpoint's
		}
	}
	return PrefixMax{p: p, from: from, upto: x, lo: min(at, mn), arg: arg, x: y, i: lowerBound(&p.bl[y], x), la: la}
}

// PrefixMaxKept is pm, a walk of this profile advanced to some x, carried
// over a change of the profile that raised used counts only on [lo, hi)
// and at or after x (a compression moving a reservation that started at or
// after x to [lo, hi)): when the walk knows an instant before x where its
// largest free count is reached, outside [lo, hi), that count is
// unchanged, and the walk goes on from x with its cursor found again,
// O(log B), instead of a range query from pm's start (PrefixMaxAt). It
// reports false, and pm is not usable, when it cannot tell.
func (p *Profile) PrefixMaxKept(pm PrefixMax, lo, hi int64) (PrefixMax, bool) {
	if pm.arg == noArg || (pm.arg >= lo && pm.arg < hi) || pm.upto <= pm.from || p.root == 0 {
		return pm, false
	}
	y, la := p.find(pm.upto)
	pm.x, pm.i, pm.la = y, lowerBound(&p.bl[y], pm.upto), la
	return pm, true
}

// Before is the largest free count over [from, x); x must not decrease
// between calls. It is 0 for an empty interval. The walk folds in the
// breakpoints before x one by one, skips blocks that cannot lower the
// least used count, and after a few blocks folds the rest of [.., x) with
// one range query: O(1) amortized per breakpoint passed in the blocks it
// walks, and O(log B) at most per call.
func (pm *PrefixMax) Before(x int64) int {
	if x <= pm.from {
		return 0
	}
	pm.upto = max(pm.upto, x)
	p := pm.p
	bl := p.bl
	hops := 0
	for pm.lo > 0 && pm.x != 0 {
		b := &bl[pm.x]
		if pm.i == b.n {
			pm.la += b.own.sum
			pm.x, pm.i = b.next, 0
			if pm.x == 0 {
				break
			}
			b = &bl[pm.x]
			if b.key[0] >= x {
				break
			}
			if hops++; hops > maxHops {
				// fold [key[0], x) with the tree and move to x
				at, _, mn := p.usedRange(b.key[0], x)
				if v := min(at, mn); v < pm.lo {
					pm.lo, pm.arg = v, noArg
					// the first breakpoint from key[0] on with v used
					if k, ok := p.firstAtMost(p.root, p.height, 0, b.key[0]-1, v); ok {
						pm.arg = k
					}
				}
				y, la := p.find(x)
				pm.x, pm.i, pm.la = y, lowerBound(&bl[y], x), la
				break
			}
			if b.key[b.n-1] < x && pm.la+b.own.mn >= pm.lo {
				pm.i = b.n // nothing lower in this block
				continue
			}
		}
		if b.key[pm.i] >= x {
			break
		}
		if v := pm.la + b.loc[pm.i]; v < pm.lo {
			pm.lo, pm.arg = v, b.key[pm.i]
		}
		pm.i++
	}
	return p.procs - pm.lo
}
