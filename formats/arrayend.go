package formats

import (
	"bytes"
	"sync"
	"sync/atomic"

	"github.com/llmmetrics/llmmetrics/internal/jsontok"
)

// Finding where an array of arrays of numbers ends, on every core. The
// array holds only numbers, commas, white space and inner arrays, so it
// ends at the first ']' that is followed (past white space) by another
// ']', and every ']' before that one is followed by a ','. In a result
// file of hundreds of megabytes this search is the first pass over the
// array's bytes: done on one core, it alone took a seventh of the import,
// much of it the first touch of the mapped pages.

// endChunk is the number of bytes each goroutine searches at a time.
const endChunk = 4 << 20

// arrayEnd returns the index of the ']' that closes the outer array whose
// first byte after its '[' is at from, searching b in chunks of size
// chunk on the given number of goroutines. It reports false when some
// ']' before the end is followed by something other than ',' or ']', or
// when the array does not end.
func arrayEnd(b []byte, from, workers, chunk int) (int, bool) {
	nChunks := (len(b) - from + chunk - 1) / chunk
	if nChunks <= 0 {
		return 0, false
	}
	// Chunks are handed out in order, and none after one that holds an
	// event, so every chunk before the first event's is searched.
	events := make([]endEvent, nChunks)
	var next atomic.Int64
	var last atomic.Int64 // the first chunk known to end the search
	last.Store(int64(nChunks))
	var wg sync.WaitGroup
	for range max(1, min(workers, nChunks)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= nChunks || int64(c) > last.Load() {
					return
				}
				lo := from + c*chunk
				events[c] = searchChunk(b, lo, min(lo+chunk, len(b)))
				if e := events[c]; e.at >= 0 || e.bad {
					lowerTo(&last, int64(c))
				}
			}
		}()
	}
	wg.Wait()
	for _, e := range events {
		if e.bad {
			return 0, false
		}
		if e.at >= 0 {
			return e.at, true
		}
	}
	return 0, false
}

// endEvent is what a chunk holds first: the array's end (at ≥ 0), a ']'
// in the wrong place (bad), or neither (at −1).
type endEvent struct {
	at  int
	bad bool
}

// searchChunk looks at each ']' in b[lo:hi] in turn (what follows one may
// lie past hi) and returns the chunk's first event.
func searchChunk(b []byte, lo, hi int) endEvent {
	for pos := lo; pos < hi; {
		j := bytes.IndexByte(b[pos:hi], ']')
		if j < 0 {
			break
		}
		k := jsontok.Space(b, pos+j+1)
		switch {
		case k < len(b) && b[k] == ']':
			return endEvent{at: k}
		case k >= len(b) || b[k] != ',':
			return endEvent{at: -1, bad: true}
		}
		pos += j + 1
	}
	return endEvent{at: -1}
}

// lowerTo sets v to x when x is lower.
func lowerTo(v *atomic.Int64, x int64) {
	for {
		old := v.Load()
		if x >= old || v.CompareAndSwap(old, x) {
			return
		}
	}
}
