package hugepage

import (
	"syscall"
	"unsafe"
)

// madvHugepage is MADV_HUGEPAGE (asm-generic/mman-common.h).
const madvHugepage = 14

// advise marks the page-aligned part of the n bytes at p MADV_HUGEPAGE.
func advise(p unsafe.Pointer, n uintptr) {
	const page = 4096
	b := unsafe.Slice((*byte)(p), n)
	off := (page - uintptr(p)%page) % page
	if off >= n {
		return
	}
	b = b[off:]
	b = b[:uintptr(len(b))&^(page-1)]
	if len(b) == 0 {
		return
	}
	_ = syscall.Madvise(b, madvHugepage)
}
