// Package budget measures what a call costs in memory, for the tests that
// hold a reader to a budget (Test…Budget): the bytes it allocates from Go's
// heap, and the most memory it holds at once. Both are counts, not times,
// so a verdict does not depend on the machine's speed or load.
//
// The bytes allocated are runtime/metrics' /gc/heap/allocs:bytes over the
// call. The peak is the most bytes live on the heap at the end of any
// collection during the call, above what was live before it, plus the most
// bytes mapped apart from the heap at once (hugepage.Peak). While the call
// runs the collector is set to run whenever the heap has grown by a tenth
// (GOGC=10), so that a collection sees each structure the call builds
// while it is held: a peak seen so is at most about a tenth below the true
// one, and the two parts, taken at their own peaks, add up to at least it.
//
// The peak so seen is of memory held, not of the garbage a call leaves for
// the collector: under the default GOGC=100 a program's heap grows to
// twice what is live before the collector runs, so garbage costs resident
// memory as much as a structure held does. The tests therefore hold the
// bytes allocated closely (a fifth above today's), and the peak more
// loosely, since it is sampled at collections.
//
// The call runs on two cores (GOMAXPROCS=2), as CI runs it, so that its
// per-core tables cost the same on any machine.
package budget

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"sync"
	"sync/atomic"

	"github.com/llmmetrics/llmmetrics/internal/hugepage"
)

// A Cost is what one call cost.
type Cost struct {
	Allocated uint64 // bytes allocated from Go's heap
	Peak      uint64 // the most bytes held at once: heap above the start, and mapped apart from it
}

// PerRecord returns the cost divided by n records, in bytes a record.
func (c Cost) PerRecord(n int) (allocated, peak float64) {
	return float64(c.Allocated) / float64(n), float64(c.Peak) / float64(n)
}

// Measure calls f and returns its cost. It is not safe to call it from
// tests running in parallel: the collector's setting is the process's.
func Measure(f func()) Cost {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(2))
	runtime.GC()
	defer debug.SetGCPercent(debug.SetGCPercent(10))
	runtime.GC()
	base := read(liveBytes)
	hugepage.ResetPeak()
	mappedBase := hugepage.Mapped()

	w := &watch{}
	w.arm()
	before := read(allocBytes)
	f()
	after := read(allocBytes)
	w.stop()

	c := Cost{Allocated: after - before}
	if p := w.peak.Load(); p > base {
		c.Peak = p - base
	}
	if m := hugepage.Peak() - mappedBase; m > 0 {
		c.Peak += uint64(m)
	}
	return c
}

// String says the cost for a test's log.
func (c Cost) String() string {
	return fmt.Sprintf("%d bytes allocated, peak %d bytes", c.Allocated, c.Peak)
}

const (
	allocBytes = "/gc/heap/allocs:bytes"
	liveBytes  = "/gc/heap/live:bytes"
)

// read returns one of runtime/metrics' counters.
func read(name string) uint64 {
	s := []metrics.Sample{{Name: name}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// A watch keeps the most bytes live after any collection: a finalizer on
// an object of its own runs after each collection, reads the live bytes
// and sets another object up for the next one.
type watch struct {
	peak    atomic.Uint64
	stopped atomic.Bool
	mu      sync.Mutex
}

// sentinel is big enough, and holds a pointer, so that it is never part of
// a tiny allocation, whose finalizer may never run.
type sentinel struct {
	_ [4]*int
}

func (w *watch) arm() {
	runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
		w.note()
		if !w.stopped.Load() {
			w.arm()
		}
	})
}

// note keeps the bytes live after the last collection when they are the
// most yet.
func (w *watch) note() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if live := read(liveBytes); live > w.peak.Load() {
		w.peak.Store(live)
	}
}

// stop notes the live bytes of a last collection and ends the watch.
func (w *watch) stop() {
	w.note()
	w.stopped.Store(true)
}
