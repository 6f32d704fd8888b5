package live

import (
	"context"
	"fmt"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/prometheus/client_golang/prometheus"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/exemplar"
)

// benchRecord is an ok request of n one-token chunks 20 ms apart.
func benchRecord(n int) *llmmetrics.Record {
	r := &llmmetrics.Record{ID: "r", CompletionTokens: n, PromptTokens: 512}
	for k := range n {
		r.Chunks = append(r.Chunks, 100*ms+time.Duration(k)*20*ms+time.Duration(k%7)*ms)
	}
	return r
}

func sinks(b *testing.B, which string) []Sink {
	switch which {
	case "prometheus":
		s, err := NewPrometheusSink(prometheus.NewRegistry(), PrometheusOptions{})
		if err != nil {
			b.Fatal(err)
		}
		return []Sink{s}
	case "otel":
		s, err := NewOTelSink(sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewManualReader())).Meter("b"), OTelOptions{})
		if err != nil {
			b.Fatal(err)
		}
		return []Sink{s}
	case "otel-producer":
		chunks := new(ChunkProducer)
		reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(chunks))
		s, err := NewOTelSink(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("b"), OTelOptions{Chunks: chunks})
		if err != nil {
			b.Fatal(err)
		}
		return []Sink{s}
	}
	return nil
}

// BenchmarkRecord measures recording one finished request of 1 and of 129
// chunks: the difference over 128 is the cost per chunk, the rest the
// cost per request. It runs with no sink, with the Prometheus sink, with
// the OpenTelemetry sink, and with it and a ChunkProducer.
func BenchmarkRecord(b *testing.B) {
	slo := llmmetrics.SLO{TTFT: time.Second, TPOT: 50 * ms}
	for _, which := range []string{"none", "prometheus", "otel", "otel-producer"} {
		for _, chunks := range []int{1, 129} {
			b.Run(fmt.Sprintf("sink=%s/chunks=%d", which, chunks), func(b *testing.B) {
				rec, err := NewRecorder(Options{SLO: &slo, Sinks: sinks(b, which)})
				if err != nil {
					b.Fatal(err)
				}
				r := benchRecord(chunks)
				rec.Record(chat, r) // the label set's first record creates its state
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					rec.Record(chat, r)
				}
			})
		}
	}
}

// BenchmarkRecordParallel records from GOMAXPROCS goroutines at once into
// one label set (run it with -cpu 1,2,N), without a sink (what a Collector
// exports from) and with the Prometheus sink: with more goroutines the
// time per record (wall time over all of them) should fall, not rise.
func BenchmarkRecordParallel(b *testing.B) {
	for _, which := range []string{"none", "prometheus"} {
		b.Run("sink="+which, func(b *testing.B) { // none: the Collector's path
			rec, err := NewRecorder(Options{Sinks: sinks(b, which)})
			if err != nil {
				b.Fatal(err)
			}
			r := benchRecord(33)
			rec.Record(chat, r)
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					rec.Record(chat, r)
				}
			})
		})
	}
}

// BenchmarkLabelSetMemory reports the heap a label set costs: its first
// record creates 8 shards of 7 states (the retired figures and 6 slots),
// each with 5 sketches and 7 bucket arrays; the sketches grow with the
// spread of the values they hold (here one request of 33 chunks).
func BenchmarkLabelSetMemory(b *testing.B) {
	r := benchRecord(33)
	var before, after runtime.MemStats
	const sets = 200
	for b.Loop() {
		rec, _ := NewRecorder(Options{})
		runtime.GC()
		runtime.ReadMemStats(&before)
		for i := range sets {
			rec.Record(Key{Model: strconv.Itoa(i)}, r)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		runtime.KeepAlive(rec)
	}
	b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/sets, "B/labelset")
}

// BenchmarkOTelSink measures the OTel sink alone: one observation of 1
// and of 129 chunks handed to Observe, with the SDK's default exemplar
// filter, with exemplars off, and with the chunk gaps going to a
// ChunkProducer; (chunks=129 − chunks=1)/128 is the cost per chunk,
// chunks=1 the cost per request.
func BenchmarkOTelSink(b *testing.B) {
	for _, mode := range []string{"exemplars=default", "exemplars=off", "producer"} {
		for _, chunks := range []int{1, 129} {
			b.Run(fmt.Sprintf("%s/chunks=%d", mode, chunks), func(b *testing.B) {
				var readerOpts []sdkmetric.ManualReaderOption
				sinkOpts := OTelOptions{}
				if mode == "producer" {
					sinkOpts.Chunks = new(ChunkProducer)
					readerOpts = append(readerOpts, sdkmetric.WithProducer(sinkOpts.Chunks))
				}
				opts := []sdkmetric.Option{sdkmetric.WithReader(sdkmetric.NewManualReader(readerOpts...))}
				if mode == "exemplars=off" {
					opts = append(opts, sdkmetric.WithExemplarFilter(exemplar.AlwaysOffFilter))
				}
				sink, err := NewOTelSink(sdkmetric.NewMeterProvider(opts...).Meter("b"), sinkOpts)
				if err != nil {
					b.Fatal(err)
				}
				o := observationOf(benchRecord(chunks), nil, extra{})
				ctx := context.Background()
				sink.Observe(ctx, chat, o)
				b.ReportAllocs()
				b.ResetTimer()
				for b.Loop() {
					sink.Observe(ctx, chat, o)
				}
			})
		}
	}
}

// BenchmarkCollect measures one scrape of a Collector whose recorder holds
// 100 label sets, each with one request of 33 chunks recorded: what a
// gateway pays per /metrics request.
func BenchmarkCollect(b *testing.B) {
	rec, err := NewRecorder(Options{})
	if err != nil {
		b.Fatal(err)
	}
	r := benchRecord(33)
	for i := range 100 {
		rec.Record(Key{Operation: "chat", Model: strconv.Itoa(i)}, r)
	}
	reg := prometheus.NewRegistry()
	reg.MustRegister(NewCollector(rec))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := reg.Gather(); err != nil {
			b.Fatal(err)
		}
	}
}
