package easy

import "math"

// minIndex is a segment tree over queue positions holding each waiting
// job's size (math.MaxInt for a hole), answering "the first position ≥ i
// whose size is ≤ x" in O(log Q). EASY's pass uses it to jump from one
// job that could fit in the free processors to the next, skipping the
// rest of a long queue.
type minIndex struct {
	n    int   // leaves (a power of two)
	tree []int // tree[1] is the root; leaves at n..2n-1
}

const hole = math.MaxInt

// reset sizes the tree for at least capacity positions, all holes.
func (m *minIndex) reset(capacity int) {
	n := 1
	for n < capacity {
		n *= 2
	}
	m.n = n
	if cap(m.tree) >= 2*n {
		m.tree = m.tree[:2*n]
	} else {
		m.tree = make([]int, 2*n)
	}
	for i := range m.tree {
		m.tree[i] = hole
	}
}

// set gives position i the value v.
func (m *minIndex) set(i, v int) {
	k := i + m.n
	m.tree[k] = v
	for k > 1 {
		k /= 2
		m.tree[k] = min(m.tree[2*k], m.tree[2*k+1])
	}
}

// firstAtMost is the first position ≥ i whose value is ≤ x, or -1.
func (m *minIndex) firstAtMost(i, x int) int {
	if i >= m.n {
		return -1
	}
	k := i + m.n
	// climb until a subtree to the right (or this leaf) has a value ≤ x
	if m.tree[k] <= x {
		return i
	}
	for {
		// move to the next subtree to the right at this level
		for k%2 == 1 {
			k /= 2
			if k == 0 {
				return -1
			}
		}
		k++
		if m.tree[k] <= x {
			break
		}
		if k == 1 {
			return -1
		}
	}
	// descend to the leftmost leaf ≤ x
	for k < m.n {
		if m.tree[2*k] <= x {
			k = 2 * k
		} else {
			k = 2*k + 1
		}
	}
	return k - m.n
}
