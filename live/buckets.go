package live

import "sort"

// The classic histograms a Recorder keeps beside its sketches, for the
// Collector: one per exported histogram, at the GenAI buckets.
const (
	histDuration = iota
	histTTFC
	histPerChunk
	histInput
	histOutput
	histTPOT
	histMaxGap
	numHists
)

var histBounds = [numHists][]float64{DurationBuckets, DurationBuckets, DurationBuckets, TokenBuckets, TokenBuckets, TPOTBuckets, DurationBuckets}

// buckets counts observations per bucket (not cumulative; the last is
// +Inf), with their sum.
type buckets struct {
	counts []uint64
	sum    float64
}

func (b *buckets) observe(h int, v float64) {
	// The first bound ≥ v: Prometheus' le buckets are inclusive.
	b.counts[sort.SearchFloat64s(histBounds[h], v)]++
	b.sum += v
}

func (b *buckets) merge(o *buckets) {
	for i, c := range o.counts {
		b.counts[i] += c
	}
	b.sum += o.sum
}

// cumulative returns the counts at each finite bound, cumulative, and the
// total, as Prometheus' client takes them.
func (b *buckets) cumulative(h int) (map[float64]uint64, uint64) {
	out := make(map[float64]uint64, len(histBounds[h]))
	var n uint64
	for i, bound := range histBounds[h] {
		n += b.counts[i]
		out[bound] = n
	}
	return out, n + b.counts[len(b.counts)-1]
}
