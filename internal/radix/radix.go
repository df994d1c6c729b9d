// Package radix sorts integers by their bits: a stable
// least-significant-digit radix sort in passes of at most 13 bits, O(n·b/13)
// for keys of b bits, which on the event times and waits of a schedule
// (tens of thousands of values spanning 20–30 bits) is several times
// faster than a comparison sort.
package radix

import "math/bits"

// maxDigit is the widest digit of a pass, in bits (an 8,192-entry count).
const maxDigit = 13

// small is the length up to which an insertion sort is used instead.
const small = 48

// Sort sorts a ascending by the bits lo..hi-1 of each element (the value
// (v >> lo) & (1<<(hi-lo) - 1)), stably: elements equal in those bits
// keep their order. So with the key in the high bits and a payload below
// lo, the payloads of equal keys stay in input order. hi ≤ 64.
func Sort(a []uint64, lo, hi uint) {
	sortBits(a, 0, lo, min(hi, 64))
}

// SortInt64 sorts a ascending (as slices.Sort, in O(n·b/13) for values
// spanning b bits).
func SortInt64(a []int64) {
	if len(a) < 2 {
		return
	}
	lo, hi := a[0], a[0]
	for _, v := range a {
		lo, hi = min(lo, v), max(hi, v)
	}
	// the span as an unsigned difference cannot overflow
	sortBits(a, lo, 0, uint(bits.Len64(uint64(hi)-uint64(lo))))
}

// sortBits sorts a stably by the bits lo..hi-1 of uint64(v − base).
func sortBits[E ~int64 | ~uint64](a []E, base E, lo, hi uint) {
	n := len(a)
	if n < 2 || hi <= lo {
		return
	}
	key := func(v E, shift uint, mask uint64) uint64 { return (uint64(v-base) >> shift) & mask }
	if n <= small {
		mask := uint64(1)<<(hi-lo) - 1
		if hi-lo == 64 {
			mask = ^uint64(0)
		}
		for i := 1; i < n; i++ {
			v, k := a[i], key(a[i], lo, mask)
			j := i
			for ; j > 0 && key(a[j-1], lo, mask) > k; j-- {
				a[j] = a[j-1]
			}
			a[j] = v
		}
		return
	}
	width := hi - lo
	passes := (width + maxDigit - 1) / maxDigit
	digit := (width + passes - 1) / passes
	count := make([]int, 1<<digit)
	src, dst := a, make([]E, n)
	for shift := lo; shift < hi; shift += digit {
		w := min(digit, hi-shift)
		mask := uint64(1)<<w - 1
		c := count[:mask+1]
		clear(c)
		for _, v := range src {
			c[key(v, shift, mask)]++
		}
		if c[key(src[0], shift, mask)] == n {
			continue // one digit value: the pass would not move anything
		}
		sum := 0
		for i, k := range c {
			c[i] = sum
			sum += k
		}
		for _, v := range src {
			d := key(v, shift, mask)
			dst[c[d]] = v
			c[d]++
		}
		src, dst = dst, src
	}
	if &src[0] != &a[0] {
		copy(a, src)
	}
}
