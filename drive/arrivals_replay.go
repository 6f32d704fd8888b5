package drive

import (
	"math"
	"time"
)

// replayGaps are the gaps of a replayed trace: each request's Scheduled
// after the one before, so that the sum of the first k gaps is exactly
// the k-th request's Scheduled. Past the last request no arrival comes.
type replayGaps struct {
	at []time.Duration
	i  int
}

func newReplayGaps(rs []Request) *replayGaps {
	g := &replayGaps{at: make([]time.Duration, len(rs))}
	for i, r := range rs {
		g.at[i] = r.Scheduled
	}
	return g
}

func (g *replayGaps) next() time.Duration {
	if g.i >= len(g.at) {
		return math.MaxInt64 / 4
	}
	prev := time.Duration(0)
	if g.i > 0 {
		prev = g.at[g.i-1]
	}
	g.i++
	return g.at[g.i-1] - prev
}

func (g *replayGaps) restart() {}
