package genhealth

import (
	"math"
	"runtime/metrics"
	"time"
)

// readSched reads the runtime's scheduling latencies, or nil when it has
// none.
func readSched() *metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedName}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return nil
	}
	return s[0].Value.Float64Histogram()
}

// A schedFigures is the count of scheduling latencies sampled between two
// reads, and the buckets [low, high) of their median, 99th percentile
// (nearest rank) and largest.
type schedFigures struct {
	n             uint64
	p50, p99, max [2]time.Duration
}

// schedOf returns the figures of the latencies after holds and before
// did not: the counts of a histogram only grow.
func schedOf(before, after *metrics.Float64Histogram) schedFigures {
	var f schedFigures
	if after == nil {
		return f
	}
	counts := make([]uint64, len(after.Counts))
	for i, c := range after.Counts {
		counts[i] = c
		if before != nil && len(before.Counts) == len(after.Counts) {
			counts[i] -= before.Counts[i]
		}
		f.n += counts[i]
	}
	if f.n == 0 {
		return f
	}
	at := func(r uint64) [2]time.Duration {
		var sum uint64
		for i, c := range counts {
			if sum += c; sum >= r {
				return [2]time.Duration{bound(after.Buckets[i]), bound(after.Buckets[i+1])}
			}
		}
		return [2]time.Duration{}
	}
	f.p50, f.p99, f.max = at((50*f.n+99)/100), at((99*f.n+99)/100), at(f.n)
	return f
}

// bound turns a bucket's bound in seconds into a duration: −∞ is 0 (no
// latency is below it), +∞ is 0 (no upper bound).
func bound(s float64) time.Duration {
	if math.IsInf(s, 0) || s < 0 {
		return 0
	}
	return time.Duration(math.Round(s * 1e9))
}
