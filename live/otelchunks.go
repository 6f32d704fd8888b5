package live

import (
	"context"
	"errors"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/sdk/instrumentation"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// A ChunkProducer takes gen_ai.client.operation.time_per_output_chunk out
// of an OTelSink's SDK instruments: the sink adds each request's chunk
// gaps to the producer's histogram of their label set, and the reader
// the ChunkProducer is registered on (sdkmetric.WithProducer) exports
// them at each collection. It exists for speed: the SDK's Record costs
// about 250 ns a call (most of it normalizing the attribute set, which it
// does on every call), once per chunk; the ChunkProducer costs a few ns a
// chunk and one lock a request. The figures are the same: the same
// buckets (the first bound ≥ the gap, as the SDK's), count, sum, min and
// max, cumulative from the label set's first observation.
//
// The reader must be made with the producer before the meter provider,
// and the sink after it:
//
//	chunks := new(live.ChunkProducer)
//	reader := sdkmetric.NewPeriodicReader(exporter, sdkmetric.WithProducer(chunks))
//	provider := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))
//	sink, err := live.NewOTelSink(live.Meter(provider), live.OTelOptions{Chunks: chunks})
//
// A ChunkProducer serves one sink. Its data points are cumulative
// whatever the reader's temporality, and carry the instrumentation scope
// Scope (when zero, live's: ScopeName, with the conventions' SchemaURL);
// the SDK applies no view to them.
// Registered on no reader, its histogram is exported nowhere: when no
// reader has collected it UnreadAfter after its first gap, it says so once
// through the OpenTelemetry error handler (otel.Handle, which logs by
// default).
type ChunkProducer struct {
	// Scope is the instrumentation scope of the exported metric.
	Scope instrumentation.Scope

	mu     sync.Mutex
	bounds []float64 // set by the one sink that takes it
	sets   sync.Map  // Key → *chunkHist

	produced, warned atomic.Bool
	firstGap         atomic.Int64 // Unix ns of the first gap added; 0 before
}

// UnreadAfter is how long a ChunkProducer holds gaps no reader collected
// before it reports that it seems registered on no reader: ten times a
// periodic reader's default interval of a minute.
const UnreadAfter = 10 * time.Minute

// ErrProducerUnread is what a ChunkProducer reports, once, through
// otel.Handle when no reader has collected it UnreadAfter after its first
// gap.
var ErrProducerUnread = errors.New("live: the ChunkProducer's chunk gaps have not been collected by any reader: register it on the reader with sdkmetric.WithProducer, or leave OTelOptions.Chunks nil")

// unread reports, once, a producer no reader has collected for
// UnreadAfter since its first gap; now is the time of a gap being added.
func (p *ChunkProducer) unread(now time.Time) {
	if p.produced.Load() || p.warned.Load() {
		return
	}
	first := p.firstGap.Load()
	if first == 0 {
		p.firstGap.CompareAndSwap(0, now.UnixNano())
		return
	}
	if now.Sub(time.Unix(0, first)) >= UnreadAfter && p.warned.CompareAndSwap(false, true) {
		otel.Handle(ErrProducerUnread)
	}
}

// ErrProducerTaken is returned by NewOTelSink for a ChunkProducer that
// another sink already uses.
var ErrProducerTaken = errors.New("live: the ChunkProducer serves another sink already")

// chunkHist is one label set's histogram of chunk gaps.
type chunkHist struct {
	attrs attribute.Set
	start time.Time

	mu       sync.Mutex
	counts   []uint64 // per bucket, the last +Inf
	n        uint64
	sum      time.Duration
	min, max time.Duration
}

// take binds p to a sink's bounds, once.
func (p *ChunkProducer) take(bounds []float64) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.bounds != nil {
		return ErrProducerTaken
	}
	p.bounds = bounds
	return nil
}

// histOf returns the histogram of k, made with attrs on first use.
func (p *ChunkProducer) histOf(k Key, attrs attribute.Set) *chunkHist {
	if h, ok := p.sets.Load(k); ok {
		return h.(*chunkHist)
	}
	h := &chunkHist{attrs: attrs, start: time.Now(), counts: make([]uint64, len(p.bounds)+1)}
	got, _ := p.sets.LoadOrStore(k, h)
	return got.(*chunkHist)
}

func (p *ChunkProducer) forget(k Key) { p.sets.Delete(k) }

// maxLocal is the most buckets a request's gaps are counted in on the
// stack before they are added under the lock; more (a configuration of
// over 31 bounds) are counted in a slice of the heap.
const maxLocal = 32

// observe adds the gaps between consecutive chunks to h: counted apart
// from h, then added under one lock.
func (h *chunkHist) observe(bounds []float64, chunks []time.Duration) {
	if len(chunks) < 2 {
		return
	}
	var stack [maxLocal]uint32
	local := stack[:0]
	if n := len(bounds) + 1; n <= maxLocal {
		local = stack[:n]
	} else {
		local = make([]uint32, n)
	}
	first := chunks[1] - chunks[0]
	lo, hi, sum := first, first, time.Duration(0)
	for i := 1; i < len(chunks); i++ {
		g := chunks[i] - chunks[i-1]
		local[bucketOf(bounds, g)]++
		sum += g
		lo, hi = min(lo, g), max(hi, g)
	}
	h.mu.Lock()
	for i, c := range local {
		h.counts[i] += uint64(c)
	}
	if h.n == 0 || lo < h.min {
		h.min = lo
	}
	if h.n == 0 || hi > h.max {
		h.max = hi
	}
	h.n += uint64(len(chunks) - 1)
	h.sum += sum
	h.mu.Unlock()
}

// bucketOf is the index of the first bound ≥ g in seconds, as the SDK's
// explicit-bucket histogram finds it; gaps are mostly in the first
// buckets, so the search goes up from the smallest.
func bucketOf(bounds []float64, g time.Duration) int {
	v := g.Seconds()
	for i, b := range bounds {
		if v <= b {
			return i
		}
	}
	return len(bounds)
}

// Produce returns the chunk-gap histogram of every label set with at least
// one gap, cumulative: sdkmetric.Producer's method, called by the reader
// at each collection.
func (p *ChunkProducer) Produce(context.Context) ([]metricdata.ScopeMetrics, error) {
	p.produced.Store(true)
	p.mu.Lock()
	bounds := slices.Clone(p.bounds) // each collection's own
	p.mu.Unlock()
	if bounds == nil {
		return nil, nil
	}
	now := time.Now()
	var points []metricdata.HistogramDataPoint[float64]
	p.sets.Range(func(_, v any) bool {
		h := v.(*chunkHist)
		h.mu.Lock()
		if h.n > 0 {
			points = append(points, metricdata.HistogramDataPoint[float64]{
				Attributes:   h.attrs,
				StartTime:    h.start,
				Time:         now,
				Count:        h.n,
				Bounds:       bounds,
				BucketCounts: append([]uint64(nil), h.counts...),
				Min:          metricdata.NewExtrema(h.min.Seconds()),
				Max:          metricdata.NewExtrema(h.max.Seconds()),
				Sum:          h.sum.Seconds(),
			})
		}
		h.mu.Unlock()
		return true
	})
	if len(points) == 0 {
		return nil, nil
	}
	scope := p.Scope
	if scope.Name == "" {
		scope.Name, scope.SchemaURL = ScopeName, SchemaURL
	}
	return []metricdata.ScopeMetrics{{
		Scope: scope,
		Metrics: []metricdata.Metrics{{
			Name:        "gen_ai.client.operation.time_per_output_chunk",
			Description: histNames[histPerChunk][1],
			Unit:        "s",
			Data: metricdata.Histogram[float64]{
				Temporality: metricdata.CumulativeTemporality,
				DataPoints:  points,
			},
		}},
	}}, nil
}
