package live

import (
	"context"
	"errors"
	"math"
	"slices"
	"sync"
	"testing"
	"time"

	"go.opentelemetry.io/otel"
	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

const perChunkName = "gen_ai.client.operation.time_per_output_chunk"

// chunkPoints collects reader and returns the chunk-gap data points by
// their attributes' encoding.
func chunkPoints(t *testing.T, reader *sdkmetric.ManualReader) map[string]metricdata.HistogramDataPoint[float64] {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := reader.Collect(context.Background(), &rm); err != nil {
		t.Fatal(err)
	}
	out := map[string]metricdata.HistogramDataPoint[float64]{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != perChunkName {
				continue
			}
			h := m.Data.(metricdata.Histogram[float64])
			if h.Temporality != metricdata.CumulativeTemporality {
				t.Errorf("%s: temporality %v, want cumulative", m.Name, h.Temporality)
			}
			for _, p := range h.DataPoints {
				out[p.Attributes.Encoded(attribute.DefaultEncoder())] = p
			}
		}
	}
	return out
}

// producerSink is an OTelSink whose chunk gaps go through a ChunkProducer
// registered on the returned reader.
func producerSink(t *testing.T) (*OTelSink, *sdkmetric.ManualReader) {
	t.Helper()
	chunks := new(ChunkProducer)
	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(chunks))
	sink, err := NewOTelSink(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("t"), OTelOptions{Chunks: chunks})
	if err != nil {
		t.Fatal(err)
	}
	return sink, reader
}

func okObservation(chunks ...time.Duration) Observation {
	return Observation{Outcome: OutcomeOK, HasTTFT: true, TTFT: chunks[0], E2E: chunks[len(chunks)-1],
		HasMaxGap: len(chunks) > 1, Chunks: chunks, OutputTokens: len(chunks), TokenBasis: true}
}

// TestChunkProducerByHand checks one request's gaps against hand
// arithmetic, with the conventions' duration bounds 0.01, 0.02, 0.04,
// 0.08, 0.16, … s.
func TestChunkProducerByHand(t *testing.T) {
	sink, reader := producerSink(t)
	// Chunks at 0, 10, 30, 35 and 135 ms: gaps 10, 20, 5 and 100 ms.
	// 10 ms ≤ 0.01 and 5 ms go to bucket 0 (bounds are inclusive), 20 ms
	// to bucket 1 (≤ 0.02), 100 ms to bucket 4 (≤ 0.16). Sum 0.135 s,
	// min 0.005, max 0.1.
	sink.Observe(context.Background(), chat, okObservation(0, 10*ms, 30*ms, 35*ms, 135*ms))
	points := chunkPoints(t, reader)
	if len(points) != 1 {
		t.Fatalf("%d data points, want 1", len(points))
	}
	for _, p := range points {
		want := make([]uint64, 15)
		want[0], want[1], want[4] = 2, 1, 1
		if !slices.Equal(p.BucketCounts, want) || p.Count != 4 {
			t.Errorf("buckets %v count %d, want %v count 4", p.BucketCounts, p.Count, want)
		}
		if p.Sum != 0.135 {
			t.Errorf("sum %v, want 0.135", p.Sum)
		}
		if lo, _ := p.Min.Value(); lo != 0.005 {
			t.Errorf("min %v, want 0.005", lo)
		}
		if hi, _ := p.Max.Value(); hi != 0.1 {
			t.Errorf("max %v, want 0.1", hi)
		}
		if v, ok := p.Attributes.Value(attrRequestModel); !ok || v.AsString() != "m" {
			t.Errorf("model %v, want m", v.AsString())
		}
	}
}

// TestChunkProducerMatchesSDK records the same observations through a
// sink that records each gap with the SDK's instrument and through one
// with a ChunkProducer: the SDK's aggregation is the reference.
func TestChunkProducerMatchesSDK(t *testing.T) {
	plainReader := sdkmetric.NewManualReader()
	plain, err := NewOTelSink(sdkmetric.NewMeterProvider(sdkmetric.WithReader(plainReader)).Meter("t"), OTelOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fast, fastReader := producerSink(t)
	other := chat
	other.Model = "other"
	// Gaps on the bounds, between them, zero, and beyond the last bound.
	gaps := []time.Duration{0, 10 * ms, 10*ms + 1, 20 * ms, 39 * ms, 40 * ms, 81920 * ms, 90 * time.Second, 3 * ms, 160 * ms, 7 * ms}
	for i := range 40 {
		chunks := []time.Duration{100 * ms}
		for j := range i % 9 {
			chunks = append(chunks, chunks[len(chunks)-1]+gaps[(i+j)%len(gaps)])
		}
		k := chat
		if i%3 == 0 {
			k = other
		}
		for _, s := range []*OTelSink{plain, fast} {
			s.Observe(context.Background(), k, okObservation(chunks...))
		}
	}
	want, got := chunkPoints(t, plainReader), chunkPoints(t, fastReader)
	if len(want) != 2 || len(got) != len(want) {
		t.Fatalf("%d data points from the producer, %d from the SDK, want 2", len(got), len(want))
	}
	for attrs, w := range want {
		g, ok := got[attrs]
		if !ok {
			t.Errorf("producer lacks %s", attrs)
			continue
		}
		wlo, _ := w.Min.Value()
		glo, _ := g.Min.Value()
		whi, _ := w.Max.Value()
		ghi, _ := g.Max.Value()
		if g.Count != w.Count || !slices.Equal(g.BucketCounts, w.BucketCounts) || !slices.Equal(g.Bounds, w.Bounds) || glo != wlo || ghi != whi {
			t.Errorf("%s:\nproducer count %d buckets %v min %v max %v\nSDK      count %d buckets %v min %v max %v",
				attrs, g.Count, g.BucketCounts, glo, ghi, w.Count, w.BucketCounts, wlo, whi)
		}
		// The producer sums nanoseconds exactly; the SDK adds seconds.
		if math.Abs(g.Sum-w.Sum) > 1e-12*w.Sum {
			t.Errorf("%s: sum %v, SDK %v", attrs, g.Sum, w.Sum)
		}
	}
}

func TestChunkProducerOneSink(t *testing.T) {
	chunks := new(ChunkProducer)
	if got, _ := chunks.Produce(context.Background()); got != nil {
		t.Errorf("an unused producer produced %v", got)
	}
	meter := sdkmetric.NewMeterProvider().Meter("t")
	if _, err := NewOTelSink(meter, OTelOptions{Chunks: chunks}); err != nil {
		t.Fatal(err)
	}
	if _, err := NewOTelSink(meter, OTelOptions{Chunks: chunks}); !errors.Is(err, ErrProducerTaken) {
		t.Errorf("a second sink: %v, want ErrProducerTaken", err)
	}
	bad := new(ChunkProducer)
	if _, err := NewOTelSink(meter, OTelOptions{Chunks: bad, Buckets: Buckets{Duration: []float64{2, 1}}}); err == nil {
		t.Error("descending buckets accepted")
	}
	if _, err := NewOTelSink(meter, OTelOptions{Chunks: bad}); err != nil {
		t.Errorf("a producer whose sink failed to be made is not free: %v", err)
	}
}

func TestChunkProducerForget(t *testing.T) {
	sink, reader := producerSink(t)
	sink.Observe(context.Background(), chat, okObservation(0, 10*ms, 20*ms))
	if n := len(chunkPoints(t, reader)); n != 1 {
		t.Fatalf("%d points, want 1", n)
	}
	sink.Forget(chat)
	if n := len(chunkPoints(t, reader)); n != 0 {
		t.Errorf("%d points after Forget, want 0", n)
	}
	// A request of one chunk has no gap: no point.
	sink.Observe(context.Background(), chat, okObservation(10*ms))
	if n := len(chunkPoints(t, reader)); n != 0 {
		t.Errorf("%d points after a one-chunk request, want 0", n)
	}
}

// TestChunkProducerManyBuckets uses more bounds than a request's gaps are
// counted in on the stack.
func TestChunkProducerManyBuckets(t *testing.T) {
	bounds := make([]float64, 40)
	for i := range bounds {
		bounds[i] = float64(i+1) / 1000 // 1, 2, … 40 ms
	}
	chunks := new(ChunkProducer)
	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(chunks))
	sink, err := NewOTelSink(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("t"), OTelOptions{Chunks: chunks, Buckets: Buckets{Duration: bounds}})
	if err != nil {
		t.Fatal(err)
	}
	// Gaps 1, 35 and 50 ms: buckets 0 (≤ 1 ms), 34 (≤ 35 ms) and 40 (+Inf).
	sink.Observe(context.Background(), chat, okObservation(0, 1*ms, 36*ms, 86*ms))
	for _, p := range chunkPoints(t, reader) {
		want := make([]uint64, 41)
		want[0], want[34], want[40] = 1, 1, 1
		if !slices.Equal(p.BucketCounts, want) || p.Sum != 0.086 {
			t.Errorf("buckets %v sum %v, want %v sum 0.086", p.BucketCounts, p.Sum, want)
		}
	}
}

// A producer that no reader collects says so once through the
// OpenTelemetry error handler, UnreadAfter after its first gap; one that
// a reader collects says nothing.
func TestChunkProducerUnread(t *testing.T) {
	var mu sync.Mutex
	var handled []error
	otel.SetErrorHandler(otel.ErrorHandlerFunc(func(err error) {
		mu.Lock()
		handled = append(handled, err)
		mu.Unlock()
	}))
	count := func() int {
		mu.Lock()
		defer mu.Unlock()
		return len(handled)
	}
	t0 := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)

	lost := new(ChunkProducer)
	lost.unread(t0)                                // the first gap
	lost.unread(t0.Add(UnreadAfter - time.Second)) // not yet
	if n := count(); n != 0 {
		t.Fatalf("%d reports before UnreadAfter", n)
	}
	lost.unread(t0.Add(UnreadAfter))
	lost.unread(t0.Add(2 * UnreadAfter))
	if n := count(); n != 1 || !errors.Is(handled[0], ErrProducerUnread) {
		t.Fatalf("reports %v, want ErrProducerUnread once", handled)
	}

	read := new(ChunkProducer)
	read.unread(t0)
	read.Produce(context.Background())
	read.unread(t0.Add(2 * UnreadAfter))
	if n := count(); n != 1 {
		t.Errorf("a collected producer reported: %v", handled)
	}

	// Through a sink: its first observation starts the clock.
	sink, err := NewOTelSink(sdkmetric.NewMeterProvider().Meter("t"), OTelOptions{Chunks: new(ChunkProducer)})
	if err != nil {
		t.Fatal(err)
	}
	sink.Observe(context.Background(), chat, okObservation(0, 10*ms, 20*ms))
	if sink.chunks.firstGap.Load() == 0 {
		t.Error("the sink's first gap did not start the producer's clock")
	}
}
