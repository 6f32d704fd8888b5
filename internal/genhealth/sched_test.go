package genhealth

import (
	"math"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// The latencies between two reads of a histogram, by hand: buckets
// (−∞, 0), [0, 1 µs), [1 µs, 1 ms), [1 ms, 1 s), [1 s, +∞); the counts
// grow from 0 2 0 0 0 to 0 12 85 4 1, so the window's are 0 10 85 4 1,
// 100 in all. Cumulated: 10, 95, 99, 100. The median (rank 50) is in
// [1 µs, 1 ms), the p99 (rank 99) in [1 ms, 1 s), the largest (rank 100)
// in [1 s, +∞), written [1 s, 0).
func TestSchedOf(t *testing.T) {
	b := []float64{math.Inf(-1), 0, 1e-6, 1e-3, 1, math.Inf(1)}
	before := &metrics.Float64Histogram{Buckets: b, Counts: []uint64{0, 2, 0, 0, 0}}
	after := &metrics.Float64Histogram{Buckets: b, Counts: []uint64{0, 12, 85, 4, 1}}
	f := schedOf(before, after)
	assert.Equal(t, uint64(100), f.n)
	assert.Equal(t, [2]time.Duration{time.Microsecond, time.Millisecond}, f.p50)
	assert.Equal(t, [2]time.Duration{time.Millisecond, time.Second}, f.p99)
	assert.Equal(t, [2]time.Duration{time.Second, 0}, f.max)

	assert.Zero(t, schedOf(after, after).n, "nothing between two equal reads")
	assert.Zero(t, schedOf(nil, nil).n)
}

func TestBound(t *testing.T) {
	assert.Equal(t, time.Duration(0), bound(math.Inf(-1)))
	assert.Equal(t, time.Duration(0), bound(math.Inf(1)))
	assert.Equal(t, 64*time.Nanosecond, bound(6.4e-08))
	assert.Equal(t, 65536*time.Nanosecond, bound(6.5536e-05))
}
