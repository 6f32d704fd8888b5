package hugepage

import (
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
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

// mapAligned maps size bytes of fresh memory starting on a 2 MiB boundary
// and advises huge pages for it. It maps one huge page more than it needs
// and uses the aligned part: the rest is never touched, so it costs
// address space only.
func mapAligned(size uintptr) (p unsafe.Pointer, release func(), ok bool) {
	whole := (size + pageSize - 1) &^ (pageSize - 1)
	m, err := syscall.Mmap(-1, 0, int(whole+pageSize), syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_PRIVATE|syscall.MAP_ANON)
	if err != nil {
		return nil, nil, false
	}
	start := uintptr(unsafe.Pointer(unsafe.SliceData(m)))
	off := (pageSize - start%pageSize) % pageSize
	_ = syscall.Madvise(m[off:off+whole], syscall.MADV_HUGEPAGE)
	addMapped(int64(len(m)))
	var once sync.Once
	release = func() {
		once.Do(func() {
			if give(m) {
				addMapped(-int64(len(m)))
			}
		})
	}
	return unsafe.Pointer(&m[off]), release, true
}

// give gives the mapping m back to the system and reports whether it did.
// In a test binary it empties m and protects it against any access
// instead, so that a use after release faults at once, and unmaps the
// oldest of the ranges so kept once there are more than keepProtected.
func give(m []byte) bool {
	if !testing.Testing() {
		return syscall.Munmap(m) == nil
	}
	if syscall.Madvise(m, syscall.MADV_DONTNEED) != nil || syscall.Mprotect(m, syscall.PROT_NONE) != nil {
		return syscall.Munmap(m) == nil
	}
	quarantine.Lock()
	defer quarantine.Unlock()
	quarantine.ranges = append(quarantine.ranges, m)
	if len(quarantine.ranges) > keepProtected {
		_ = syscall.Munmap(quarantine.ranges[0])
		quarantine.ranges[0] = nil
		quarantine.ranges = quarantine.ranges[1:]
	}
	return true
}

// keepProtected is how many released ranges a test binary keeps protected.
const keepProtected = 1024

// quarantine holds the released ranges a test binary keeps protected,
// oldest first.
var quarantine struct {
	sync.Mutex
	ranges [][]byte
}

// thpSetting is where Linux says whether it gives transparent huge pages.
const thpSetting = "/sys/kernel/mm/transparent_hugepage/enabled"

// noHugePages is whether the system gives no transparent huge pages at
// all, read once at start: then Map makes (see Map).
var noHugePages = thpNever(thpSetting)

// thpNever says whether the setting at path is "never" (the chosen one of
// "always madvise [never]"). A system without the file (no transparent
// huge pages built in) gives none either.
func thpNever(path string) bool {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return true
	}
	return err == nil && strings.Contains(string(b), "[never]")
}
