package server_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"

	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/server"
)

// Two scrapes of one server, 60 s apart: 300 output and 1,200 prompt
// tokens, three requests finished (two stopped, one hit its length), and
// their TTFTs observed in the buckets ≤ 0.1 s (one) and ≤ 0.5 s (two).
const before = `# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="m"} 1000
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="m"} 5000
# TYPE vllm:request_success_total counter
vllm:request_success_total{finished_reason="stop",model_name="m"} 10
vllm:request_success_total{finished_reason="length",model_name="m"} 4
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1"} 10
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.5"} 14
vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf"} 14
vllm:time_to_first_token_seconds_sum{model_name="m"} 1.4
vllm:time_to_first_token_seconds_count{model_name="m"} 14
`

const after = `# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="m"} 1300
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="m"} 6200
# TYPE vllm:request_success_total counter
vllm:request_success_total{finished_reason="stop",model_name="m"} 12
vllm:request_success_total{finished_reason="length",model_name="m"} 5
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.1"} 11
vllm:time_to_first_token_seconds_bucket{model_name="m",le="0.5"} 17
vllm:time_to_first_token_seconds_bucket{model_name="m",le="+Inf"} 17
vllm:time_to_first_token_seconds_sum{model_name="m"} 2.0
vllm:time_to_first_token_seconds_count{model_name="m"} 17
`

func window() *server.Window {
	a, _ := server.ParseScrape(strings.NewReader(before))
	b, _ := server.ParseScrape(strings.NewReader(after))
	w, err := server.Diff(a, b, time.Minute, server.Selector{"model_name": "m"})
	if err != nil {
		panic(err)
	}
	return w
}

func ExampleParseScrape() {
	s, err := server.ParseScrape(strings.NewReader(before))
	fmt.Println(len(s.Names()), err)
	// Output: 4 <nil>
}

func ExampleScrape_Names() {
	s, _ := server.ParseScrape(strings.NewReader(before))
	fmt.Println(s.Names()[0])
	// Output: vllm:generation_tokens_total
}

func ExampleParseSelector() {
	sel, _ := server.ParseSelector(`model_name="Qwen/Qwen2.5-3B-Instruct",engine=0`)
	fmt.Println(sel["model_name"], sel["engine"])
	// Output: Qwen/Qwen2.5-3B-Instruct 0
}

func ExampleDiff() {
	w := window()
	g := w.Counters["generation_tokens"]
	fmt.Println(g.Delta, g.PerSecond) // 300 tokens in 60 s
	fmt.Println(w.Finished)
	// Output:
	// 300 5
	// map[length:1 stop:2]
}

func ExampleWindow_Rate() {
	w := window()
	out, _ := w.Rate("generation_tokens")
	prompt, _ := w.Rate("prompt_tokens") // reported apart, never added
	fmt.Println(out, prompt)
	// Output: 5 20
}

func ExampleHistogram_Quantile() {
	h := window().Histograms["time_to_first_token_seconds"]
	// The window holds 3 observations: 1 at most 0.1 s, 2 in (0.1, 0.5].
	// The median's rank is 1.5: halfway into the second bucket's two, so
	// 0.1 + 0.4·(0.5/2) = 0.2 s.
	v, lowerBound, err := h.Quantile(0.5)
	fmt.Printf("%.3f %v %v\n", v, lowerBound, err)
	// Output: 0.200 false <nil>
}

func ExampleHistogram_Mean() {
	m, _ := window().Histograms["time_to_first_token_seconds"].Mean() // (2.0 − 1.4)/3
	fmt.Printf("%.3f\n", m)
	// Output: 0.200
}

func ExampleDescribe() {
	m, _ := server.Describe("vllm:inter_token_latency_seconds")
	fmt.Println(m.Observation)
	// Output: one per engine step (per running request, for inter-token latency)
}

func ExampleCheckKnownOutput() {
	// The client received 100 + 100 + 90 tokens: 10 fewer than the server
	// generated.
	recs := []llmmetrics.Record{
		{ID: "a", FirstText: time.Millisecond, LastText: time.Second, CompletionTokens: 100},
		{ID: "b", FirstText: time.Millisecond, LastText: time.Second, CompletionTokens: 100},
		{ID: "c", FirstText: time.Millisecond, LastText: time.Second, CompletionTokens: 90},
	}
	k, _ := server.CheckKnownOutput(window(), recs)
	fmt.Println(k.ServerTokens, k.ClientTokens, k.Agree)
	fmt.Println(k.Causes[0])
	// Output:
	// 300 290 false
	// other traffic reached the server inside the window, or the window starts before the first request's tokens
}

func ExampleReport_MarshalJSON() {
	b, _ := (&server.Report{Window: window()}).MarshalJSON()
	s := string(b)
	fmt.Println(s[strings.Index(s, `"counters"`):strings.Index(s, `,"prompt_tokens"`)])
	// Output: "counters":{"generation_tokens":{"delta":300,"per_s":5,"series":1,"unit":"tokens"}
}

func ExampleReport_WriteTable() {
	var b strings.Builder
	(&server.Report{Window: window()}).WriteTable(&b)
	fmt.Println(strings.Split(b.String(), "\n")[0])
	// Output: server side, over a window of 1m0s, series with map[model_name:m]
}

func ExampleParseVLLMMetrics() {
	t, _ := server.ParseVLLMMetrics([]byte(`{"queue_time_ms": 5, "time_to_first_token_ms": 40, "generation_time_ms": 200}`))
	fmt.Println(*t.Queue, *t.Prefill, *t.ServerTTFT, t.Derived)
	// Output: 5ms 40ms 45ms true
}

func ExampleParseLlamaCppTimings() {
	t, _ := server.ParseLlamaCppTimings([]byte(`{"prompt_n": 12, "prompt_ms": 30.5, "predicted_n": 57, "predicted_ms": 484.01}`))
	fmt.Println(*t.Prefill, *t.Decode, t.Queue == nil)
	// Output: 30.5ms 484.01ms true
}

func ExampleParseOllamaMetrics() {
	t, _ := server.ParseOllamaMetrics([]byte(`{"done": true, "prompt_eval_duration": 12000000, "eval_duration": 180000000}`))
	fmt.Println(*t.Prefill, *t.Decode)
	// Output: 12ms 180ms
}

func ExampleParseTimingsLine() {
	id, t, _ := server.ParseTimingsLine([]byte(`{"id": "r1", "source": "reported", "timings": {"queue_ms": 10, "prefill_ms": 35, "server_ttft_ms": 50}}`))
	fmt.Println(id, *t.ServerTTFT)
	// Output: r1 50ms
}

func ExampleDecompose() {
	// Client TTFT 70 ms; the server reported queue 10, prefill 35 and its
	// TTFT 50 ms: 5 ms of residual (sampling, detokenization, scheduling)
	// and 20 ms of network, HTTP server and client.
	r := llmmetrics.Record{ID: "r1", FirstText: 70 * time.Millisecond, LastText: time.Second, CompletionTokens: 20}
	_, t, _ := server.ParseTimingsLine([]byte(`{"id": "r1", "source": "reported", "timings": {"queue_ms": 10, "prefill_ms": 35, "server_ttft_ms": 50}}`))
	d, _ := server.Decompose(&r, t)
	fmt.Println(d.ClientTTFT, *d.Queue, *d.Prefill, *d.Residual, *d.ClientOverhead)
	// Output: 70ms 10ms 35ms 5ms 20ms
}

func ExampleSummarizeDecompositions() {
	var ds []server.Decomposition
	for i, prompt := range []int{100, 300, 900} {
		r := llmmetrics.Record{PromptTokens: prompt, FirstText: time.Duration(50+10*i) * time.Millisecond, LastText: time.Second, CompletionTokens: 5}
		d, _ := server.Decompose(&r, server.Timings{})
		ds = append(ds, d)
	}
	for _, b := range server.SummarizeDecompositions(ds, []int{256}) {
		fmt.Println(b.Requests, b.Components[0].Stats.Max, b.Components[1].Unknown)
	}
	// Output:
	// 1 50ms 1
	// 2 70ms 2
}

func ExampleNewCacheSalt() {
	fmt.Println(len(server.NewCacheSalt()))
	// Output: 32
}

func ExampleDecomposeAll() {
	recs := []llmmetrics.Record{
		{ID: "a", PromptTokens: 100, FirstText: 60 * time.Millisecond, LastText: time.Second, CompletionTokens: 5},
		{ID: "b", PromptTokens: 900, FirstText: 90 * time.Millisecond, LastText: time.Second, CompletionTokens: 5},
	}
	_, ta, _ := server.ParseTimingsLine([]byte(`{"id": "a", "source": "vllm", "timings": {"queue_time_ms": 5, "time_to_first_token_ms": 40}}`))
	rep := server.DecomposeAll(recs, map[string]server.Timings{"a": ta}, []int{512})
	fmt.Println(len(rep.Rows), *rep.Rows[0].ClientOverhead, rep.Unmatched)
	// Output: 1 15ms 1
}

func ExampleTTFTReport_WriteTable() {
	recs := []llmmetrics.Record{
		{ID: "a", PromptTokens: 128, FirstText: 60 * time.Millisecond, LastText: time.Second, CompletionTokens: 5},
		{ID: "b", PromptTokens: 130, FirstText: 50 * time.Millisecond, LastText: time.Second, CompletionTokens: 5},
	}
	_, ta, _ := server.ParseTimingsLine([]byte(`{"id": "a", "source": "vllm", "timings": {"queue_time_ms": 5, "time_to_first_token_ms": 40}}`))
	_, tb, _ := server.ParseTimingsLine([]byte(`{"id": "b", "source": "llama.cpp", "timings": {"prompt_ms": 30.5}}`))
	rep := server.DecomposeAll(recs, map[string]server.Timings{"a": ta, "b": tb}, nil)
	// a: vLLM's TTFT is queue + prefill, 45 ms, so 15 ms of the client's 60
	// are overhead; b: llama.cpp reports the prefill alone.
	rep.WriteTable(os.Stdout)
	// Output:
	// client TTFT = queue + prefill (produces token 1) + residual (sampling, detokenization, scheduling) + client overhead (network, HTTP server, client), in ms; — is unknown
	//     request  prompt tokens  client TTFT  queue  prefill  residual  client overhead
	//           a            128       60.000  5.000   40.000         —           15.000
	//           b            130       50.000      —   30.500         —                —
	//   all prompt lengths: 2 requests, 0 residuals clamped at 0
	//             component  n  unknown    mean     p50     p95     p99     min     max
	//           client_ttft  2        0  55.000  50.000  60.000  60.000  50.000  60.000
	//                 queue  1        1   5.000   5.000   5.000   5.000   5.000   5.000
	//               prefill  2        0  35.250  30.500  40.000  40.000  30.500  40.000
	//              residual  0        2       —       —       —       —       —       —
	//       client_overhead  1        1  15.000  15.000  15.000  15.000  15.000  15.000
}

func ExampleTTFTReport_MarshalJSON() {
	recs := []llmmetrics.Record{{ID: "a", PromptTokens: 128, FirstText: 60 * time.Millisecond, LastText: time.Second, CompletionTokens: 5}}
	_, ta, _ := server.ParseTimingsLine([]byte(`{"id": "a", "source": "llama.cpp", "timings": {"prompt_ms": 41.25}}`))
	rep := server.DecomposeAll(recs, map[string]server.Timings{"a": ta}, nil)
	b, _ := rep.MarshalJSON()
	var v struct {
		Rows []map[string]any
	}
	json.Unmarshal(b, &v)
	fmt.Println(v.Rows[0]["client_ttft_ms"], v.Rows[0]["prefill_ms"], v.Rows[0]["queue_ms"])
	// Output: 60 41.25 <nil>
}

// fakePrometheus answers the instant queries of Prometheus.Window: the
// counter is 100 at time 0 and 160 at time 60, and it never reset.
func fakePrometheus() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q, at := r.URL.Query().Get("query"), r.URL.Query().Get("time")
		result := `[]`
		switch {
		case strings.HasPrefix(q, "sum(resets("):
			result = `[{"metric": {}, "value": [60, "0"]}]`
		case strings.HasPrefix(q, "histogram_quantile("):
			result = `[{"metric": {}, "value": [60, "0.25"]}]`
		case at == "0.000":
			result = `[{"metric": {"__name__": "vllm:generation_tokens_total", "model_name": "m"}, "value": [0, "100"]}]`
		case at == "60.000":
			result = `[{"metric": {"__name__": "vllm:generation_tokens_total", "model_name": "m"}, "value": [60, "160"]}]`
		}
		fmt.Fprintf(w, `{"status": "success", "data": {"resultType": "vector", "result": %s}}`, result)
	}))
}

func ExamplePrometheus_Window() {
	srv := fakePrometheus()
	defer srv.Close()
	p := &server.Prometheus{URL: srv.URL}
	w, err := p.Window(context.Background(), time.Unix(0, 0), time.Unix(60, 0), server.Selector{"model_name": "m"})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(w.Counters["generation_tokens"].Delta, w.Counters["generation_tokens"].PerSecond)
	// Output: 60 1
}

func ExamplePrometheus_Quantile() {
	srv := fakePrometheus()
	defer srv.Close()
	p := &server.Prometheus{URL: srv.URL}
	v, err := p.Quantile(context.Background(), "vllm:time_to_first_token_seconds", 0.5, time.Unix(0, 0), time.Unix(60, 0), nil)
	fmt.Println(v, err)
	// Output: 0.25 <nil>
}

func ExampleHistogram_Monotonic() {
	// A scrape that raced its own updates: the le="1" bucket counts fewer
	// observations than le="0.1".
	h := server.Histogram{Name: "h", Bounds: []float64{0.1, 1, 10}, Buckets: []float64{2, 1, 5, 5}, Count: 5}
	p50, _, _ := h.Quantile(0.5) // on the envelope 2, 2, 5, 5: rank 2.5 in (1, 10]
	fmt.Println(h.Monotonic(), p50)
	// Output: false 2.5
}

func ExampleSelector_String() {
	sel, _ := server.ParseSelector(`model_name="Qwen/Qwen2.5-3B-Instruct", engine=0`)
	fmt.Println(sel)
	// Output: engine="0",model_name="Qwen/Qwen2.5-3B-Instruct"
}
