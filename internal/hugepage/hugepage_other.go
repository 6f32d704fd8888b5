//go:build !linux

package hugepage

import "unsafe"

// advise does nothing where huge pages cannot be asked for.
func advise(p unsafe.Pointer, bytes uintptr) {}

// mapAligned maps nothing where huge pages cannot be asked for: Map falls
// back to make.
func mapAligned(size uintptr) (p unsafe.Pointer, release func(), ok bool) {
	return nil, nil, false
}

// noHugePages is true where huge pages cannot be asked for.
const noHugePages = true
