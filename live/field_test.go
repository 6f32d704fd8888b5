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
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	dto "github.com/prometheus/client_model/go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	"go.opentelemetry.io/otel/trace"
)

// exporters is a recorder with both Prometheus exports (a Collector on
// one registry, a sink on another) and an OTel sink.
type exporters struct {
	rec             *Recorder
	colReg, sinkReg *prometheus.Registry
	reader          *sdkmetric.ManualReader
}

func newExporters(t *testing.T, opt Options) *exporters {
	e := &exporters{colReg: prometheus.NewRegistry(), sinkReg: prometheus.NewRegistry(), reader: sdkmetric.NewManualReader()}
	ps, err := NewPrometheusSink(e.sinkReg, PrometheusOptions{})
	require.NoError(t, err)
	os, err := NewOTelSink(sdkmetric.NewMeterProvider(sdkmetric.WithReader(e.reader)).Meter("t"), OTelOptions{})
	require.NoError(t, err)
	opt.Sinks = append(opt.Sinks, ps, os)
	e.rec, err = NewRecorder(opt)
	require.NoError(t, err)
	require.NoError(t, e.colReg.Register(NewCollector(e.rec)))
	return e
}

// scrape serves a registry's /metrics and returns its status and body.
func scrape(t *testing.T, reg *prometheus.Registry) (int, string) {
	srv := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer srv.Close()
	resp, err := http.Get(srv.URL)
	require.NoError(t, err)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func (e *exporters) otel(t *testing.T) map[string]metricdata.Metrics {
	var rm metricdata.ResourceMetrics
	require.NoError(t, e.reader.Collect(context.Background(), &rm))
	got := map[string]metricdata.Metrics{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			got[m.Name] = m
		}
	}
	return got
}

func okRecord() *llmmetrics.Record {
	return &llmmetrics.Record{ID: "a", Chunks: []time.Duration{100 * ms, 130 * ms, 190 * ms}, CompletionTokens: 3, PromptTokens: 20}
}

// Whatever a client sends as its model — invalid UTF-8, a megabyte of
// text — nothing panics and every /metrics answers 200 with valid label
// values of at most MaxLabelLength bytes.
func TestHostileLabelValues(t *testing.T) {
	e := newExporters(t, Options{})
	for _, model := range []string{"\xff\xfe bad", strings.Repeat("é", 1<<19), "ok\x00nul", "\xc3"} {
		e.rec.Record(Key{Operation: "chat", Model: model, Endpoint: "\x80host"}, okRecord())
		e.rec.Record(Key{Operation: "chat", Model: model}, &llmmetrics.Record{ID: "f", Status: llmmetrics.StatusError})
	}
	for _, reg := range []*prometheus.Registry{e.colReg, e.sinkReg} {
		code, body := scrape(t, reg)
		assert.Equal(t, http.StatusOK, code)
		assert.True(t, strings.Contains(body, "gen_ai_request_model=\"\ufffd bad\""), "an invalid byte run becomes U+FFFD")
		assert.True(t, strings.Contains(body, "gen_ai_request_model=\""+strings.Repeat("é", MaxLabelLength/2)+"\""), "a long value is cut")
		for _, line := range strings.Split(body, "\n") {
			if len(line) > 8*MaxLabelLength+400 {
				t.Fatalf("a line of %d bytes: label values are not capped", len(line))
			}
		}
	}
	for _, m := range e.otel(t) {
		if h, ok := m.Data.(metricdata.Histogram[float64]); ok {
			for _, dp := range h.DataPoints {
				v, _ := dp.Attributes.Value(attrRequestModel)
				assert.LessOrEqual(t, len(v.AsString()), MaxLabelLength)
			}
		}
	}
}

// cleanLabel makes valid UTF-8, cuts at a character boundary, and returns
// a value already valid without copying it.
func TestCleanLabel(t *testing.T) {
	assert.Equal(t, "a\ufffdb", cleanLabel("a\xffb"))
	long := strings.Repeat("é", 100) // 200 bytes
	got := cleanLabel(long)
	assert.Equal(t, strings.Repeat("é", MaxLabelLength/2), got)
	assert.Equal(t, "chat", cleanLabel("chat"))
	allocs := testing.AllocsPerRun(100, func() { cleanLabel("gpt-4o-mini") })
	assert.Zero(t, allocs)
}

// 1,000 distinct models: the label sets stay within the limit, the rest
// go to the Other label set, counted; removing a label set makes room.
func TestLabelSetLimit(t *testing.T) {
	e := newExporters(t, Options{MaxLabelSets: 10})
	for i := range 1000 {
		e.rec.Record(Key{Operation: "chat", Model: fmt.Sprint("m", i)}, okRecord())
	}
	snaps := e.rec.Snapshots(false)
	assert.Len(t, snaps, 11, "10 label sets and Other")
	assert.Equal(t, int64(990), e.rec.Overflowed())
	var other Snapshot
	for _, s := range snaps {
		if s.Key == otherKey {
			other = s
		}
	}
	assert.Equal(t, int64(990), other.Counts.OK)
	for _, reg := range []*prometheus.Registry{e.colReg, e.sinkReg} {
		_, body := scrape(t, reg)
		assert.Contains(t, body, "llmmetrics_label_set_overflow_total 990")
		assert.Equal(t, 11, strings.Count(body, "llmmetrics_output_tokens_total{"), "series of 11 label sets")
	}
	assert.True(t, e.rec.Remove(Key{Operation: "chat", Model: "m3"}))
	e.rec.Record(Key{Operation: "chat", Model: "new"}, okRecord())
	assert.Equal(t, int64(990), e.rec.Overflowed(), "the removed label set's room was taken")
	_, body := scrape(t, e.sinkReg)
	assert.NotContains(t, body, `gen_ai_request_model="m3"`)
	assert.Contains(t, body, `gen_ai_request_model="new"`)

	_, err := NewRecorder(Options{MaxLabelSets: -1})
	require.NoError(t, err, "no limit")
}

// upstreamOf serves one fixed reply.
func upstreamOf(status int, body string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		if status != http.StatusOK {
			w.Header().Set("Content-Type", "application/json")
		}
		w.WriteHeader(status)
		io.WriteString(w, body)
	}))
}

// Failures are in the duration histogram with their error.type: the HTTP
// status code, or the server's type for an error inside a stream; the
// request, response and server attributes come from the Transport.
func TestErrorTypeAndAttributes(t *testing.T) {
	e := newExporters(t, Options{})
	client := &http.Client{Transport: e.rec.Transport(nil)}
	cases := []struct {
		status int
		body   string
	}{
		{http.StatusTooManyRequests, `{"error":{"message":"slow down","type":"rate_limit"}}`},
		{http.StatusInternalServerError, `{"error":{"message":"boom"}}`},
		{http.StatusOK, "data: {\"model\":\"served\",\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\nerror: {\"code\":500,\"message\":\"context full\",\"type\":\"server_error\"}\n\ndata: [DONE]\n\n"},
		{http.StatusOK, "data: {\"model\":\"served\",\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"model\":\"served\",\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n"},
	}
	var ports []string
	for _, c := range cases {
		srv := upstreamOf(c.status, c.body)
		resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"asked","stream":true}`))
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		ports = append(ports, srv.URL[strings.LastIndex(srv.URL, ":")+1:])
		srv.Close()
	}
	assert.Zero(t, e.rec.InFlight())
	for _, reg := range []*prometheus.Registry{e.colReg, e.sinkReg} {
		_, body := scrape(t, reg)
		for i, want := range []string{`error_type="429"`, `error_type="500"`, `error_type="server_error"`} {
			line := fmt.Sprintf(`gen_ai_client_operation_duration_seconds_count{%s,gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="asked",gen_ai_response_model="%s",server_address="127.0.0.1",server_port="%s"} 1`,
				want, map[bool]string{true: "served"}[i == 2], ports[i])
			assert.Contains(t, body, line)
		}
		assert.Contains(t, body, fmt.Sprintf(`gen_ai_client_operation_duration_seconds_count{error_type="",gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="asked",gen_ai_response_model="served",server_address="127.0.0.1",server_port="%s"} 1`, ports[3]))
		assert.Contains(t, body, `llmmetrics_no_count_requests_total{gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="asked",gen_ai_response_model="served",llmmetrics_reason="no_usage",server_address="127.0.0.1",server_port="`+ports[3]+`"} 1`)
	}
	// The OTel duration carries error.type on failures only.
	types := map[string]uint64{}
	for _, dp := range e.otel(t)["gen_ai.client.operation.duration"].Data.(metricdata.Histogram[float64]).DataPoints {
		v, ok := dp.Attributes.Value(attrErrorType)
		if !ok {
			types["(none)"] += dp.Count
			continue
		}
		types[v.AsString()] += dp.Count
	}
	assert.Equal(t, map[string]uint64{"429": 1, "500": 1, "server_error": 1, "(none)": 1}, types)
}

// One attribute set: every OTel attribute, with dots as underscores, is
// the Prometheus label of the same metric.
func TestOneAttributeSet(t *testing.T) {
	e := newExporters(t, Options{})
	ctx := context.Background()
	k := Key{Operation: "chat", Provider: "openai", Model: "m", ResponseModel: "m", Endpoint: "h", Port: 80}
	e.rec.RecordContext(ctx, k, okRecord())
	failed := &observe.Result{Operation: k.Operation, Provider: k.Provider, RequestModel: k.Model, ResponseModel: k.ResponseModel,
		ServerAddress: k.Endpoint, ServerPort: k.Port, HTTPStatus: 503, Duration: 40 * ms}
	failed.Record.Status = llmmetrics.StatusError
	e.rec.RecordResult(ctx, failed)
	e.rec.RecordContext(ctx, k, &llmmetrics.Record{ID: "n", Chunks: []time.Duration{ms, 2 * ms}, NoUsage: true})
	mfs, err := e.sinkReg.Gather()
	require.NoError(t, err)
	prom := map[string]map[string]bool{}
	for _, mf := range mfs {
		names := map[string]bool{}
		for _, m := range mf.GetMetric() {
			for _, l := range m.GetLabel() {
				names[l.GetName()] = true
			}
		}
		prom[mf.GetName()] = names
	}
	pairs := map[string]string{
		"llmmetrics.requests": "llmmetrics_requests_total", "gen_ai.client.operation.duration": "gen_ai_client_operation_duration_seconds",
		"gen_ai.client.token.usage": "gen_ai_client_token_usage", "llmmetrics.gap_basis.requests": "llmmetrics_gap_basis_requests_total",
		"llmmetrics.no_count.requests": "llmmetrics_no_count_requests_total",
	}
	got := e.otel(t)
	for o, p := range pairs {
		names := map[string]bool{}
		switch d := got[o].Data.(type) {
		case metricdata.Sum[int64]:
			for _, dp := range d.DataPoints {
				for _, kv := range dp.Attributes.ToSlice() {
					names[promName(string(kv.Key))] = true
				}
			}
		case metricdata.Histogram[float64]:
			for _, dp := range d.DataPoints {
				for _, kv := range dp.Attributes.ToSlice() {
					names[promName(string(kv.Key))] = true
				}
			}
		case metricdata.Histogram[int64]:
			for _, dp := range d.DataPoints {
				for _, kv := range dp.Attributes.ToSlice() {
					names[promName(string(kv.Key))] = true
				}
			}
		default:
			t.Fatalf("%s: %T", o, d)
		}
		assert.Equal(t, prom[p], names, "%s and %s", o, p)
	}
}

// Per-recorder buckets: each recorder keeps its own copy; invalid ones
// are refused.
func TestPerRecorderBuckets(t *testing.T) {
	mine := []float64{0.05, 0.1, 0.2}
	a, err := NewRecorder(Options{Buckets: Buckets{Duration: mine}})
	require.NoError(t, err)
	b, err := NewRecorder(Options{})
	require.NoError(t, err)
	mine[0] = 7 // the caller's slice changes; the recorder's does not
	a.Record(chat, okRecord())
	b.Record(chat, okRecord())
	assert.Equal(t, []float64{0.05, 0.1, 0.2}, a.Snapshots(false)[0].bounds[histTTFC])
	assert.Equal(t, DefaultBuckets().Duration, b.Snapshots(false)[0].bounds[histTTFC])
	for _, bad := range [][]float64{{}, {0.2, 0.1}, {0.1, 0.1}} {
		_, err := NewRecorder(Options{Buckets: Buckets{TPOT: bad}})
		assert.Error(t, err, "%v", bad)
	}
	reg := prometheus.NewRegistry()
	require.NoError(t, reg.Register(NewCollector(a)))
	_, body := scrape(t, reg)
	assert.Contains(t, body, `gen_ai_client_operation_time_to_first_chunk_seconds_bucket{gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="m",gen_ai_response_model="",server_address="127.0.0.1:8000",server_port="",le="0.1"} 1`)
}

// Declared models have their series at zero before any request.
func TestDeclare(t *testing.T) {
	e := newExporters(t, Options{})
	e.rec.Declare(Key{Operation: "chat", Model: "tiny"})
	for _, reg := range []*prometheus.Registry{e.colReg, e.sinkReg} {
		_, body := scrape(t, reg)
		assert.Contains(t, body, `gen_ai_client_operation_time_to_first_chunk_seconds_count{gen_ai_operation_name="chat",gen_ai_provider_name="",gen_ai_request_model="tiny",gen_ai_response_model="",server_address="",server_port=""} 0`)
		assert.Contains(t, body, `llmmetrics_requests_total{error_type="timeout",gen_ai_operation_name="chat",gen_ai_provider_name="",gen_ai_request_model="tiny",gen_ai_response_model="",llmmetrics_outcome="failed",server_address="",server_port=""} 0`)
	}
	sum := e.otel(t)["llmmetrics.requests"].Data.(metricdata.Sum[int64])
	assert.Len(t, sum.DataPoints, 5, "the OTel request counters at zero")
}

// The in-flight gauge counts a call from its start to its end; the
// upstream holds the stream until the test has looked.
func TestInFlight(t *testing.T) {
	e := newExporters(t, Options{})
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
		w.(http.Flusher).Flush()
		<-release
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	defer srv.Close()
	client := &http.Client{Transport: e.rec.Transport(nil)}
	resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
	require.NoError(t, err)
	assert.Equal(t, int64(1), e.rec.InFlight())
	for _, reg := range []*prometheus.Registry{e.colReg, e.sinkReg} {
		_, body := scrape(t, reg)
		assert.Contains(t, body, "llmmetrics_requests_in_flight 1")
	}
	close(release)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Zero(t, e.rec.InFlight())
	_, body := scrape(t, e.sinkReg)
	assert.Contains(t, body, "llmmetrics_requests_in_flight 0")
}

// A context with a sampled span gives the Prometheus sink's duration and
// time-to-first-chunk observations the trace id as an exemplar.
func TestExemplar(t *testing.T) {
	reg := prometheus.NewRegistry()
	sink, err := NewPrometheusSink(reg, PrometheusOptions{})
	require.NoError(t, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}})
	require.NoError(t, err)
	tid := trace.TraceID{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16}
	sc := trace.NewSpanContext(trace.SpanContextConfig{TraceID: tid, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled})
	rec.RecordContext(trace.ContextWithSpanContext(context.Background(), sc), chat, okRecord())
	var found *dto.Exemplar
	for _, b := range metricFamily(t, reg, "gen_ai_client_operation_time_to_first_chunk_seconds").GetMetric()[0].GetHistogram().GetBucket() {
		if b.GetExemplar() != nil {
			found = b.GetExemplar()
		}
	}
	require.NotNil(t, found)
	assert.Equal(t, tid.String(), found.GetLabel()[0].GetValue())
}

// A request without usage: outcome no_count, in TTFT and duration, not in
// the output token usage or TPOT; a non-streaming reply is not in TTFT.
func TestNoCountAndUnary(t *testing.T) {
	e := newExporters(t, Options{})
	client := &http.Client{Transport: e.rec.Transport(nil)}
	for _, body := range []string{
		"data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"stop\"}]}\n\ndata: [DONE]\n\n",
		`{"choices":[{"message":{"content":"hi"},"finish_reason":"stop"}],"usage":{"prompt_tokens":3,"completion_tokens":1}}`,
	} {
		srv := upstreamOf(http.StatusOK, body)
		resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m"}`))
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		srv.Close()
	}
	var c Counts
	for _, s := range e.rec.Snapshots(false) {
		c.merge(s.Counts)
	}
	assert.Equal(t, int64(2), c.OK)
	assert.Equal(t, int64(1), c.NoUsage)
	for _, reg := range []*prometheus.Registry{e.colReg, e.sinkReg} {
		mfs, err := reg.Gather()
		require.NoError(t, err)
		count := func(name string, match func(*dto.Metric) bool) uint64 {
			var n uint64
			for _, mf := range mfs {
				if mf.GetName() != name {
					continue
				}
				for _, m := range mf.GetMetric() {
					if match == nil || match(m) {
						if h := m.GetHistogram(); h != nil {
							n += h.GetSampleCount()
						} else {
							n += uint64(m.GetCounter().GetValue())
						}
					}
				}
			}
			return n
		}
		label := func(name, value string) func(*dto.Metric) bool {
			return func(m *dto.Metric) bool {
				for _, l := range m.GetLabel() {
					if l.GetName() == name {
						return l.GetValue() == value
					}
				}
				return false
			}
		}
		assert.Equal(t, uint64(1), count("gen_ai_client_operation_time_to_first_chunk_seconds", nil), "the stream, not the JSON reply")
		assert.Equal(t, uint64(2), count("gen_ai_client_operation_duration_seconds", nil))
		assert.Equal(t, uint64(1), count("gen_ai_client_token_usage", label("gen_ai_token_type", "output")), "the counted reply only")
		assert.Equal(t, uint64(1), count("llmmetrics_requests_total", label("llmmetrics_outcome", "no_count")))
		assert.Equal(t, uint64(1), count("llmmetrics_requests_total", label("llmmetrics_outcome", "ok")))
		assert.Equal(t, uint64(0), count("llmmetrics_time_per_output_token_seconds", nil))
	}
}

// Recording from many goroutines into label sets being created and
// removed: no race, no panic, and the counts add up.
func TestConcurrentLimitAndRemove(t *testing.T) {
	rec, err := NewRecorder(Options{MaxLabelSets: 5})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 200 {
				k := Key{Model: fmt.Sprint(i % 9)}
				rec.Record(k, okRecord())
				if g == 0 && i%50 == 0 {
					rec.Remove(k)
				}
			}
		}()
	}
	wg.Wait()
	assert.LessOrEqual(t, len(rec.Snapshots(false)), 6)
}

// FuzzLabelValues: whatever bytes a client sends as its model, the label
// value is valid UTF-8 of at most MaxLabelLength bytes, recording does not
// panic, and the registry gathers without error.
func FuzzLabelValues(f *testing.F) {
	f.Add("gpt-4o", "\xff\xfe")
	f.Add(strings.Repeat("é", 200), "a\x00b")
	reg := prometheus.NewRegistry()
	sink, err := NewPrometheusSink(reg, PrometheusOptions{})
	require.NoError(f, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}, MaxLabelSets: 50})
	require.NoError(f, err)
	f.Fuzz(func(t *testing.T, model, address string) {
		v := cleanLabel(model)
		if !utf8.ValidString(v) || len(v) > MaxLabelLength {
			t.Fatalf("%q → %q", model, v)
		}
		rec.Record(Key{Operation: "chat", Model: model, Endpoint: address}, okRecord())
		if _, err := reg.Gather(); err != nil {
			t.Fatal(err)
		}
	})
}

// With NativeHistograms the Collector exports the native buckets a
// PrometheusSink with NativeFactor 1.1 has, for the same records: same
// schema, zero count and bucket counts, beside the same classic buckets.
func TestCollectorNativeHistograms(t *testing.T) {
	sinkReg, colReg := prometheus.NewRegistry(), prometheus.NewRegistry()
	sink, err := NewPrometheusSink(sinkReg, PrometheusOptions{NativeFactor: 1.1})
	require.NoError(t, err)
	rec, err := NewRecorder(Options{Sinks: []Sink{sink}, NativeHistograms: true})
	require.NoError(t, err)
	require.NoError(t, colReg.Register(NewCollector(rec)))
	recs := mixed(300)
	for i := range recs {
		rec.Record(chat, &recs[i])
	}
	expand := func(h *dto.Histogram) map[int]int64 {
		out := map[int]int64{}
		k, d := 0, 0
		var c int64
		for _, s := range h.GetPositiveSpan() {
			k += int(s.GetOffset())
			for range s.GetLength() {
				c += h.GetPositiveDelta()[d]
				if c != 0 { // the client joins spans across short runs of empty buckets
					out[k] = c
				}
				k++
				d++
			}
		}
		return out
	}
	a, err := sinkReg.Gather()
	require.NoError(t, err)
	b, err := colReg.Gather()
	require.NoError(t, err)
	compared := 0
	for i := range a {
		for k, m := range a[i].GetMetric() {
			h := m.GetHistogram()
			if h == nil || label(m, "error_type") != "" {
				continue // failures' durations are classic in the Collector
			}
			g := b[i].GetMetric()[k].GetHistogram()
			require.Equal(t, a[i].GetName(), b[i].GetName())
			assert.Equal(t, h.GetSchema(), g.GetSchema(), a[i].GetName())
			assert.Equal(t, h.GetZeroCount(), g.GetZeroCount(), a[i].GetName())
			assert.Equal(t, expand(h), expand(g), a[i].GetName())
			assert.Equal(t, len(h.GetBucket()), len(g.GetBucket()), a[i].GetName())
			assert.Equal(t, h.GetSampleCount(), g.GetSampleCount(), a[i].GetName())
			compared++
		}
	}
	assert.Greater(t, compared, 5)
	// Recording stays free of allocation.
	r := okRecord()
	rec.Record(chat, r)
	assert.Zero(t, testing.AllocsPerRun(100, func() { rec.Record(chat, r) }))
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}
