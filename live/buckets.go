package live

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

// The classic histograms a Recorder keeps beside its sketches, for the
// Collector: one per exported histogram.
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

// Buckets are the bounds of the classic histograms, each ascending: of
// durations (operation duration, time to first chunk, time per output
// chunk, the largest gap), in seconds; of TPOT, in seconds; of token
// counts. A nil list means the conventions' (DefaultBuckets). A Recorder
// or sink copies them: changing a list after gives no recorder another.
type Buckets struct {
	Duration, TPOT, Tokens []float64
}

// DefaultBuckets returns, in new slices, the bucket boundaries the GenAI
// semantic conventions recommend: gen_ai.client.operation.duration's for
// durations (also used for time to first chunk and time per output
// chunk), gen_ai.server.time_per_output_token's for TPOT, and
// gen_ai.client.token.usage's (1, 4, 16, … 4^13) for tokens.
func DefaultBuckets() Buckets {
	tokens := make([]float64, 14)
	for i := range tokens {
		tokens[i] = math.Pow(4, float64(i))
	}
	return Buckets{
		Duration: []float64{0.01, 0.02, 0.04, 0.08, 0.16, 0.32, 0.64, 1.28, 2.56, 5.12, 10.24, 20.48, 40.96, 81.92},
		TPOT:     []float64{0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5},
		Tokens:   tokens,
	}
}

// bounds returns each histogram's bounds, copies of b's or the defaults,
// and an error for a list that does not ascend or holds a non-finite
// value.
func (b Buckets) bounds() (*[numHists][]float64, error) {
	d := DefaultBuckets()
	pick := func(name string, v, def []float64) ([]float64, error) {
		if v == nil {
			return def, nil
		}
		for i, x := range v {
			if math.IsNaN(x) || math.IsInf(x, 0) || i > 0 && x <= v[i-1] {
				return nil, fmt.Errorf("live: %s buckets %v: want finite bounds in ascending order", name, v)
			}
		}
		if len(v) == 0 {
			return nil, fmt.Errorf("live: %s buckets: empty", name)
		}
		return slices.Clone(v), nil
	}
	var err error
	var dur, tpot, tok []float64
	if dur, err = pick("duration", b.Duration, d.Duration); err != nil {
		return nil, err
	}
	if tpot, err = pick("TPOT", b.TPOT, d.TPOT); err != nil {
		return nil, err
	}
	if tok, err = pick("token", b.Tokens, d.Tokens); err != nil {
		return nil, err
	}
	return &[numHists][]float64{dur, dur, dur, tok, tok, tpot, dur}, nil
}

func sameBounds(a, b *[numHists][]float64) bool {
	if a == b {
		return true
	}
	for i := range a {
		if !slices.Equal(a[i], b[i]) {
			return false
		}
	}
	return true
}

// buckets counts observations per bucket (not cumulative; the last is
// +Inf), with their sum.
type buckets struct {
	counts []uint64
	sum    float64
}

func (b *buckets) observe(bounds []float64, v float64) {
	// The first bound ≥ v: Prometheus' le buckets are inclusive.
	b.counts[sort.SearchFloat64s(bounds, v)]++
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
func (b *buckets) cumulative(bounds []float64) (map[float64]uint64, uint64) {
	out := make(map[float64]uint64, len(bounds))
	var n uint64
	for i, bound := range bounds {
		n += b.counts[i]
		out[bound] = n
	}
	return out, n + b.counts[len(b.counts)-1]
}
