// Package idwin is a slice indexed by dense, increasing IDs that keeps only
// the window from the oldest ID still in use.
//
// The engine, the policies and the service number jobs 0, 1, 2, … in
// order of submission and index their per-job state by that number. A
// plain slice then grows by a few bytes for every job ever submitted,
// which a service running for months cannot afford. A Window drops the
// leading entries once they are no longer needed (Trim) and moves the
// rest down when at least half of its slice is dropped, so its memory is
// bounded by twice the span from the oldest entry in use to the newest
// ID, and each operation is O(1) amortized.
package idwin

import "slices"

// minShift is the least number of dropped entries worth a move.
const minShift = 64

// Window holds a value for each ID in [Base(), Len()).
type Window[T any] struct {
	base int // ID of v[0]
	lo   int // v[:lo] are dropped (Trim), not yet moved away
	v    []T
}

// Len is one past the largest ID held: the next ID to Append.
func (w *Window[T]) Len() int { return w.base + len(w.v) }

// Base is the smallest ID still held; every ID below it was dropped.
func (w *Window[T]) Base() int { return w.base + w.lo }

// In reports whether id is held.
func (w *Window[T]) In(id int) bool { return id >= w.base+w.lo && id < w.base+len(w.v) }

// At returns a pointer to id's value; id must be held (In).
func (w *Window[T]) At(id int) *T { return &w.v[id-w.base] }

// Get returns id's value, the zero value when id is not held.
func (w *Window[T]) Get(id int) T {
	if !w.In(id) {
		var z T
		return z
	}
	return w.v[id-w.base]
}

// Append adds the value of ID Len().
func (w *Window[T]) Append(x T) { w.v = append(w.v, x) }

// Reserve makes room for n more IDs without a reallocation (a simulator
// that knows its trace's length): appends up to that many copy nothing.
func (w *Window[T]) Reserve(n int) { w.v = slices.Grow(w.v, n) }

// Grow makes id held, filling new IDs with the zero value; an id already
// dropped stays dropped (it reports false).
func (w *Window[T]) Grow(id int) bool {
	if id < w.base+w.lo {
		return false
	}
	if n := id - w.base + 1; n > len(w.v) {
		if n <= cap(w.v) {
			w.v = w.v[:n]
		} else {
			var z T
			for len(w.v) < n {
				w.v = append(w.v, z)
			}
		}
	}
	return true
}

// Cover makes id held, below the window or above it, filling the IDs it
// adds with fill. Below the window it moves the values up: O(window),
// for rare uses (a service re-submitting jobs after a reconfiguration).
func (w *Window[T]) Cover(id int, fill T) {
	if id < 0 {
		return
	}
	switch {
	case id < w.base:
		k := w.base - id
		v := make([]T, k+len(w.v)-w.lo, max(k+len(w.v)-w.lo, cap(w.v)))
		for i := 0; i < k; i++ {
			v[i] = fill
		}
		copy(v[k:], w.v[w.lo:])
		w.v, w.base, w.lo = v, id, 0
	case id < w.base+w.lo:
		lo := id - w.base
		for i := lo; i < w.lo; i++ {
			w.v[i] = fill
		}
		w.lo = lo
	default:
		for w.base+len(w.v) <= id {
			w.v = append(w.v, fill)
		}
	}
}

// Trim drops the leading values for which done is true, up to the first
// one for which it is false.
func (w *Window[T]) Trim(done func(T) bool) {
	for w.lo < len(w.v) && done(w.v[w.lo]) {
		w.lo++
	}
	if w.lo < minShift || 2*w.lo < len(w.v) {
		return
	}
	n := copy(w.v, w.v[w.lo:])
	var z T
	for i := n; i < len(w.v); i++ {
		w.v[i] = z // no pointers kept alive past the end
	}
	w.v = w.v[:n]
	w.base += w.lo
	w.lo = 0
}

// Reset empties the window and sets its base (the next ID) to base.
func (w *Window[T]) Reset(base int) {
	clear(w.v)
	w.v = w.v[:0]
	w.base, w.lo = base, 0
}

// Each calls fn for every held ID in increasing order.
func (w *Window[T]) Each(fn func(id int, x T)) {
	for i := w.lo; i < len(w.v); i++ {
		fn(w.base+i, w.v[i])
	}
}

// Slice returns the values of the held IDs, Base() first (not a copy).
func (w *Window[T]) Slice() []T { return w.v[w.lo:] }

// Cap is the capacity of the underlying slice (tests: memory is bounded).
func (w *Window[T]) Cap() int { return cap(w.v) }
