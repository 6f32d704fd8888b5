package live

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// series is one label set's state.
type series struct {
	next   atomic.Uint32
	shards [shards]shard
}

type shard struct {
	mu sync.Mutex
	// retired holds what the slots held when they left the window: the
	// cumulative figures are retired merged with every slot, so that a
	// record is added to one state only.
	retired   state
	slots     []state
	slotStart []time.Time
	current   int
	records   []llmmetrics.Record
	native    *natives // cumulative, with Options.NativeHistograms
}

// seriesOf returns the state of label set k (a clean key), creating it
// while there is room, and the key it is kept under (see admit): another
// than k is counted as an overflow when count is true.
func (rec *Recorder) seriesOf(k Key, count bool) (*series, Key) {
	if s, ok := rec.series.Load(k); ok {
		return s.(*series), k
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if s, ok := rec.series.Load(k); ok {
		return s.(*series), k
	}
	if a := rec.admit(k); a != k {
		if count {
			rec.overflow.Add(1)
		}
		k = a
		if s, ok := rec.series.Load(k); ok {
			return s.(*series), k
		}
	}
	s := &series{}
	now := rec.opt.Now()
	for i := range s.shards {
		sh := &s.shards[i]
		sh.retired = newState(rec.opt.Accuracy, rec.bounds)
		sh.slots = make([]state, rec.opt.Slots)
		sh.slotStart = make([]time.Time, rec.opt.Slots)
		for j := range sh.slots {
			sh.slots[j] = newState(rec.opt.Accuracy, rec.bounds)
		}
		sh.slotStart[0] = now
		if rec.opt.NativeHistograms {
			sh.native = &natives{}
		}
	}
	rec.series.Store(k, s)
	rec.hold(k, 1)
	return s, k
}

// rotate moves the shard's current slot on to the slot that holds now,
// clearing the slots it passes.
func (sh *shard) rotate(now time.Time, opt Options) {
	width := opt.Window / time.Duration(opt.Slots)
	if width <= 0 {
		return
	}
	for now.Sub(sh.slotStart[sh.current]) >= width {
		next := (sh.current + 1) % len(sh.slots)
		start := sh.slotStart[sh.current].Add(width)
		if now.Sub(start) >= opt.Window {
			// Idle for a whole window: start afresh at now.
			for i := range sh.slots {
				sh.retire(i)
				sh.slotStart[i] = time.Time{}
			}
			sh.current, sh.slotStart[next] = next, now
			continue
		}
		sh.retire(next)
		sh.current, sh.slotStart[next] = next, start
	}
}

// retire moves slot i's figures into the retired state and empties it.
func (sh *shard) retire(i int) {
	sh.retired.merge(&sh.slots[i])
	sh.slots[i].reset()
}
