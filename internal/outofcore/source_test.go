package outofcore_test

import (
	"time"

	"github.com/llmmetrics/llmmetrics/internal/outofcore"
)

// segments returns a source of the values of segs.
func segments(segs ...[]time.Duration) outofcore.Source {
	return func(yield func([]time.Duration) bool) error {
		for _, s := range segs {
			if !yield(s) {
				return nil
			}
		}
		return nil
	}
}

// gaps returns a source of n values like the gaps between chunks of a
// streamed answer, the same on each pass, in segments of 128 from a
// buffer it reuses: mostly 15 to 25 ms, one in a hundred 0 (chunks that
// came together), one in a thousand a stall of up to 2 s.
func gaps(n int) outofcore.Source {
	return func(yield func([]time.Duration) bool) error {
		var buf [128]time.Duration
		state := uint64(0x9E3779B97F4A7C15)
		for done := 0; done < n; {
			seg := buf[:min(len(buf), n-done)]
			for i := range seg {
				state ^= state << 13
				state ^= state >> 7
				state ^= state << 17
				seg[i] = gap(state)
			}
			done += len(seg)
			if !yield(seg) {
				return nil
			}
		}
		return nil
	}
}

// gap maps a random word to a gap.
func gap(r uint64) time.Duration {
	switch r % 1000 {
	case 0:
		return time.Duration(r>>20) % (2 * time.Second)
	case 1, 2, 3, 4, 5, 6, 7, 8, 9, 10:
		return 0
	}
	return 15*time.Millisecond + time.Duration(r>>20)%(10*time.Millisecond)
}
