package server_test

import (
	"fmt"

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
	// Output: "counters":{"generation_tokens":{"delta":300,"per_s":5,"series":1}
}

func ExampleReport_WriteTable() {
	var b strings.Builder
	(&server.Report{Window: window()}).WriteTable(&b)
	fmt.Println(strings.Split(b.String(), "\n")[0])
	// Output: server side, over a window of 1m0s, series with map[model_name:m]
}
