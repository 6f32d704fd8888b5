//go:build !linux

package hugepage

import "unsafe"

// advise does nothing where huge pages cannot be asked for.
func advise(p unsafe.Pointer, bytes uintptr) {}
