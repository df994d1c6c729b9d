// Package minheap is a binary min-heap of items ordered by (key, ID).
//
// One heap serves every priority queue of the tree: the simulator's
// pending ends, the service's job limits, the running jobs' holds of the
// policies (indexed by job ID, so that a hold can be found, lengthened or
// removed), the K-resource candidates and the workload model's chains.
// Ties on the key go to the smaller ID, so that the order in which items
// leave the heap depends only on their keys and IDs, never on the order in
// which they were pushed: that is what makes the schedules built on it
// reproducible.
//
// Items move by "hole" sifting (each level costs one copy, not a swap),
// with the same comparisons as the textbook sift of container/heap, so the
// layout of the heap after any sequence of operations is the one
// container/heap would give. A heap indexed by ID (IndexByID) also keeps,
// for each ID, its item's position; IDs are then small non-negative
// integers (the index is a slice grown to the largest ID) and unique in
// the heap.
package minheap

import "cmp"

// Item is an element of a heap: its key, the ID that breaks ties on the
// key (and, in an indexed heap, names the item), and a value.
type Item[K cmp.Ordered, V any] struct {
	Key K
	ID  int
	Val V
}

// Heap is a binary min-heap of items on (Key, ID). The zero value is an
// empty heap, not indexed.
type Heap[K cmp.Ordered, V any] struct {
	items []Item[K, V]
	pos   []int32 // indexed: ID → position + 1 (0: not in the heap); nil: not indexed
}

// IndexByID makes the empty heap h keep each item's position by ID (Find).
func (h *Heap[K, V]) IndexByID() {
	if h.pos == nil {
		h.pos = make([]int32, 0, 64)
	}
}

// Len is the number of items.
func (h *Heap[K, V]) Len() int { return len(h.items) }

// Min is the item with the smallest (Key, ID); h must not be empty.
func (h *Heap[K, V]) Min() *Item[K, V] { return &h.items[0] }

// At is the item at position i (0 ≤ i < Len) of the heap's array: the
// children of position i are at 2i+1 and 2i+2, and no item is smaller
// than its parent. Changing its key or ID needs Fix.
func (h *Heap[K, V]) At(i int) *Item[K, V] { return &h.items[i] }

// Find is the position of the item with ID id in an indexed heap.
func (h *Heap[K, V]) Find(id int) (int, bool) {
	if id < 0 || id >= len(h.pos) || h.pos[id] == 0 {
		return 0, false
	}
	return int(h.pos[id]) - 1, true
}

func less[K cmp.Ordered, V any](a, b *Item[K, V]) bool {
	return a.Key < b.Key || (a.Key == b.Key && a.ID < b.ID)
}

// Push adds it.
func (h *Heap[K, V]) Push(it Item[K, V]) {
	if h.pos != nil {
		for it.ID >= len(h.pos) {
			h.pos = append(h.pos, 0)
		}
		h.items = append(h.items, it)
		h.up(len(h.items)-1, &it)
		return
	}
	// a plain heap sifts here, without a call (the simulator's ends)
	s := append(h.items, it)
	i := len(s) - 1
	for i > 0 {
		p := (i - 1) / 2
		if !less(&it, &s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = it
	h.items = s
}

// Pop removes and returns the item with the smallest (Key, ID); h must not
// be empty.
func (h *Heap[K, V]) Pop() Item[K, V] {
	s := h.items
	top := s[0]
	n := len(s) - 1
	x := s[n]
	s = s[:n]
	h.items = s
	if h.pos != nil {
		h.pos[top.ID] = 0
		if n > 0 {
			h.down(0, &x)
		}
		return top
	}
	// a plain heap sifts here, without a call (the simulator's ends)
	if n == 0 {
		return top
	}
	i := 0
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(&s[r], &s[l]) {
			m = r
		}
		if !less(&s[m], &x) {
			break
		}
		s[i] = s[m]
		i = m
	}
	s[i] = x
	return top
}

// Remove removes and returns the item at position i.
func (h *Heap[K, V]) Remove(i int) Item[K, V] {
	s := h.items
	it := s[i]
	last := len(s) - 1
	if h.pos != nil {
		h.pos[it.ID] = 0
	}
	if i != last {
		x := s[last]
		h.items = s[:last]
		if !h.down(i, &x) {
			h.up(i, &x)
		}
	} else {
		h.items = s[:last]
	}
	return it
}

// Fix restores the order after the key or ID of the item at position i
// changed (an indexed heap's ID must not change).
func (h *Heap[K, V]) Fix(i int) {
	x := h.items[i]
	if !h.down(i, &x) {
		h.up(i, &x)
	}
}

// Init makes a heap of items (h takes the slice over), in O(n).
func (h *Heap[K, V]) Init(items []Item[K, V]) {
	h.items = items
	if h.pos != nil {
		for i := range items {
			for items[i].ID >= len(h.pos) {
				h.pos = append(h.pos, 0)
			}
			h.pos[items[i].ID] = int32(i + 1)
		}
	}
	for i := len(items)/2 - 1; i >= 0; i-- {
		x := items[i]
		h.down(i, &x)
	}
}

// Items is the heap's array (At): valid until the next change of h.
func (h *Heap[K, V]) Items() []Item[K, V] { return h.items }

// Reset empties h, keeping its storage and whether it is indexed.
func (h *Heap[K, V]) Reset() {
	if h.pos != nil {
		for i := range h.items {
			h.pos[h.items[i].ID] = 0
		}
	}
	h.items = h.items[:0]
}

// up moves x, which belongs at position i, up to its place. (Each of up
// and down has a loop for a plain heap and one for an indexed heap: the
// hot paths of the simulator pay for no index.)
func (h *Heap[K, V]) up(i int, x *Item[K, V]) {
	s := h.items
	if pos := h.pos; pos != nil {
		for i > 0 {
			p := (i - 1) / 2
			if !less(x, &s[p]) {
				break
			}
			s[i] = s[p]
			pos[s[i].ID] = int32(i + 1)
			i = p
		}
		s[i] = *x
		pos[x.ID] = int32(i + 1)
		return
	}
	for i > 0 {
		p := (i - 1) / 2
		if !less(x, &s[p]) {
			break
		}
		s[i] = s[p]
		i = p
	}
	s[i] = *x
}

// down moves x, which belongs at position i, down to its place; it reports
// whether x moved.
func (h *Heap[K, V]) down(i int, x *Item[K, V]) bool {
	s := h.items
	n := len(s)
	i0 := i
	if pos := h.pos; pos != nil {
		for {
			l := 2*i + 1
			if l >= n {
				break
			}
			m := l
			if r := l + 1; r < n && less(&s[r], &s[l]) {
				m = r
			}
			if !less(&s[m], x) {
				break
			}
			s[i] = s[m]
			pos[s[i].ID] = int32(i + 1)
			i = m
		}
		s[i] = *x
		pos[x.ID] = int32(i + 1)
		return i > i0
	}
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && less(&s[r], &s[l]) {
			m = r
		}
		if !less(&s[m], x) {
			break
		}
		s[i] = s[m]
		i = m
	}
	s[i] = *x
	return i > i0
}
