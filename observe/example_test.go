package observe_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
)

// chatServer streams a chat completion as llama.cpp's server does: a
// role-only chunk, two content chunks, the finish chunk, and usage.
func chatServer() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, e := range []string{
			`{"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"Hel"}}]}`,
			`{"choices":[{"index":0,"delta":{"content":"lo"}}]}`,
			`{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`,
			`{"choices":[],"usage":{"prompt_tokens":12,"completion_tokens":2}}`,
			`[DONE]`,
		} {
			fmt.Fprintf(w, "data: %s\n\n", e)
			w.(http.Flusher).Flush()
		}
	}))
}

func ExampleObserver_Do() {
	srv := chatServer()
	defer srv.Close()
	body := `{"model":"m","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"Hi"}]}`
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(body))
	res, _ := (&observe.Observer{}).Do(req, observe.Chat, "r1")
	rec := res.Record
	// The role-only chunk, the finish chunk, the usage chunk and [DONE]
	// carry no text: two text-bearing chunks, and n from usage.
	fmt.Println(rec.Status, len(rec.Chunks), rec.CompletionTokens, rec.PromptTokens, res.Finish)
	// Output: ok 2 2 12 stop
}

func ExampleParseAPI() {
	api, err := observe.ParseAPI("responses")
	fmt.Println(api, err)
	_, err = observe.ParseAPI("grpc")
	fmt.Println(err)
	// Output:
	// responses <nil>
	// observe: unknown API "grpc" (want chat, completions, responses, ollama, tgi)
}

func ExampleAPI_String() {
	fmt.Println(observe.Ollama)
	// Output: ollama
}

func ExampleAPIOf() {
	for _, p := range []string{"/v1/chat/completions", "/v1/completions", "/api/generate", "/v1/embeddings"} {
		api, ok := observe.APIOf(p)
		fmt.Println(p, api, ok)
	}
	// Output:
	// /v1/chat/completions chat true
	// /v1/completions completions true
	// /api/generate ollama true
	// /v1/embeddings chat false
}

func ExampleRun() {
	srv := chatServer()
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(`{}`))
	res, _ := (&observe.Observer{}).Do(req, observe.Chat, "r1")
	// The same stream as if the server had sent no usage.
	noUsage := &observe.Result{Record: res.Record, UsageKnown: false}
	noUsage.Record.ID, noUsage.Record.CompletionTokens, noUsage.Record.NoUsage = "r2", 0, true
	s, _ := observe.Run([]*observe.Result{res, noUsage}).Summarize(llmmetrics.Options{})
	fmt.Println(s.Requests.OK, s.Requests.Uncounted.NoUsage, s.TTFT.N, s.TPOT.N)
	// Output: 2 1 2 1
}

func ExampleWriteTimings() {
	res := &observe.Result{TimingsSource: "groq", Timings: []byte(`{"queue_time":0.05,"prompt_time":0.012,"completion_time":0.4}`)}
	res.Record.ID = "r1"
	n, _ := observe.WriteTimings(os.Stdout, []*observe.Result{res})
	fmt.Println(n)
	// Output:
	// {"id":"r1","source":"reported","timings":{"queue_ms":50,"prefill_ms":12,"decode_ms":400}}
	// 1
}

func ExampleTransport_RoundTrip() {
	srv := chatServer()
	defer srv.Close()
	// A service's own client, with the Transport under it: the service
	// reads its stream as before; each finished call arrives here.
	results := make(chan *observe.Result, 1)
	client := &http.Client{Transport: &observe.Transport{OnResult: func(r *observe.Result) { results <- r }}}
	resp, _ := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	body, _ := io.ReadAll(resp.Body) // the caller's own reading, untouched
	resp.Body.Close()
	r := <-results
	fmt.Println(strings.Count(string(body), "data: "), r.Record.ID, r.Record.Status, len(r.Record.Chunks), r.Record.CompletionTokens)
	// Output: 6 1 ok 2 2
}

// logTracer is a Tracer of its own: it marks the request it sends and
// prints each call as it ends. The live module's NewTracer is
// OpenTelemetry's.
type logTracer struct{}

func (logTracer) Start(ctx context.Context, h http.Header, r *observe.Result) (context.Context, func(*observe.Result)) {
	h.Set("X-Request-Trace", "t1") // on the request sent, not on the caller's
	fmt.Println("start:", r.Operation, r.RequestModel, r.Record.MaxTokens, r.RequestStream)
	return ctx, func(r *observe.Result) {
		fmt.Println("end:", r.Record.Status, len(r.Record.Chunks), r.Record.CompletionTokens)
	}
}

func ExampleTracer() {
	srv := chatServer()
	defer srv.Close()
	client := &http.Client{Transport: &observe.Transport{Tracer: logTracer{}}}
	resp, _ := client.Post(srv.URL+"/v1/chat/completions", "application/json",
		strings.NewReader(`{"model":"m","stream":true,"max_tokens":64}`))
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	// Output:
	// start: chat m 64 true
	// end: ok 2 2
}

func ExampleWriteJSONL() {
	srv := chatServer()
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(`{}`))
	res, _ := (&observe.Observer{Epoch: time.Now()}).Do(req, observe.Chat, "r1")
	// As if the server had sent no usage.
	res.UsageKnown, res.Record.CompletionTokens, res.Record.NoUsage = false, 0, true
	var b strings.Builder
	observe.WriteJSONL(&b, []*observe.Result{res})
	run, err := llmmetrics.ReadJSONL(strings.NewReader(b.String()))
	fmt.Println(strings.Contains(b.String(), "completion_tokens"), err, run.Records[0].CountState())
	// Output: false <nil> no_usage
}

func ExampleEnd_String() {
	fmt.Println(observe.EndFinish, observe.EndDone, observe.EndClose)
	// Output: finish done close
}
