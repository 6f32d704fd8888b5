package hugepage

import (
	"syscall"
	"unsafe"
)

// advise asks the kernel to back the whole huge pages within the given
// bytes from p with huge pages. An error (a kernel without transparent
// huge pages, say) is ignored: the advice is only a hint.
func advise(p unsafe.Pointer, bytes uintptr) {
	off, n := whole(uintptr(p), bytes)
	if n == 0 {
		return
	}
	_ = syscall.Madvise(unsafe.Slice((*byte)(unsafe.Add(p, off)), n), syscall.MADV_HUGEPAGE)
}
