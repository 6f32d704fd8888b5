package live

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
	"go.opentelemetry.io/otel/trace"
)

// memoryBase answers every request with the same chat stream, from
// memory, draining the request's body as a connection would.
type memoryBase struct{ body []byte }

func (m memoryBase) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.Body != nil {
		io.Copy(io.Discard, req.Body)
		req.Body.Close()
	}
	return &http.Response{StatusCode: http.StatusOK, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(bytes.NewReader(m.body)), Request: req}, nil
}

// benchStream is a chat stream of n one-token chunks, with usage.
func benchStream(n int) []byte {
	var b bytes.Buffer
	for i := range n {
		fmt.Fprintf(&b, `data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{"content":" tok%d"},"finish_reason":null}]}`+"\n\n", i)
	}
	b.WriteString(`data: {"id":"chatcmpl-1","object":"chat.completion.chunk","model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n")
	fmt.Fprintf(&b, `data: {"id":"chatcmpl-1","model":"m","choices":[],"usage":{"prompt_tokens":10,"completion_tokens":%d}}`+"\n\ndata: [DONE]\n\n", n)
	return b.Bytes()
}

// BenchmarkTracer measures a whole call through an observe.Transport
// (request body read, response streamed from memory and read to its end)
// without a Tracer, and with live's Tracer over the SDK's TracerProvider
// sampling every call (a batch processor and an exporter that drops the
// spans) or none: the differences are the span's cost a request, and the
// two stream lengths show that it does not grow with the chunks.
//
//	go test -run XXX -bench Tracer -benchmem -benchtime=2000x -count=3 ./live
func BenchmarkTracer(b *testing.B) {
	const reqBody = `{"model":"m","stream":true,"max_tokens":256,"messages":[{"role":"user","content":"Hi"}]}`
	for _, chunks := range []int{16, 256} {
		body := benchStream(chunks)
		for _, sampling := range []string{"none", "never", "always"} {
			b.Run(fmt.Sprintf("chunks=%d/tracer=%s", chunks, sampling), func(b *testing.B) {
				t := &observe.Transport{Base: memoryBase{body}, OnResult: func(*observe.Result) {}}
				var tp *sdktrace.TracerProvider
				switch sampling {
				case "never":
					tp = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.NeverSample()))
				case "always":
					tp = sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()),
						sdktrace.WithBatcher(tracetest.NewNoopExporter()))
				}
				if tp != nil {
					defer tp.Shutdown(context.Background())
					t.Tracer = NewTracer(tp, TraceOptions{})
				}
				client := &http.Client{Transport: t}
				buf := make([]byte, 4096)
				b.ReportAllocs()
				for b.Loop() {
					req, _ := http.NewRequest(http.MethodPost, "http://10.0.0.5:8000/v1/chat/completions", strings.NewReader(reqBody))
					resp, err := client.Do(req)
					if err != nil {
						b.Fatal(err)
					}
					for {
						if _, err := resp.Body.Read(buf); err != nil {
							break
						}
					}
					resp.Body.Close()
				}
			})
		}
	}
}

// benchResult is a finished ok streamed call with usage, as the Transport
// gives it.
func benchResult(chunks int) *observe.Result {
	r := &observe.Result{Operation: "chat", Provider: "openai", RequestModel: "m", ResponseModel: "m-q4", ServerAddress: "10.0.0.5",
		ServerPort: 8000, ResponseID: "chatcmpl-1", Finish: "stop", UsageKnown: true, Streamed: true, RequestStream: true, StreamKnown: true,
		HTTPStatus: 200, Started: time.Now(), Duration: 500 * ms}
	r.Record = *benchRecord(chunks)
	r.Record.MaxTokens = 256
	r.Record.Client = &llmmetrics.ClientSide{Wait: ms}
	return r
}

// BenchmarkSpan measures the span alone, a request: what the Transport
// does for its Tracer (a header of its own) and the Tracer's Start and
// end, sampling every call (a synchronous no-op exporter) or none, of a
// call of 16 and of 256 chunks.
//
//	go test -run XXX -bench 'Span$' -benchmem -benchtime=2000x -count=3 ./live
func BenchmarkSpan(b *testing.B) {
	caller := http.Header{"Content-Type": {"application/json"}, "Authorization": {"Bearer x"}}
	for _, sc := range []struct {
		sampling string
		chunks   int
	}{{"never", 16}, {"always", 16}, {"always", 256}} {
		sampling := sc.sampling
		b.Run(fmt.Sprintf("sampling=%s/chunks=%d", sampling, sc.chunks), func(b *testing.B) {
			sampler := sdktrace.NeverSample()
			if sampling == "always" {
				sampler = sdktrace.AlwaysSample()
			}
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sampler), sdktrace.WithSyncer(tracetest.NewNoopExporter()))
			tr := NewTracer(tp, TraceOptions{})
			r := benchResult(sc.chunks)
			ctx := context.Background()
			b.ReportAllocs()
			for b.Loop() {
				h := make(http.Header, len(caller)+2) // as observe's ownHeader
				for k, v := range caller {
					h[k] = v[:len(v):len(v)]
				}
				_, end := tr.Start(ctx, h, r)
				end(r)
			}
		})
	}
}

// BenchmarkSDKSpan is the floor under BenchmarkSpan/sampling=always: the
// SDK's own span, sampled, with the same attributes made ahead (7 at its
// start, 12 at its end), no propagation.
func BenchmarkSDKSpan(b *testing.B) {
	tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(sdktrace.AlwaysSample()), sdktrace.WithSyncer(tracetest.NewNoopExporter()))
	tracer := tracerOf(tp)
	r := benchResult(16)
	in := resultInput(r)
	start := in.startAttrs(nil)
	end, _ := in.endAttrs(nil)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		_, span := tracer.Start(ctx, "chat m", clientKind, trace.WithAttributes(start...))
		span.SetAttributes(end...)
		span.End()
	}
}
