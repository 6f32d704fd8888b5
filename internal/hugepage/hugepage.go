// Package hugepage makes large slices that the system is asked to back
// with huge pages.
//
// Memory a process touches for the first time costs a page fault for every
// 4 KiB page; filling a slice of hundreds of megabytes that way can cost
// more than the work that fills it (on a 2-core VM, about 3.5 ms a
// megabyte: the 720 MB of records of a 5 M-row CSV file took 2.5 s of
// faults). Where the system backs memory with transparent huge pages on
// request (Linux's "madvise" mode), a slice advised so takes one fault for
// every 2 MiB: reading those 5 M rows went from 3.8 to 2.4 s of user time.
// The advice is only a hint: where it is refused, or on another system,
// nothing changes.
//
// # Turning it off
//
// Memory mapped from the system is invisible to the race detector, which
// watches Go's heap only. So that "go test -race" sees every write into a
// slice from Map, the package hands out ordinary memory from make, and
// asks for no huge pages, when any of these holds:
//
//   - the program is built with the race detector (build tag race);
//   - it is built with the build tag nohugepage (go build -tags nohugepage);
//   - the environment variable LLMMETRICS_HUGEPAGE is "off" when it starts.
//
// The figures are the same either way; only the time and memory differ.
//
// # In tests
//
// In a test binary (testing.Testing), the memory Map releases is not
// unmapped but emptied and protected against any access, so that a use
// after release faults at once (SIGSEGV) instead of reading zeros or
// memory mapped again since. The last 1024 such ranges are kept
// protected; older ones are unmapped, which bounds the address space and
// the mappings a long test run holds.
package hugepage

import (
	"os"
	"sync/atomic"
	"unsafe"
)

// envOff is the environment variable that, set to "off", turns the package
// off (see the package documentation).
const envOff = "LLMMETRICS_HUGEPAGE"

// off is whether Map makes and Make does not advise: under the race
// detector, the build tag nohugepage, or LLMMETRICS_HUGEPAGE=off.
var off = builtOff || os.Getenv(envOff) == "off"

// pageSize is the size of a transparent huge page.
const pageSize = 2 << 20

// Make returns make([]T, n, c), advised to be backed by huge pages when it
// spans at least two of them. Use it for a slice that will be filled
// whole, soon: a huge page is memory the process holds even where it
// writes a single byte.
func Make[T any](n, c int) []T {
	s := make([]T, n, c)
	var zero T
	if off {
		return s
	}
	if bytes := uintptr(c) * unsafe.Sizeof(zero); bytes >= 2*pageSize {
		advise(unsafe.Pointer(unsafe.SliceData(s)), bytes)
	}
	return s
}

// whole returns the offset and length of the whole huge pages within the
// given bytes from the address start; length 0 when there are none.
func whole(start, bytes uintptr) (off, n uintptr) {
	lo := (start + pageSize - 1) &^ (pageSize - 1)
	hi := (start + bytes) &^ (pageSize - 1)
	if hi <= lo {
		return 0, 0
	}
	return lo - start, hi - lo
}

// MapFrom is the fewest bytes Map maps; it makes smaller slices. Tests
// lower it to see that memory mapped for small inputs is given back.
var MapFrom uintptr = 2 * pageSize

// mapped is the bytes Map has mapped and not yet given back.
var mapped atomic.Int64

// Mapped returns the bytes Map has mapped and not yet given back.
func Mapped() int64 { return mapped.Load() }

// peak is the most bytes mapped at once since ResetPeak.
var peak atomic.Int64

// Peak returns the most bytes Map has held mapped at once since the last
// ResetPeak, or since the program started: memory apart from Go's heap,
// which a test of a reader's memory adds to the heap's.
func Peak() int64 { return peak.Load() }

// ResetPeak starts Peak again from the bytes mapped now.
func ResetPeak() { peak.Store(mapped.Load()) }

// addMapped counts bytes mapped (given back, when negative), keeping the
// peak.
func addMapped(bytes int64) {
	now := mapped.Add(bytes)
	for {
		p := peak.Load()
		if now <= p || peak.CompareAndSwap(p, now) {
			return
		}
	}
}

// Plain is the types Map can hold: numbers, which hold no pointers for
// the garbage collector to follow.
type Plain interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~int | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~uint | ~float32 | ~float64
}

// Map returns n zeros of T in memory mapped from the system apart from Go's
// heap, in huge pages, and a function that gives that memory back. s must
// not be used once release is called; release may be called more than
// once.
//
// Use it for a large slice that is made, used and done with inside one
// call. Made with make, such a slice may be given memory the heap has
// used before: the runtime then clears it first, touching every 4 KiB page
// before the advice to use huge pages can be given, and on a 2-core VM those
// page faults cost more than the work on the slice (0.6 s for 40 MB). Mapped
// memory is always fresh, and is aligned to 2 MiB, so that every page of it
// is a huge page where the system gives them. Below two huge pages, where
// the system gives no transparent huge pages at all (set to "never": fresh
// memory would then cost a fault for every 4 KiB page on every call, where
// heap memory used again costs none), or where memory cannot be mapped, s
// is made with make and release does nothing; so it is where the package
// is off (see the package documentation).
func Map[T Plain](n int) (s []T, release func()) {
	var zero T
	size := uintptr(n) * unsafe.Sizeof(zero)
	if off || noHugePages || n <= 0 || size < MapFrom || size/unsafe.Sizeof(zero) != uintptr(n) {
		return make([]T, n), func() {}
	}
	p, release, ok := mapAligned(size)
	if !ok {
		return make([]T, n), func() {}
	}
	return unsafe.Slice((*T)(p), n), release
}

// Lists are lists mapped apart from Go's heap (see Map), whose memory is
// given back together. The zero value is ready.
type Lists []func()

// MapIn returns a list of n zeros of T, mapped (see Map), whose memory l
// gives back.
func MapIn[T Plain](l *Lists, n int) []T {
	s, release := Map[T](n)
	*l = append(*l, release)
	return s
}

// Release gives back the memory of every list of l, which must not be
// used after it.
func (l Lists) Release() {
	for _, r := range l {
		r()
	}
}
