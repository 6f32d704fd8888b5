package live

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// attrMap returns a span's attributes by name.
func attrMap(kvs []attribute.KeyValue) map[string]any {
	m := map[string]any{}
	for _, kv := range kvs {
		m[string(kv.Key)] = kv.Value.AsInterface()
	}
	return m
}

func traceProvider() (*sdktrace.TracerProvider, *tracetest.InMemoryExporter) {
	exp := tracetest.NewInMemoryExporter()
	return sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp)), exp
}

// sse writes each event as an SSE data line, flushed.
func sse(w http.ResponseWriter, events ...string) {
	w.Header().Set("Content-Type", "text/event-stream")
	for _, e := range events {
		fmt.Fprintf(w, "data: %s\n\n", e)
		w.(http.Flusher).Flush()
	}
}

// upstream serves each case of TestTracerSpans by its model name.
func upstream(w http.ResponseWriter, r *http.Request) {
	body, _ := io.ReadAll(r.Body)
	w.Header().Set("X-Traceparent-Seen", r.Header.Get("Traceparent"))
	switch {
	case strings.Contains(string(body), `"ok"`):
		sse(w, `{"id":"chatcmpl-1","model":"ok-q4","choices":[{"delta":{"role":"assistant","content":""}}]}`,
			`{"id":"chatcmpl-1","model":"ok-q4","choices":[{"delta":{"reasoning_content":"hm"}}]}`,
			`{"id":"chatcmpl-1","model":"ok-q4","choices":[{"delta":{"content":"Hel"}}]}`,
			`{"id":"chatcmpl-1","model":"ok-q4","choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}`,
			`{"id":"chatcmpl-1","model":"ok-q4","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":3,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":1}}}`,
			`[DONE]`)
	case strings.Contains(string(body), `"failed"`):
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusServiceUnavailable)
		io.WriteString(w, `{"error":{"message":"overloaded","type":"server_error","code":503}}`)
	case strings.Contains(string(body), `"cancelled"`):
		sse(w, `{"id":"chatcmpl-3","model":"c","choices":[{"delta":{"content":"a"}}]}`)
		<-r.Context().Done()
	case strings.Contains(string(body), `"usageless"`):
		sse(w, `{"id":"chatcmpl-4","model":"u","choices":[{"delta":{"content":"a"}}]}`,
			`{"id":"chatcmpl-4","model":"u","choices":[{"delta":{"content":"b"},"finish_reason":"length"}]}`, `[DONE]`)
	case strings.Contains(string(body), `"unstreamed"`):
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"id":"chatcmpl-5","object":"chat.completion","model":"n","choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}],"usage":{"prompt_tokens":7,"completion_tokens":2}}`)
	case strings.Contains(string(body), `"instream"`):
		sse(w, `{"id":"chatcmpl-6","model":"e","choices":[{"delta":{"content":"a"}}]}`,
			`{"error":{"message":"out of memory","type":"server_error"}}`, `[DONE]`)
	default:
		sse(w, `{"id":"`+strings.Repeat("x", 300)+`","model":"h","choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":1,"completion_tokens":1}}`, `[DONE]`)
	}
}

// call sends body through a Transport traced by tp, reads the response
// (closing it after the first event when early), and returns the result
// and the traceparent the server saw.
func call(t *testing.T, tp trace.TracerProvider, srv *httptest.Server, ctx context.Context, body string, early bool) (*observe.Result, string) {
	t.Helper()
	var got *observe.Result
	client := &http.Client{Transport: &observe.Transport{Tracer: NewTracer(tp, TraceOptions{}), OnResult: func(r *observe.Result) { got = r }}}
	req, _ := http.NewRequestWithContext(ctx, http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(body))
	resp, err := client.Do(req)
	require.NoError(t, err)
	if early { // the first event, then close
		var seen []byte
		buf := make([]byte, 64)
		for !strings.Contains(string(seen), "\n\n") {
			n, err := resp.Body.Read(buf)
			seen = append(seen, buf[:n]...)
			require.NoError(t, err)
		}
	} else {
		io.ReadAll(resp.Body)
	}
	resp.Body.Close()
	require.NotNil(t, got)
	return got, resp.Header.Get("X-Traceparent-Seen")
}

// Each kind of call gets one CLIENT span, named by its operation and
// model, with exactly the attributes it gave, in the conventions' names;
// the server sees its traceparent.
func TestTracerSpans(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(upstream))
	defer srv.Close()
	host, portNum := splitHostPort(t, srv.URL)
	common := func(model string, stream bool) map[string]any {
		return map[string]any{
			"gen_ai.operation.name": "chat", "gen_ai.provider.name": "openai", "gen_ai.request.model": model,
			"gen_ai.request.stream": stream, "server.address": host, "server.port": portNum,
		}
	}
	// timed are the attributes whose values are times: checked against the
	// result's own record.
	type timed struct{ ttft, maxGap bool }
	for _, c := range []struct {
		name, body string
		early      bool
		want       map[string]any
		timed      timed
		failed     string // the status description of a failure
	}{
		{name: "ok", body: `{"model":"ok","stream":true,"max_tokens":64}`, timed: timed{true, true},
			want: map[string]any{"gen_ai.request.max_tokens": int64(64), "gen_ai.response.id": "chatcmpl-1", "gen_ai.response.model": "ok-q4",
				"gen_ai.response.finish_reasons": []string{"stop"}, "gen_ai.usage.input_tokens": int64(12), "gen_ai.usage.output_tokens": int64(3),
				"gen_ai.usage.cache_read.input_tokens": int64(4), "gen_ai.usage.reasoning.output_tokens": int64(1), "llmmetrics.outcome": "ok"}},
		{name: "failed", body: `{"model":"failed","stream":true}`, failed: "HTTP 503: overloaded",
			want: map[string]any{"error.type": "503", "llmmetrics.outcome": "failed"}},
		{name: "cancelled", body: `{"model":"cancelled","stream":true}`, early: true, timed: timed{ttft: true},
			failed: "observe: the caller closed the stream before its end",
			want:   map[string]any{"gen_ai.response.id": "chatcmpl-3", "gen_ai.response.model": "c", "error.type": "cancelled", "llmmetrics.outcome": "failed"}},
		{name: "usage-less", body: `{"model":"usageless","stream":true}`, timed: timed{true, true},
			want: map[string]any{"gen_ai.response.id": "chatcmpl-4", "gen_ai.response.model": "u", "gen_ai.response.finish_reasons": []string{"length"},
				"llmmetrics.outcome": "no_count", "llmmetrics.reason": "no_usage"}},
		{name: "unstreamed", body: `{"model":"unstreamed"}`,
			want: map[string]any{"gen_ai.response.id": "chatcmpl-5", "gen_ai.response.model": "n", "gen_ai.response.finish_reasons": []string{"stop"},
				"gen_ai.usage.input_tokens": int64(7), "gen_ai.usage.output_tokens": int64(2), "llmmetrics.outcome": "ok"}},
		{name: "in-stream error", body: `{"model":"instream","stream":true}`, timed: timed{ttft: true},
			failed: "HTTP 200, error in stream: server_error: out of memory",
			want:   map[string]any{"gen_ai.response.id": "chatcmpl-6", "gen_ai.response.model": "e", "error.type": "server_error", "llmmetrics.outcome": "failed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			tp, exp := traceProvider()
			res, seen := call(t, tp, srv, context.Background(), c.body, c.early)
			spans := exp.GetSpans()
			require.Len(t, spans, 1)
			s := spans[0]
			model := strings.Split(strings.Split(c.body, `"model":"`)[1], `"`)[0]
			assert.Equal(t, "chat "+model, s.Name)
			assert.Equal(t, trace.SpanKindClient, s.SpanKind)
			assert.Equal(t, SchemaURL, s.InstrumentationScope.SchemaURL)
			assert.Equal(t, "https://opentelemetry.io/schemas/1.41.0", s.InstrumentationScope.SchemaURL)
			assert.Equal(t, ScopeName, s.InstrumentationScope.Name)
			assert.Equal(t, fmt.Sprintf("00-%s-%s-01", s.SpanContext.TraceID(), s.SpanContext.SpanID()), seen, "the server joins the trace")

			want := common(model, strings.Contains(c.body, `"stream":true`))
			for k, v := range c.want {
				want[k] = v
			}
			got := attrMap(s.Attributes)
			// The times, from the record the Transport took.
			wait, ok := got["llmmetrics.client.wait"].(float64)
			assert.True(t, ok && wait >= 0 && wait == res.Record.Client.Wait.Seconds(), "client wait %v", got["llmmetrics.client.wait"])
			want["llmmetrics.client.wait"] = wait
			if c.timed.ttft {
				require.NotEmpty(t, res.Record.Chunks)
				want["gen_ai.response.time_to_first_chunk"] = res.Record.Chunks[0].Seconds()
			}
			if c.timed.maxGap {
				g, _ := res.Record.MaxGap()
				want["llmmetrics.max_gap"] = g.Seconds()
			}
			assert.Equal(t, want, got)

			if c.failed == "" {
				assert.Equal(t, codes.Unset, s.Status.Code)
				assert.Empty(t, s.Events)
				return
			}
			assert.Equal(t, codes.Error, s.Status.Code)
			assert.Equal(t, c.failed, s.Status.Description)
			require.Len(t, s.Events, 1)
			assert.Equal(t, "gen_ai.client.operation.exception", s.Events[0].Name)
			assert.Equal(t, map[string]any{"exception.type": c.want["error.type"], "exception.message": c.failed}, attrMap(s.Events[0].Attributes))
		})
	}
}

func splitHostPort(t *testing.T, url string) (string, int64) {
	var host string
	var port int64
	_, err := fmt.Sscanf(strings.Replace(strings.TrimPrefix(url, "http://"), ":", " ", 1), "%s %d", &host, &port)
	require.NoError(t, err)
	return host, port
}

// The span is a child of the span in the request's context; sampled out,
// it is not recorded, and the server still sees the trace (unsampled).
func TestTracerParentAndSampling(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(upstream))
	defer srv.Close()
	tp, exp := traceProvider()
	ctx, parent := tp.Tracer("app").Start(context.Background(), "handler")
	call(t, tp, srv, ctx, `{"model":"ok","stream":true}`, false)
	parent.End()
	spans := exp.GetSpans()
	require.Len(t, spans, 2)
	assert.Equal(t, parent.SpanContext().SpanID(), spans[0].Parent.SpanID())
	assert.Equal(t, parent.SpanContext().TraceID(), spans[0].SpanContext.TraceID())

	never := tracetest.NewInMemoryExporter()
	ntp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(never), sdktrace.WithSampler(sdktrace.NeverSample()))
	res, seen := call(t, ntp, srv, context.Background(), `{"model":"ok","stream":true}`, false)
	assert.Empty(t, never.GetSpans())
	assert.Regexp(t, `^00-[0-9a-f]{32}-[0-9a-f]{16}-00$`, seen, "the server sees an unsampled trace")
	assert.Equal(t, "ok", res.Record.Status.String())
}

// A hostile model name, response id or error type is made valid UTF-8
// and cut to MaxLabelLength bytes, as the metrics' labels are; a long
// message to MaxMessageLength.
func TestSpanHostileValues(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(upstream))
	defer srv.Close()
	tp, exp := traceProvider()
	model := "bad\xff" + strings.Repeat("é", 200)
	res, _ := call(t, tp, srv, context.Background(), `{"model":"`+model+`","stream":true}`, false)
	require.Equal(t, model, res.RequestModel)
	s := exp.GetSpans()[0]
	got := attrMap(s.Attributes)
	m := got["gen_ai.request.model"].(string)
	assert.True(t, utf8.ValidString(m))
	assert.LessOrEqual(t, len(m), MaxLabelLength)
	assert.True(t, strings.HasPrefix(m, "bad\uFFFDé"))
	assert.Equal(t, "chat "+m, s.Name)
	assert.Equal(t, strings.Repeat("x", MaxLabelLength), got["gen_ai.response.id"])

	// A record whose failure says too much, of a server's own error type.
	sink := NewSpanSink(tp, SpanOptions{})
	exp.Reset()
	r := &observe.Result{Operation: "chat", Provider: "openai", ErrorType: strings.Repeat("t", 500) + "\xfe"}
	r.Record.Status, r.Record.Message = llmmetrics.StatusError, strings.Repeat("m", 5000)+"\xff"
	sink.Result(context.Background(), r)
	s = exp.GetSpans()[0]
	assert.Equal(t, strings.Repeat("t", MaxLabelLength), attrMap(s.Attributes)["error.type"])
	assert.Equal(t, strings.Repeat("m", MaxMessageLength), s.Status.Description)
	assert.Equal(t, strings.Repeat("m", MaxMessageLength), attrMap(s.Events[0].Attributes)["exception.message"])
}

// A record becomes the same span, at its own times: from the epoch plus
// its send less the client's wait, to its last chunk.
func TestSpanSinkRecord(t *testing.T) {
	tp, exp := traceProvider()
	epoch := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	sink := NewSpanSink(tp, SpanOptions{Epoch: epoch})
	k := Key{Operation: "chat", Provider: "vllm", Model: "m", ResponseModel: "m-served", Endpoint: "10.0.0.5", Port: 8000}
	r := &llmmetrics.Record{ID: "1", Sent: 2 * time.Second, Chunks: []time.Duration{100 * ms, 150 * ms, 400 * ms},
		PromptTokens: 20, CompletionTokens: 3, MaxTokens: 32, Client: &llmmetrics.ClientSide{Wait: 5 * ms}}
	sink.Record(context.Background(), k, r)
	// A failed record without chunks: a zero-length span at its send.
	f := &llmmetrics.Record{ID: "2", Sent: 3 * time.Second, Status: llmmetrics.StatusTimeout, Message: "deadline exceeded"}
	sink.Record(context.Background(), Key{Operation: "text_completion", Provider: "openai"}, f)

	spans := exp.GetSpans()
	require.Len(t, spans, 2)
	s := spans[0]
	assert.Equal(t, "chat m", s.Name)
	assert.Equal(t, trace.SpanKindClient, s.SpanKind)
	assert.Equal(t, epoch.Add(1995*ms), s.StartTime) // 2 s − 5 ms
	assert.Equal(t, epoch.Add(2400*ms), s.EndTime)   // 2 s + 400 ms
	assert.Equal(t, map[string]any{
		"gen_ai.operation.name": "chat", "gen_ai.provider.name": "vllm", "gen_ai.request.model": "m", "gen_ai.request.max_tokens": int64(32),
		"server.address": "10.0.0.5", "server.port": int64(8000), "gen_ai.response.model": "m-served",
		"gen_ai.response.time_to_first_chunk": 0.1, "gen_ai.usage.input_tokens": int64(20), "gen_ai.usage.output_tokens": int64(3),
		"llmmetrics.outcome": "ok", "llmmetrics.client.wait": 0.005, "llmmetrics.max_gap": 0.25, // 400 − 150 ms
	}, attrMap(s.Attributes))
	assert.Equal(t, codes.Unset, s.Status.Code)

	s = spans[1]
	assert.Equal(t, "text_completion", s.Name, "no model: the operation alone")
	assert.Equal(t, epoch.Add(3*time.Second), s.StartTime)
	assert.Equal(t, epoch.Add(3*time.Second), s.EndTime)
	assert.Equal(t, map[string]any{"gen_ai.operation.name": "text_completion", "gen_ai.provider.name": "openai",
		"error.type": "timeout", "llmmetrics.outcome": "failed"}, attrMap(s.Attributes))
	assert.Equal(t, codes.Error, s.Status.Code)
	assert.Equal(t, "deadline exceeded", s.Status.Description)
	require.Len(t, s.Events, 1)
	assert.Equal(t, epoch.Add(3*time.Second), s.Events[0].Time)
}

// A finished Result becomes the span a Tracer gives the same call, with
// the call's own times.
func TestSpanSinkResultMatchesTracer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(upstream))
	defer srv.Close()
	for _, body := range []string{`{"model":"ok","stream":true,"max_tokens":64}`, `{"model":"failed"}`, `{"model":"usageless","stream":true}`} {
		tp, exp := traceProvider()
		res, _ := call(t, tp, srv, context.Background(), body, false)
		NewSpanSink(tp, SpanOptions{}).Result(context.Background(), res)
		spans := exp.GetSpans()
		require.Len(t, spans, 2)
		assert.Equal(t, spans[0].Name, spans[1].Name)
		assert.ElementsMatch(t, spans[0].Attributes, spans[1].Attributes, body)
		assert.Equal(t, spans[0].Status, spans[1].Status)
		assert.Equal(t, res.Started, spans[1].StartTime)
		assert.Equal(t, res.Started.Add(res.Record.Client.Wait+res.Duration), spans[1].EndTime)
	}
}

// Many calls at once each get their span.
func TestTracerConcurrent(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(upstream))
	defer srv.Close()
	tp, exp := traceProvider()
	client := &http.Client{Transport: &observe.Transport{Tracer: NewTracer(tp, TraceOptions{})}}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"ok","stream":true}`))
			if err == nil {
				io.ReadAll(resp.Body)
				resp.Body.Close()
			}
		}()
	}
	wg.Wait()
	assert.Len(t, exp.GetSpans(), 8)
}

// The meter live.Meter gives and the ChunkProducer's own scope declare
// the conventions' schema URL, as the tracer does.
func TestMeterSchemaURL(t *testing.T) {
	chunks := new(ChunkProducer)
	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(chunks))
	sink, err := NewOTelSink(Meter(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))), OTelOptions{Chunks: chunks})
	require.NoError(t, err)
	r := okRecord()
	sink.Observe(context.Background(), Key{Operation: "chat"}, observationOf(r, nil, extra{}))
	var rm metricdata.ResourceMetrics
	require.NoError(t, reader.Collect(context.Background(), &rm))
	require.Len(t, rm.ScopeMetrics, 2, "the meter's and the producer's")
	for _, sm := range rm.ScopeMetrics {
		assert.Equal(t, ScopeName, sm.Scope.Name)
		assert.Equal(t, "https://opentelemetry.io/schemas/1.41.0", sm.Scope.SchemaURL)
	}
}

// The propagator's fields go under their canonical names.
func TestHeaderCarrier(t *testing.T) {
	h := http.Header{}
	c := headerCarrier(h)
	c.Set("traceparent", "a")
	c.Set("tracestate", "b")
	c.Set("baggage", "c")
	c.Set("x-b3-traceid", "d")
	assert.Equal(t, http.Header{"Traceparent": {"a"}, "Tracestate": {"b"}, "Baggage": {"c"}, "X-B3-Traceid": {"d"}}, h)
	assert.Equal(t, "a", c.Get("traceparent"))
	assert.ElementsMatch(t, []string{"Traceparent", "Tracestate", "Baggage", "X-B3-Traceid"}, c.Keys())
}

// The span's budget of allocations a call, with a synchronous no-op
// exporter: at most 15 sampled (the SDK's span, its context, attribute
// copies and snapshot, the traceparent, the end function) and 7 unsampled,
// the Transport's copy of the headers apart (BenchmarkSpan has the same).
func TestTracerAllocs(t *testing.T) {
	if raceEnabled || testing.Short() {
		t.Skip("allocations are counted without the race detector, not in -short")
	}
	for _, c := range []struct {
		sampler sdktrace.Sampler
		budget  float64
	}{{sdktrace.AlwaysSample(), 15}, {sdktrace.NeverSample(), 7}} {
		tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(c.sampler), sdktrace.WithSyncer(tracetest.NewNoopExporter()))
		tr := NewTracer(tp, TraceOptions{})
		r := benchResult(16)
		h := make(http.Header, 2)
		got := testing.AllocsPerRun(200, func() {
			_, end := tr.Start(context.Background(), h, r)
			end(r)
		})
		assert.LessOrEqual(t, got, c.budget, c.sampler.Description())
	}
}

// A span's outcome, error type, count state and largest gap are the
// Recorder's, for every kind of record.
func TestSpanOutcomeMatchesObservation(t *testing.T) {
	for _, r := range []*llmmetrics.Record{
		okRecord(),
		{ID: "nu", Chunks: []time.Duration{ms, 3 * ms}, NoUsage: true},
		{ID: "zu", Chunks: []time.Duration{ms, 3 * ms}},
		{ID: "bc", Chunks: []time.Duration{ms, 3 * ms, 4 * ms}, CompletionTokens: 2},
		{ID: "f", Status: llmmetrics.StatusError, Message: "HTTP 500"},
		{ID: "t", Status: llmmetrics.StatusTimeout},
		{ID: "z", CompletionTokens: 0},
		{ID: "w", Warmup: true, Chunks: []time.Duration{ms}},
		{ID: "bad", Chunks: []time.Duration{3 * ms, ms}, CompletionTokens: 2},
		{ID: "one", Chunks: []time.Duration{ms}, CompletionTokens: 1},
	} {
		for _, x := range []extra{{}, {errorType: "503"}} {
			want := observationOf(r, nil, x)
			got := spanOutcome(r, x)
			assert.Equal(t, want.Outcome, got.Outcome, r.ID)
			assert.Equal(t, want.ErrorType, got.ErrorType, r.ID)
			assert.Equal(t, want.Count, got.Count, r.ID)
			assert.Equal(t, want.HasMaxGap, got.HasMaxGap, r.ID)
			assert.Equal(t, want.MaxGap, got.MaxGap, r.ID)
		}
	}
}
