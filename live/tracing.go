package live

import (
	"context"
	"net/http"
	"net/textproto"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.41.0"
	"go.opentelemetry.io/otel/trace"
)

// ScopeName is the instrumentation scope of live's meter, tracer and
// ChunkProducer: the module's import path.
const ScopeName = "github.com/llmmetrics/llmmetrics/live"

// SchemaURL is the schema of the semantic conventions live's metrics and
// spans follow, v1.41.0's.
const SchemaURL = semconv.SchemaURL

// Meter returns the meter an OTelSink should record with: live's scope,
// declaring the conventions' schema URL.
func Meter(mp metric.MeterProvider) metric.Meter {
	return mp.Meter(ScopeName, metric.WithSchemaURL(SchemaURL))
}

// tracerOf returns live's tracer of tp: live's scope, declaring the
// conventions' schema URL.
func tracerOf(tp trace.TracerProvider) trace.Tracer {
	return tp.Tracer(ScopeName, trace.WithSchemaURL(SchemaURL))
}

// TraceOptions configure a Tracer.
type TraceOptions struct {
	// Propagator writes the span's context into the headers of the
	// request sent; nil means the W3C trace context (traceparent and
	// tracestate).
	Propagator propagation.TextMapPropagator
}

// A Tracer is the OpenTelemetry observe.Tracer: each call through an
// observe.Transport with it gets one span of the GenAI conventions'
// inference kind, named "{gen_ai.operation.name} {gen_ai.request.model}",
// of kind CLIENT, from the call's start (its client wait included, as
// llmmetrics.client.wait says) to the end of its response or its failure,
// with every attribute the conventions define that the call gave (see
// NewSpanSink, which makes the same span from a finished request), and
// the span's W3C traceparent on the request sent, so that the server's
// own spans join the trace. The span is built once, when the call ends:
// it costs nothing a chunk.
//
//	t := &observe.Transport{Tracer: live.NewTracer(tp, live.TraceOptions{})}
type Tracer struct {
	tracer trace.Tracer
	prop   propagation.TextMapPropagator

	mu    sync.RWMutex
	names map[nameKey]string // the span names made, up to maxNames
}

// nameKey is what a span's name is made of.
type nameKey struct{ operation, model string }

// maxNames bounds the span names a Tracer keeps: the model usually comes
// from the client's request.
const maxNames = 256

// name returns the span name of a call under k, made once for each of the
// first maxNames operations and models.
func (t *Tracer) name(k Key) string {
	if k.Model == "" {
		return k.Operation
	}
	nk := nameKey{k.Operation, k.Model}
	t.mu.RLock()
	n, ok := t.names[nk]
	t.mu.RUnlock()
	if ok {
		return n
	}
	n = spanName(k)
	t.mu.Lock()
	if len(t.names) < maxNames {
		t.names[nk] = n
	}
	t.mu.Unlock()
	return n
}

var _ observe.Tracer = (*Tracer)(nil)

// NewTracer returns a Tracer whose spans tp makes (otel.GetTracerProvider()
// for the global one).
func NewTracer(tp trace.TracerProvider, opt TraceOptions) *Tracer {
	t := &Tracer{tracer: tracerOf(tp), prop: opt.Propagator, names: map[nameKey]string{}}
	if t.prop == nil {
		t.prop = propagation.TraceContext{}
	}
	return t
}

// noEnd ends a span that is not recorded.
func noEnd(*observe.Result) {}

// clientKind is the option of every span's kind.
var clientKind = trace.WithSpanKind(trace.SpanKindClient)

// spanBuf holds a span's attributes and options as they are gathered: the
// SDK copies them, so that the buffers go back to spanBufs once handed
// over.
type spanBuf struct {
	attrs [24]attribute.KeyValue
	start [3]trace.SpanStartOption
}

var spanBufs = sync.Pool{New: func() any { return new(spanBuf) }}

// headerCarrier writes a propagator's fields into a request's header under
// their canonical names, without computing those of the W3C trace
// context's.
type headerCarrier http.Header

func (h headerCarrier) Get(key string) string { return http.Header(h).Get(key) }
func (h headerCarrier) Keys() []string        { return propagation.HeaderCarrier(h).Keys() }
func (h headerCarrier) Set(key, value string) {
	switch key {
	case "traceparent":
		key = "Traceparent"
	case "tracestate":
		key = "Tracestate"
	case "baggage":
		key = "Baggage"
	default:
		key = textproto.CanonicalMIMEHeaderKey(key)
	}
	h[key] = []string{value}
}

// Start starts the span of a call, names it and sets the attributes known
// before it is sent, and writes its context into the headers; the
// function it returns sets the rest and ends it.
func (t *Tracer) Start(ctx context.Context, header http.Header, r *observe.Result) (context.Context, func(*observe.Result)) {
	in := resultInput(r)
	buf := spanBufs.Get().(*spanBuf)
	opts := append(buf.start[:0], clientKind, trace.WithAttributes(in.startAttrs(buf.attrs[:0])...))
	ctx, span := t.tracer.Start(ctx, t.name(in.k), opts...)
	clear(buf.start[:])
	spanBufs.Put(buf)
	t.prop.Inject(ctx, headerCarrier(header))
	if !span.IsRecording() {
		return ctx, noEnd
	}
	return ctx, func(r *observe.Result) {
		in := resultInput(r)
		endSpan(span, &in, time.Time{})
	}
}

// SpanOptions configure a SpanSink.
type SpanOptions struct {
	// Epoch is the wall-clock time at which the records' Sent is 0 (a
	// run file's RunHeader.Start), for SpanSink.Record. The zero Epoch
	// is the Unix epoch: the spans keep the records' offsets.
	Epoch time.Time
}

// A SpanSink makes the span of a request that has finished: the same
// span a Tracer makes of a call through a Transport, with the request's
// own times (trace.WithTimestamp). It takes a Transport's or the driver's
// observe.Result (Result), or any llmmetrics.Record with its label set
// (Record): a record of a file, of the driver, of a gateway. It is safe
// for concurrent use.
//
// The span is named "{gen_ai.operation.name} {gen_ai.request.model}", of
// kind CLIENT, and carries, where the request gave them:
// gen_ai.operation.name, gen_ai.provider.name, gen_ai.request.model,
// gen_ai.request.stream, gen_ai.request.max_tokens, server.address,
// server.port; gen_ai.response.id, gen_ai.response.model,
// gen_ai.response.finish_reasons, gen_ai.response.time_to_first_chunk
// (the first text-bearing chunk of a streamed response, in seconds from
// the send), gen_ai.usage.input_tokens, gen_ai.usage.output_tokens (where
// the server reported the count), gen_ai.usage.cache_read.input_tokens,
// gen_ai.usage.reasoning.output_tokens; error.type of a failure, in the
// metrics' vocabulary (ErrorTypeOf), with the span's status Error, its
// message (at most MaxMessageLength bytes) and a
// gen_ai.client.operation.exception event (exception.type,
// exception.message); and llmmetrics.outcome (the metrics' outcomes),
// llmmetrics.reason (a no_count request's), llmmetrics.client.wait and
// llmmetrics.max_gap (seconds) where the conventions have none. Every
// string is valid UTF-8 of at most MaxLabelLength bytes, as the metrics'
// labels are.
type SpanSink struct {
	tracer trace.Tracer
	epoch  time.Time
}

// NewSpanSink returns a SpanSink whose spans tp makes.
func NewSpanSink(tp trace.TracerProvider, opt SpanOptions) *SpanSink {
	return &SpanSink{tracer: tracerOf(tp), epoch: opt.Epoch}
}

// Result makes the span of a finished call, a child of the span in ctx if
// any: from r.Started (the call's start; the epoch plus its send time
// when unset) to the end of its response or its failure. Its signature is
// observe.Transport.OnResultContext's.
func (s *SpanSink) Result(ctx context.Context, r *observe.Result) {
	in := resultInput(r)
	var wait time.Duration
	if r.Record.Client != nil {
		wait = r.Record.Client.Wait
	}
	start := r.Started
	if start.IsZero() {
		start = s.epoch.Add(r.Record.Sent - wait)
	}
	s.span(ctx, &in, start, start.Add(wait+r.Duration))
}

// Record makes the span of a record under its label set k, a child of
// the span in ctx if any: from the epoch plus its send time, less the
// client's wait where it says, to its last text-bearing chunk — for a
// failed record, its last chunk or, without any, its send. Its signature
// is Recorder.RecordContext's.
func (s *SpanSink) Record(ctx context.Context, k Key, r *llmmetrics.Record) {
	in := recordInput(k, r)
	sent := s.epoch.Add(r.Sent)
	start := sent
	if r.Client != nil {
		start = sent.Add(-r.Client.Wait)
	}
	end := sent
	if n := len(r.Chunks); n > 0 {
		end = sent.Add(r.Chunks[n-1])
	} else if r.Category() == llmmetrics.CategoryOK && r.Validate() == nil {
		e2e, _ := r.E2E()
		end = sent.Add(e2e)
	}
	s.span(ctx, &in, start, end)
}

func (s *SpanSink) span(ctx context.Context, in *spanInput, start, end time.Time) {
	buf := spanBufs.Get().(*spanBuf)
	opts := append(buf.start[:0], clientKind, trace.WithTimestamp(start), trace.WithAttributes(in.startAttrs(buf.attrs[:0])...))
	_, span := s.tracer.Start(ctx, spanName(in.k), opts...)
	clear(buf.start[:])
	spanBufs.Put(buf)
	if !span.IsRecording() {
		span.End()
		return
	}
	endSpan(span, in, end)
}
