package drive

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An open loop of 40 requests/s for 500 ms, capped at one in flight,
// against a server that takes at least 300 ms a request: at most two are
// sent (the third could begin only 600 ms after the first), and every
// other arrival due before the deadline was held by the cap. The arrivals
// due are counted here from the seeded schedule itself; whatever the
// machine's speed, the sent and the unsent add up to them, with a cap or
// without one (where an arrival due just before the deadline may still
// miss it on a busy machine, so no count of unsent is asserted).
func TestOpenLoopUnsent(t *testing.T) {
	const rate, seed, dur = 40, 7, 500 * time.Millisecond
	a, err := newArrivals(rate, 1, seed)
	require.NoError(t, err)
	due := 0
	for at := a.next(); at <= dur; at += a.next() {
		due++
	}
	require.Greater(t, due, 5, "the schedule draws some 20 arrivals in 500 ms")

	f := newFake(t, constant(300*time.Millisecond), time.Millisecond)
	p := plan(f.URL)
	p.Duration, p.Rate, p.Burstiness, p.Seed, p.Concurrency = dur, rate, 1, seed, 1
	out, err := Run(context.Background(), p)
	require.NoError(t, err)
	assert.LessOrEqual(t, len(out.Results), 2)
	assert.Equal(t, due, len(out.Results)+out.Unsent)
	assert.True(t, out.UnsentCounted)

	fast := newFake(t, constant(time.Millisecond), time.Millisecond)
	p = plan(fast.URL)
	p.Duration, p.Rate, p.Burstiness, p.Seed = dur, rate, 1, seed
	out, err = Run(context.Background(), p)
	require.NoError(t, err)
	assert.Equal(t, due, len(out.Results)+out.Unsent)
}

// A run interrupted before its deadline has no count of the arrivals
// held back: its Unsent is no figure, and says so.
func TestOpenLoopUnsentInterrupted(t *testing.T) {
	f := newFake(t, constant(time.Millisecond), time.Millisecond)
	p := plan(f.URL)
	p.Duration, p.Rate, p.Burstiness, p.Seed = time.Minute, 40, 1, 7
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	out, err := Run(ctx, p)
	require.NoError(t, err)
	assert.True(t, out.Interrupted)
	assert.False(t, out.UnsentCounted)
}
