package live_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/live"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

const ms = time.Millisecond

var key = live.Key{Operation: "chat", Provider: "openai", Model: "m", Endpoint: "127.0.0.1:8000"}

// request is an ok request: first text at ttft, then one token every 20 ms.
func request(id string, ttft time.Duration, tokens int) *llmmetrics.Record {
	r := &llmmetrics.Record{ID: id, CompletionTokens: tokens, PromptTokens: 50}
	for k := range tokens {
		r.Chunks = append(r.Chunks, ttft+time.Duration(k)*20*ms)
	}
	return r
}

// Example shows a Go gateway measuring its own traffic: its HTTP client
// goes through the Recorder's observe.Transport, which labels each call
// from what it saw (operation, provider, request and response models,
// server address and port) and records it; the Prometheus sink serves
// /metrics under the GenAI names.
func Example() {
	// A local streaming server standing in for the model server.
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range []string{`{"model":"tiny-q4","choices":[{"delta":{"content":"Hel"}}]}`,
			`{"model":"tiny-q4","choices":[{"delta":{"content":"lo"},"finish_reason":"stop"}]}`,
			`{"model":"tiny-q4","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2}}`, `[DONE]`} {
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
	}))
	defer upstream.Close()

	// The gateway's few lines: a registry, a sink, a recorder, a client.
	reg := prometheus.NewRegistry()
	sink, _ := live.NewPrometheusSink(reg, live.PrometheusOptions{})
	slo := llmmetrics.SLO{TTFT: time.Second}
	rec, _ := live.NewRecorder(live.Options{SLO: &slo, Sinks: []live.Sink{sink}})
	// nil: http.DefaultTransport. Against llama.cpp's server, which closes
	// every connection after its streamed response, give one with
	// DisableKeepAlives (see examples/gateway).
	client := &http.Client{Transport: rec.Transport(nil)}
	for range 3 {
		resp, _ := client.Post(upstream.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"tiny","stream":true}`))
		io.Copy(io.Discard, resp.Body) // the gateway's own use of the stream
		resp.Body.Close()              // the call is recorded by now
	}

	// What Prometheus scrapes (the port, which varies, elided).
	metrics := httptest.NewServer(promhttp.HandlerFor(reg, promhttp.HandlerOpts{}))
	defer metrics.Close()
	resp, _ := http.Get(metrics.URL)
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	port := regexp.MustCompile(`server_port="[0-9]+"`)
	for _, line := range strings.Split(string(body), "\n") {
		if strings.HasPrefix(line, "gen_ai_client_operation_time_to_first_chunk_seconds_count") ||
			strings.HasPrefix(line, "llmmetrics_goodput_good") || strings.HasPrefix(line, "llmmetrics_output_tokens_total") {
			fmt.Println(port.ReplaceAllString(line, `server_port="…"`))
		}
	}
	// Output:
	// gen_ai_client_operation_time_to_first_chunk_seconds_count{gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="tiny",gen_ai_response_model="tiny-q4",server_address="127.0.0.1",server_port="…"} 3
	// llmmetrics_goodput_good_total{gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="tiny",gen_ai_response_model="tiny-q4",server_address="127.0.0.1",server_port="…"} 3
	// llmmetrics_output_tokens_total{gen_ai_operation_name="chat",gen_ai_provider_name="openai",gen_ai_request_model="tiny",gen_ai_response_model="tiny-q4",server_address="127.0.0.1",server_port="…"} 6
}

func ExampleNewRecorder() {
	slo := llmmetrics.SLO{TTFT: 500 * ms}
	rec, err := live.NewRecorder(live.Options{SLO: &slo, Window: 5 * time.Minute, Slots: 10})
	fmt.Println(rec != nil, err)
	// Output: true <nil>
}

func ExampleRecorder_Record() {
	rec, _ := live.NewRecorder(live.Options{})
	rec.Record(key, request("a", 100*ms, 5))
	rec.Record(key, &llmmetrics.Record{ID: "b", Status: llmmetrics.StatusTimeout})
	c := rec.Snapshots(false)[0].Counts
	fmt.Println(c.Offered, c.OK, c.Timeouts, c.OutputTokens)
	// Output: 2 1 1 5
}

func ExampleRecorder_Snapshots() {
	now := time.Unix(0, 0)
	rec, _ := live.NewRecorder(live.Options{Window: time.Minute, Now: func() time.Time { return now }})
	rec.Record(key, request("a", 100*ms, 3))
	now = now.Add(2 * time.Minute)
	rec.Record(key, request("b", 200*ms, 3))
	fmt.Println(rec.Snapshots(false)[0].Counts.OK, rec.Snapshots(true)[0].Counts.OK)
	// Output: 2 1
}

func ExampleRecorder_Summary() {
	rec, _ := live.NewRecorder(live.Options{KeepRecords: true})
	rec.Record(key, request("a", 100*ms, 3))
	rec.Record(key, request("b", 300*ms, 3))
	s, _ := rec.Summary(key, llmmetrics.Options{})
	fmt.Println(s.TTFT.Mean, s.TPOT.Mean)
	// Output: 200ms 20ms
}

func ExampleCounts_Attainment() {
	slo := llmmetrics.SLO{TTFT: 150 * ms}
	rec, _ := live.NewRecorder(live.Options{SLO: &slo})
	rec.Record(key, request("a", 100*ms, 3))
	rec.Record(key, request("b", 300*ms, 3))
	fmt.Println(rec.Snapshots(false)[0].Counts.Attainment())
	// Output: 0.5 true
}

func ExampleDist_Count() {
	rec, _ := live.NewRecorder(live.Options{})
	rec.Record(key, request("a", 100*ms, 4))
	s := rec.Snapshots(false)[0]
	fmt.Println(s.TTFT.Count(), s.Gap.Count())
	// Output: 1 3
}

func ExampleDist_Quantile() {
	rec, _ := live.NewRecorder(live.Options{Accuracy: 0.01})
	for i := 1; i <= 100; i++ {
		rec.Record(key, request(fmt.Sprint(i), time.Duration(i)*ms, 2))
	}
	// The exact p99 is 99 ms; the sketch's is within 1 % of it.
	p99, _ := rec.Snapshots(false)[0].TTFT.Quantile(0.99)
	fmt.Println(p99 > 98*ms && p99 < 100*ms)
	// Output: true
}

func ExampleDist_Mean() {
	rec, _ := live.NewRecorder(live.Options{})
	rec.Record(key, request("a", 100*ms, 2))
	rec.Record(key, request("b", 201*ms, 2))
	m, _ := rec.Snapshots(false)[0].TTFT.Mean()
	fmt.Println(m)
	// Output: 150.5ms
}

func ExampleMerge() {
	a, _ := live.NewRecorder(live.Options{})
	b, _ := live.NewRecorder(live.Options{})
	a.Record(key, request("1", 100*ms, 2))
	b.Record(key, request("2", 300*ms, 2))
	fleet := live.Merge(a.Snapshots(false)[0], b.Snapshots(false)[0])
	m, _ := fleet.TTFT.Mean()
	fmt.Println(fleet.Counts.OK, m)
	// Output: 2 200ms
}

func ExampleNewPrometheusSink() {
	reg := prometheus.NewRegistry()
	_, err := live.NewPrometheusSink(reg, live.PrometheusOptions{NativeFactor: 1.1})
	fmt.Println(err)
	// Output: <nil>
}

func ExamplePrometheusSink_Prepare() {
	reg := prometheus.NewRegistry()
	sink, _ := live.NewPrometheusSink(reg, live.PrometheusOptions{})
	sink.Prepare(key)
	mfs, _ := reg.Gather()
	fmt.Println(len(mfs) > 0)
	// Output: true
}

func ExamplePrometheusSink_Observe() {
	reg := prometheus.NewRegistry()
	sink, _ := live.NewPrometheusSink(reg, live.PrometheusOptions{})
	sink.Observe(context.Background(), key, live.Observation{Outcome: live.OutcomeOK, HasTTFT: true, TTFT: 100 * ms, E2E: 300 * ms, OutputTokens: 10})
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "gen_ai_client_operation_duration_seconds" {
			fmt.Println(mf.GetMetric()[0].GetHistogram().GetSampleSum())
		}
	}
	// Output: 0.3
}

func ExampleNewOTelSink() {
	provider := sdkmetric.NewMeterProvider()
	_, err := live.NewOTelSink(live.Meter(provider), live.OTelOptions{})
	fmt.Println(err)
	// Output: <nil>
}

func ExampleOTelSink_Observe() {
	reader := sdkmetric.NewManualReader()
	sink, _ := live.NewOTelSink(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("gateway"), live.OTelOptions{})
	sink.Observe(context.Background(), key, live.Observation{Outcome: live.OutcomeOK, HasTTFT: true, TTFT: 100 * ms, E2E: 300 * ms, OutputTokens: 10})
	var rm metricdata.ResourceMetrics
	reader.Collect(context.Background(), &rm)
	for _, m := range rm.ScopeMetrics[0].Metrics {
		if m.Name == "gen_ai.client.operation.time_to_first_chunk" {
			fmt.Println(m.Unit, m.Data.(metricdata.Histogram[float64]).DataPoints[0].Sum)
		}
	}
	// Output: s 0.1
}

func ExampleNewCollector() {
	rec, _ := live.NewRecorder(live.Options{})
	reg := prometheus.NewRegistry()
	fmt.Println(reg.Register(live.NewCollector(rec)))
	// Output: <nil>
}

func ExampleCollector_Collect() {
	rec, _ := live.NewRecorder(live.Options{})
	reg := prometheus.NewRegistry()
	reg.MustRegister(live.NewCollector(rec))
	rec.Record(key, request("a", 100*ms, 3))
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "gen_ai_client_operation_time_to_first_chunk_seconds" {
			h := mf.GetMetric()[0].GetHistogram()
			fmt.Println(h.GetSampleCount(), h.GetSampleSum())
		}
	}
	// Output: 1 0.1
}

func ExampleCollector_Describe() {
	rec, _ := live.NewRecorder(live.Options{})
	ch := make(chan *prometheus.Desc, 32)
	live.NewCollector(rec).Describe(ch)
	close(ch)
	n := 0
	for range ch {
		n++
	}
	fmt.Println(n, "metrics")
	// Output: 15 metrics
}

func ExampleKeyOf() {
	r := &observe.Result{Operation: "chat", Provider: "openai", RequestModel: "tiny", ResponseModel: "tiny-q4",
		ServerAddress: "10.0.0.7", ServerPort: 8080}
	fmt.Printf("%+v\n", live.KeyOf(r))
	// Output: {Operation:chat Provider:openai Model:tiny ResponseModel:tiny-q4 Endpoint:10.0.0.7 Port:8080}
}

func ExampleErrorTypeOf() {
	limited := &observe.Result{HTTPStatus: 429}
	limited.Record.Status = llmmetrics.StatusError
	inStream := &observe.Result{HTTPStatus: 200, ErrorType: "server_error"}
	inStream.Record.Status = llmmetrics.StatusError
	late := &observe.Result{}
	late.Record.Status = llmmetrics.StatusTimeout
	unknown := &observe.Result{HTTPStatus: 200}
	unknown.Record.Status = llmmetrics.StatusError
	fmt.Println(live.ErrorTypeOf(limited), live.ErrorTypeOf(inStream), live.ErrorTypeOf(late), live.ErrorTypeOf(unknown))
	// Output: 429 server_error timeout _OTHER
}

func ExampleDefaultBuckets() {
	b := live.DefaultBuckets()
	b.Duration[0] = 99 // a copy: no recorder sees it
	fmt.Println(live.DefaultBuckets().Duration[:3], len(b.Tokens), b.Tokens[13])
	// Output: [0.01 0.02 0.04] 14 6.7108864e+07
}

func ExampleMetricNames() {
	fmt.Println(slices.Contains(live.MetricNames(), "gen_ai_client_operation_duration_seconds"), len(live.MetricNames()))
	// Output: true 15
}

func ExampleOTelSink_Prepare() {
	sink, _ := live.NewOTelSink(sdkmetric.NewMeterProvider().Meter("gateway"), live.OTelOptions{})
	sink.Prepare(key) // the request counters exist at zero
	fmt.Println("prepared")
	// Output: prepared
}

func ExampleOTelSink_Forget() {
	sink, _ := live.NewOTelSink(sdkmetric.NewMeterProvider().Meter("gateway"), live.OTelOptions{})
	sink.Observe(context.Background(), key, live.Observation{Outcome: live.OutcomeZeroToken})
	sink.Forget(key)
	fmt.Println("forgotten")
	// Output: forgotten
}

func ExampleOTelSink_AddInFlight() {
	sink, _ := live.NewOTelSink(sdkmetric.NewMeterProvider().Meter("gateway"), live.OTelOptions{})
	sink.AddInFlight(context.Background(), 1)
	sink.AddInFlight(context.Background(), -1)
	fmt.Println("balanced")
	// Output: balanced
}

func ExamplePrometheusSink_Forget() {
	reg := prometheus.NewRegistry()
	sink, _ := live.NewPrometheusSink(reg, live.PrometheusOptions{})
	sink.Prepare(key)
	sink.Forget(key)
	mfs, _ := reg.Gather()
	n := 0
	for _, mf := range mfs {
		n += len(mf.GetMetric())
	}
	fmt.Println(n, "series: the overflow counter and the in-flight gauge")
	// Output: 2 series: the overflow counter and the in-flight gauge
}

func ExamplePrometheusSink_AddInFlight() {
	reg := prometheus.NewRegistry()
	sink, _ := live.NewPrometheusSink(reg, live.PrometheusOptions{})
	sink.AddInFlight(context.Background(), 2)
	mfs, _ := reg.Gather()
	for _, mf := range mfs {
		if mf.GetName() == "llmmetrics_requests_in_flight" {
			fmt.Println(mf.GetMetric()[0].GetGauge().GetValue())
		}
	}
	// Output: 2
}

func ExampleRecorder_RecordContext() {
	rec, _ := live.NewRecorder(live.Options{})
	rec.RecordContext(context.Background(), key, request("a", 100*ms, 5))
	fmt.Println(rec.Snapshots(false)[0].Counts.OK)
	// Output: 1
}

func ExampleRecorder_RecordResult() {
	rec, _ := live.NewRecorder(live.Options{})
	r := &observe.Result{Operation: "chat", Provider: "openai", RequestModel: "m", HTTPStatus: 503}
	r.Record.Status, r.Record.Message = llmmetrics.StatusError, "HTTP 503: overloaded"
	rec.RecordResult(context.Background(), r)
	s := rec.Snapshots(false)[0]
	fmt.Println(s.Key.Model, s.Counts.Failed, s.Counts.Errors)
	// Output: m 1 1
}

func ExampleRecorder_Transport() {
	rec, _ := live.NewRecorder(live.Options{})
	t := rec.Transport(nil) // for an http.Client, or a ReverseProxy
	fmt.Println(t.OnStart != nil, t.OnResultContext != nil)
	// Output: true true
}

func ExampleRecorder_InFlight() {
	rec, _ := live.NewRecorder(live.Options{})
	fmt.Println(rec.InFlight())
	// Output: 0
}

func ExampleRecorder_Overflowed() {
	rec, _ := live.NewRecorder(live.Options{MaxLabelSets: 2})
	for _, m := range []string{"a", "b", "c", "d"} {
		rec.Record(live.Key{Model: m}, request("r", 100*ms, 2))
	}
	var models []string
	for _, s := range rec.Snapshots(false) {
		models = append(models, s.Key.Model)
	}
	fmt.Println(rec.Overflowed(), models)
	// Output: 2 [a b _OTHER]
}

func ExampleRecorder_Declare() {
	rec, _ := live.NewRecorder(live.Options{})
	// Model m's calls to http://10.0.0.5:8080/v1/chat/completions through
	// rec.Transport: failures have no response model, successes the one
	// the server answers (m itself, for llama.cpp's server and vLLM).
	failed := live.Key{Operation: "chat", Provider: "openai", Model: "m", Endpoint: "10.0.0.5", Port: 8080}
	ok := failed
	ok.ResponseModel = "m"
	rec.Declare(failed, ok)

	// The result of such a call, as the Transport describes it.
	r := &observe.Result{Operation: "chat", Provider: "openai", RequestModel: "m", ResponseModel: "m",
		ServerAddress: "10.0.0.5", ServerPort: 8080}
	fmt.Println(live.KeyOf(r) == ok)
	for _, s := range rec.Snapshots(false) {
		fmt.Printf("%q %d\n", s.Key.ResponseModel, s.Counts.Offered)
	}
	// Output:
	// true
	// "" 0
	// "m" 0
}

func ExampleRecorder_Remove() {
	rec, _ := live.NewRecorder(live.Options{})
	rec.Record(key, request("a", 100*ms, 2))
	fmt.Println(rec.Remove(key), len(rec.Snapshots(false)), rec.Remove(key))
	// Output: true 0 false
}

func ExampleChunkProducer_Produce() {
	// The producer is registered on the reader before the sink exists.
	chunks := new(live.ChunkProducer)
	reader := sdkmetric.NewManualReader(sdkmetric.WithProducer(chunks))
	meter := sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("gateway")
	sink, _ := live.NewOTelSink(meter, live.OTelOptions{Chunks: chunks})
	rec, _ := live.NewRecorder(live.Options{Sinks: []live.Sink{sink}})
	rec.Record(key, request("a", 100*ms, 3)) // chunks 20 ms apart

	var rm metricdata.ResourceMetrics
	reader.Collect(context.Background(), &rm) // calls Produce
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name == "gen_ai.client.operation.time_per_output_chunk" {
				p := m.Data.(metricdata.Histogram[float64]).DataPoints[0]
				fmt.Println(sm.Scope.Name, p.Count, p.BucketCounts[:3])
			}
		}
	}
	// Output: github.com/llmmetrics/llmmetrics/live 2 [0 2 0]
}

func ExampleMeter() {
	reader := sdkmetric.NewManualReader()
	// The meter declares live's scope and the conventions' schema URL.
	sink, _ := live.NewOTelSink(live.Meter(sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader))), live.OTelOptions{})
	sink.Observe(context.Background(), key, live.Observation{Outcome: live.OutcomeOK, E2E: 300 * ms})
	var rm metricdata.ResourceMetrics
	reader.Collect(context.Background(), &rm)
	fmt.Println(rm.ScopeMetrics[0].Scope.Name, rm.ScopeMetrics[0].Scope.SchemaURL)
	// Output: github.com/llmmetrics/llmmetrics/live https://opentelemetry.io/schemas/1.41.0
}

// ExampleNewTracer traces a service's calls: one span a call, of the
// GenAI conventions, and its traceparent on the request sent.
func ExampleNewTracer() {
	upstream := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Println("the server joins the trace:", len(r.Header.Get("Traceparent")) == 55)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"id\":\"chatcmpl-1\",\"model\":\"m\",\"choices\":[{\"delta\":{\"content\":\"Hi\"},\"finish_reason\":\"stop\"}]}\n\n",
			"data: {\"choices\":[],\"usage\":{\"prompt_tokens\":5,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
	}))
	defer upstream.Close()

	exporter := tracetest.NewInMemoryExporter() // otlptracegrpc.New(ctx), in a service
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter))
	client := &http.Client{Transport: &observe.Transport{Tracer: live.NewTracer(tp, live.TraceOptions{})}}
	resp, _ := client.Post(upstream.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	s := exporter.GetSpans()[0]
	fmt.Println(s.Name, s.SpanKind)
	for _, kv := range s.Attributes {
		if strings.HasPrefix(string(kv.Key), "gen_ai.usage") || kv.Key == "gen_ai.response.id" {
			fmt.Println(kv.Key, kv.Value.Emit())
		}
	}
	// Output:
	// the server joins the trace: true
	// chat m client
	// gen_ai.response.id chatcmpl-1
	// gen_ai.usage.input_tokens 5
	// gen_ai.usage.output_tokens 1
}

// ExampleTracer_Start wires a Tracer under a Recorder's Transport: the
// call's metrics are recorded with the span's context, so that their
// exemplars name it.
func ExampleTracer_Start() {
	tp := sdktrace.NewTracerProvider()
	rec, _ := live.NewRecorder(live.Options{})
	t := rec.Transport(nil)
	t.Tracer = live.NewTracer(tp, live.TraceOptions{})
	fmt.Println(t.Tracer != nil)
	// Output: true
}

// ExampleNewSpanSink makes the spans of records read from a file, at
// their own times: the run header's start is their epoch.
func ExampleNewSpanSink() {
	exporter := tracetest.NewInMemoryExporter()
	epoch := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	sink := live.NewSpanSink(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)), live.SpanOptions{Epoch: epoch})
	r := request("a", 100*ms, 5)
	r.Sent = time.Second
	sink.Record(context.Background(), key, r)
	s := exporter.GetSpans()[0]
	fmt.Println(s.Name, s.StartTime.Format("15:04:05.000"), s.EndTime.Format("15:04:05.000"))
	// Output: chat m 10:00:01.000 10:00:01.180
}

func ExampleSpanSink_Record() {
	exporter := tracetest.NewInMemoryExporter()
	sink := live.NewSpanSink(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)), live.SpanOptions{})
	failed := &llmmetrics.Record{ID: "b", Status: llmmetrics.StatusTimeout, Message: "context deadline exceeded"}
	sink.Record(context.Background(), key, failed)
	s := exporter.GetSpans()[0]
	fmt.Println(s.Status.Code, s.Status.Description)
	fmt.Println(s.Events[0].Name)
	// Output:
	// Error context deadline exceeded
	// gen_ai.client.operation.exception
}

// ExampleSpanSink_Result makes the spans of the driver's results, or of a
// Transport's (its OnResultContext), after the fact.
func ExampleSpanSink_Result() {
	exporter := tracetest.NewInMemoryExporter()
	sink := live.NewSpanSink(sdktrace.NewTracerProvider(sdktrace.WithSyncer(exporter)), live.SpanOptions{})
	r := &observe.Result{Operation: "chat", Provider: "openai", RequestModel: "m", HTTPStatus: 429,
		Started: time.Now(), Duration: 20 * ms}
	r.Record.Status, r.Record.Message = llmmetrics.StatusError, "HTTP 429: rate limited"
	sink.Result(context.Background(), r)
	s := exporter.GetSpans()[0]
	for _, kv := range s.Attributes {
		if kv.Key == "error.type" {
			fmt.Println(s.Name, kv.Value.Emit(), s.EndTime.Sub(s.StartTime))
		}
	}
	// Output: chat m 429 20ms
}

// ExampleNewRecordSink records a service's traffic in llmmetrics' own run
// format, without prompt text: the file reads as any run (llmmetrics
// report, diff) and replays to another server (llmmetrics run --replay
// FILE sends the same arrivals and lengths). A service wires the sink to
// its Transport with one epoch, so that the send times and the header's
// start agree:
//
//	start := time.Now()
//	sink, _ := live.NewRecordSink(f, llmmetrics.RunHeader{Start: start}, live.RecordOptions{})
//	rec, _ := live.NewRecorder(live.Options{Sinks: []live.Sink{sink}})
//	t := rec.Transport(base)
//	t.Epoch = start
//	defer sink.Close()
func ExampleNewRecordSink() {
	var file bytes.Buffer
	start := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	sink, err := live.NewRecordSink(&file, llmmetrics.RunHeader{Target: "http://10.0.0.5:8080", Start: start}, live.RecordOptions{})
	if err != nil {
		panic(err)
	}
	rec, err := live.NewRecorder(live.Options{Sinks: []live.Sink{sink}})
	if err != nil {
		panic(err)
	}
	ok := request("a", 120*ms, 3)
	ok.Sent, ok.MaxTokens = 40*ms, 64
	rec.Record(key, ok)
	rec.Record(key, &llmmetrics.Record{ID: "b", Sent: 55 * ms, Status: llmmetrics.StatusError, Message: "HTTP 400: your prompt 'tell me a secret' is too long"})
	if err := sink.Close(); err != nil {
		panic(err)
	}
	lines := strings.Split(strings.TrimSpace(file.String()), "\n")
	for _, l := range lines[1:] { // the header's first: the tool, its Go version, the start, the load
		fmt.Println(l)
	}
	run, err := llmmetrics.ReadJSONL(&file)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(run.Records), "records,", run.End.State)
	// Output:
	// {"id":"1","status":"ok","sent_ns":40000000,"chunk_arrivals_ns":[120000000,140000000,160000000],"prompt_tokens":50,"completion_tokens":3,"max_tokens":64}
	// {"id":"2","status":"error","message":"HTTP 400: error.type _OTHER","sent_ns":55000000}
	// {"llmmetrics_end":{"state":"completed","written":2,"load":{"models":"m","operations":"chat"},"absent":{"planned":"live traffic: no request was planned"}}}
	// 2 records, completed
}

// ExampleRecordSink_Observe shows that an observation made by hand
// carries no record: it is counted, not written. A Recorder calls
// ObserveRecord.
func ExampleRecordSink_Observe() {
	var file bytes.Buffer
	sink, err := live.NewRecordSink(&file, llmmetrics.RunHeader{}, live.RecordOptions{})
	if err != nil {
		panic(err)
	}
	sink.Observe(context.Background(), key, live.Observation{Outcome: live.OutcomeOK, E2E: 300 * ms})
	if err := sink.Close(); err != nil {
		panic(err)
	}
	run, err := llmmetrics.ReadJSONL(&file)
	if err != nil {
		panic(err)
	}
	fmt.Println(len(run.Records), "written;", run.End.Notes[0])
	// Output:
	// 0 written; 1 observation not written: made without a record (not by a Recorder).
}

// ExampleRecordSink_ObserveRecord writes a record handed over directly,
// as a Recorder does: the sink numbers it.
func ExampleRecordSink_ObserveRecord() {
	var file bytes.Buffer
	sink, err := live.NewRecordSink(&file, llmmetrics.RunHeader{}, live.RecordOptions{})
	if err != nil {
		panic(err)
	}
	sink.ObserveRecord(context.Background(), key, live.Observation{Outcome: live.OutcomeOK}, *request("a", 100*ms, 2))
	if err := sink.Close(); err != nil {
		panic(err)
	}
	run, err := llmmetrics.ReadJSONL(&file)
	if err != nil {
		panic(err)
	}
	r := run.Records[0]
	fmt.Println(r.ID, r.Chunks, r.CompletionTokens)
	// Output:
	// 1 [100ms 120ms] 2
}

// ExampleRecordSink_NotWritten counts a record observed after Close.
func ExampleRecordSink_NotWritten() {
	sink, err := live.NewRecordSink(io.Discard, llmmetrics.RunHeader{}, live.RecordOptions{})
	if err != nil {
		panic(err)
	}
	rec, err := live.NewRecorder(live.Options{Sinks: []live.Sink{sink}})
	if err != nil {
		panic(err)
	}
	rec.Record(key, request("a", 100*ms, 2))
	sink.Close()
	rec.Record(key, request("b", 100*ms, 2))
	fmt.Printf("%+v\n", sink.NotWritten())
	// Output:
	// {Dropped:0 Rejected:0 Late:1 Bare:0}
}

// ExampleRecordSink_Close writes the end line: completed, the records
// written and what the sink saw of the traffic, which a reader adds to
// the header's load.
func ExampleRecordSink_Close() {
	var file bytes.Buffer
	sink, err := live.NewRecordSink(&file, llmmetrics.RunHeader{}, live.RecordOptions{})
	if err != nil {
		panic(err)
	}
	rec, err := live.NewRecorder(live.Options{Sinks: []live.Sink{sink}})
	if err != nil {
		panic(err)
	}
	rec.Record(key, request("a", 100*ms, 2))
	if err := sink.Close(); err != nil {
		panic(err)
	}
	run, err := llmmetrics.ReadJSONL(&file)
	if err != nil {
		panic(err)
	}
	fmt.Println(run.End.State, run.End.Written, run.Header.Load["models"])
	// Output:
	// completed 1 m
}
