// Package hugepage asks the kernel to back large, freshly allocated
// slices with transparent huge pages.
//
// A short batch run (`backfill simulate` on a trace of tens of thousands
// of jobs) touches most of its memory once: the jobs read from the trace
// and the simulator's outcomes are each several megabytes, and every 4 KiB
// page of them costs a page fault on first touch (about 1.5 µs each on a
// virtual machine, a fifth of such a run's CPU time before this package).
// The Go runtime does not ask for huge pages for its heap, and where the
// kernel's transparent huge pages are in "madvise" mode (the default of
// most distributions) it gets none. Advise marks the 2 MiB-aligned parts
// of a slice's memory MADV_HUGEPAGE before the slice is filled, so that
// each is one fault of a huge page instead of 512 small ones
// (docs/PERFORMANCE.md, "the fixed cost of a run, continued").
//
// It is only a hint: the contents are unchanged, any error is ignored,
// and on other systems it does nothing.
package hugepage

import "unsafe"

// Min is the smallest slice, in bytes, worth advising: the hint applies
// only to the aligned huge pages (2 MiB) a slice spans whole, which one of
// 4 MiB always does and a smaller one may, depending on where it lies.
const Min = 2 << 20

// Advise hints that the memory of s (its capacity) be backed by huge
// pages. Call it right after allocating s, before writing to it; slices
// smaller than Min are left alone.
func Advise[T any](s []T) {
	var z T
	n := uintptr(cap(s)) * unsafe.Sizeof(z)
	if n < Min {
		return
	}
	advise(unsafe.Pointer(unsafe.SliceData(s[:1])), n)
}
