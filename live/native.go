package live

import (
	"math"
	"slices"
	"sort"

	"github.com/prometheus/client_golang/prometheus"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/proto"
)

// Native (sparse) histograms of the Collector (Options.NativeHistograms):
// schema 3, each bucket 2^(1/8) ≈ 1.09 times the last, the bucket the
// Prometheus client picks for a growth factor of 1.1, so that a Collector
// and a PrometheusSink with NativeFactor 1.1 export the same buckets.
const (
	nativeSchema = 3
	// nativeZero is the Prometheus client's default zero threshold:
	// values at most this are in the zero bucket.
	nativeZero = 2.938735877055719e-39
)

// nativeBounds are schema 3's bucket bounds within one power of two, as
// fractions of math.Frexp.
var nativeBounds = [8]float64{
	0.5, 0.5452538663326288, 0.5946035575013605, 0.6484197773255048,
	0.7071067811865475, 0.7711054127039704, 0.8408964152537144, 0.9170040432046711,
}

// native counts the observations of one histogram in sparse buckets.
type native struct {
	zero uint64
	pos  map[int]uint64
}

// observe adds a value (never negative here).
func (n *native) observe(v float64) {
	if v <= nativeZero {
		n.zero++
		return
	}
	frac, exp := math.Frexp(v)
	key := sort.SearchFloat64s(nativeBounds[:], frac) + (exp-1)*len(nativeBounds)
	if n.pos == nil {
		n.pos = map[int]uint64{}
	}
	n.pos[key]++
}

func (n *native) merge(o *native) {
	n.zero += o.zero
	for k, c := range o.pos {
		if n.pos == nil {
			n.pos = map[int]uint64{}
		}
		n.pos[k] += c
	}
}

// natives are a shard's native histograms, cumulative.
type natives [numHists]native

// add adds what an observation gives each histogram, as state.add gives
// the classic ones.
func (ns *natives) add(o *Observation) {
	histValues(o, func(h int, v float64) { ns[h].observe(v) })
}

// histValues calls fn with each histogram's value from a successful
// observation: what both the classic and the native buckets count.
func histValues(o *Observation, fn func(h int, v float64)) {
	if o.Outcome != OutcomeOK && o.Outcome != OutcomeNoCount {
		return
	}
	fn(histDuration, o.E2E.Seconds())
	if o.HasTTFT {
		fn(histTTFC, o.TTFT.Seconds())
	}
	if o.Outcome == OutcomeOK {
		fn(histOutput, float64(o.OutputTokens))
	}
	if o.PromptTokens > 0 {
		fn(histInput, float64(o.PromptTokens))
	}
	if o.HasTPOT {
		fn(histTPOT, o.TPOT.Seconds())
	}
	if o.HasMaxGap {
		fn(histMaxGap, o.MaxGap.Seconds())
		for i := 1; i < len(o.Chunks); i++ {
			fn(histPerChunk, (o.Chunks[i] - o.Chunks[i-1]).Seconds())
		}
	}
}

// mixedHistogram is a histogram series with classic and native buckets.
type mixedHistogram struct {
	desc   *prometheus.Desc
	h      *dto.Histogram
	labels []*dto.LabelPair
}

func (m *mixedHistogram) Desc() *prometheus.Desc { return m.desc }

func (m *mixedHistogram) Write(out *dto.Metric) error {
	out.Histogram, out.Label = m.h, m.labels
	return nil
}

// newMixedHistogram returns a series with the classic buckets (cumulative,
// as the client takes them) and the native ones.
func newMixedHistogram(desc *prometheus.Desc, count uint64, sum float64, cum map[float64]uint64, n *native, labels ...string) prometheus.Metric {
	bounds := make([]float64, 0, len(cum))
	for b := range cum {
		bounds = append(bounds, b)
	}
	slices.Sort(bounds)
	h := &dto.Histogram{SampleCount: proto.Uint64(count), SampleSum: proto.Float64(sum),
		Schema: proto.Int32(nativeSchema), ZeroThreshold: proto.Float64(nativeZero), ZeroCount: proto.Uint64(n.zero)}
	for _, b := range bounds {
		h.Bucket = append(h.Bucket, &dto.Bucket{UpperBound: proto.Float64(b), CumulativeCount: proto.Uint64(cum[b])})
	}
	keys := make([]int, 0, len(n.pos))
	for k := range n.pos {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	var prev int64
	for i, k := range keys {
		if i == 0 || k != keys[i-1]+1 {
			offset := k
			if i > 0 {
				offset = k - keys[i-1] - 1
			}
			h.PositiveSpan = append(h.PositiveSpan, &dto.BucketSpan{Offset: proto.Int32(int32(offset)), Length: proto.Uint32(0)})
		}
		s := h.PositiveSpan[len(h.PositiveSpan)-1]
		*s.Length++
		c := int64(n.pos[k])
		h.PositiveDelta = append(h.PositiveDelta, c-prev)
		prev = c
	}
	if len(h.PositiveSpan) == 0 && n.zero == 0 {
		// An empty native histogram still says it is one.
		h.PositiveSpan = []*dto.BucketSpan{{Offset: proto.Int32(0), Length: proto.Uint32(0)}}
	}
	return &mixedHistogram{desc: desc, h: h, labels: prometheus.MakeLabelPairs(desc, labels)}
}
