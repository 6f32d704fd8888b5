package synth

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// The result files of other tools, written from records (Mixed's), for the
// tests that hold the formats' readers to a memory budget. Each holds what
// its tool writes for such a run, in the tool's units; a failed request
// carries the record's message as the tool's error; an ok one without a
// token is written as vLLM, SGLang and GenAI-Perf write it, and as a
// failure by the others.

// seconds returns d in seconds.
func seconds(d time.Duration) float64 { return d.Seconds() }

// ms returns d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// message returns a failed record's message, and for an ok one without a
// token (which AIPerf, LLMPerf and GuideLLM record as a failure) a
// message saying so.
func message(r *llmmetrics.Record) string {
	if r.Status == llmmetrics.StatusOK {
		return "empty response"
	}
	return r.Message
}

// gaps returns the gaps between r's chunk arrivals.
func gaps(r *llmmetrics.Record) []time.Duration {
	var g []time.Duration
	for j := 1; j < len(r.Chunks); j++ {
		g = append(g, r.Chunks[j]-r.Chunks[j-1])
	}
	return g
}

// span returns the duration of the run, from the first send to the last
// arrival.
func span(recs []llmmetrics.Record) time.Duration {
	end := time.Duration(0)
	for i := range recs {
		end = max(end, recs[i].Sent)
		if n := len(recs[i].Chunks); n > 0 {
			end = max(end, recs[i].Sent+recs[i].Chunks[n-1])
		}
	}
	return end + time.Millisecond
}

// VLLM returns a result file of vLLM's serving benchmark with its
// per-request arrays (--save-result --save-detailed).
func VLLM(recs []llmmetrics.Record) []byte { return serve(recs, "vllm") }

// SGLang returns a line of SGLang's bench_serving --output-file, with its
// per-request arrays (--output-details).
func SGLang(recs []llmmetrics.Record) []byte {
	return append(serve(recs, "sglang"), '\n')
}

func serve(recs []llmmetrics.Record, backend string) []byte {
	n := len(recs)
	ttfts, in, out := make([]float64, n), make([]int, n), make([]int, n)
	itls, errs := make([][]float64, n), make([]string, n)
	completed := 0
	var e2e []float64
	for i := range recs {
		r := &recs[i]
		in[i] = r.PromptTokens
		itls[i] = []float64{}
		if r.Status != llmmetrics.StatusOK {
			errs[i] = r.Message
			continue
		}
		completed++
		if len(r.Chunks) == 0 {
			continue
		}
		ttfts[i], out[i] = seconds(r.Chunks[0]), r.CompletionTokens
		for _, g := range gaps(r) {
			itls[i] = append(itls[i], seconds(g))
		}
		e2e = append(e2e, ms(r.Chunks[len(r.Chunks)-1]))
	}
	// In the tools' order: the summary first, then the arrays.
	doc := struct {
		Backend    string      `json:"backend"`
		Model      string      `json:"model_id"`
		Prompts    int         `json:"num_prompts"`
		Duration   float64     `json:"duration"`
		Completed  int         `json:"completed"`
		Throughput float64     `json:"request_throughput"`
		MedianE2E  float64     `json:"median_e2e_latency_ms,omitempty"`
		InputLens  []int       `json:"input_lens"`
		OutputLens []int       `json:"output_lens"`
		TTFTs      []float64   `json:"ttfts"`
		ITLs       [][]float64 `json:"itls"`
		Errors     []string    `json:"errors"`
	}{backend, "synthetic", n, seconds(span(recs)), completed, float64(completed) / seconds(span(recs)), 0, in, out, ttfts, itls, errs}
	if backend == "sglang" && len(e2e) > 0 {
		doc.MedianE2E = e2e[len(e2e)/2]
	}
	return must(json.Marshal(doc))
}

// AIPerf returns AIPerf's profile_export.jsonl.
func AIPerf(recs []llmmetrics.Record) []byte {
	type metric struct {
		Value any    `json:"value"`
		Unit  string `json:"unit"`
	}
	var b strings.Builder
	for i := range recs {
		r := &recs[i]
		line := map[string]any{
			"metadata": map[string]any{"x_request_id": r.ID, "timestamp_ns": int64(time.Second + r.Sent)},
			"error":    nil,
		}
		metrics := map[string]metric{}
		switch {
		case r.Status != llmmetrics.StatusOK || len(r.Chunks) == 0:
			line["error"] = map[string]any{"code": 500, "type": "ServerError", "message": message(r)}
		case len(r.Chunks) > 0:
			g := []float64{}
			for _, d := range gaps(r) {
				g = append(g, ms(d))
			}
			metrics["ttft"] = metric{ms(r.Chunks[0]), "ms"}
			metrics["request_latency"] = metric{ms(r.Chunks[len(r.Chunks)-1]), "ms"}
			metrics["output_sequence_length"] = metric{r.CompletionTokens, "tokens"}
			metrics["input_sequence_length"] = metric{r.PromptTokens, "tokens"}
			metrics["inter_chunk_latency"] = metric{g, "ms"}
		}
		metrics["min_request_timestamp"] = metric{int64(time.Second + r.Sent), "ns"}
		line["metrics"] = metrics
		b.Write(must(json.Marshal(line)))
		b.WriteByte('\n')
	}
	return []byte(b.String())
}

// LLMPerf returns LLMPerf's *_individual_responses.json.
func LLMPerf(recs []llmmetrics.Record) []byte {
	list := make([]map[string]any, len(recs))
	for i := range recs {
		r := &recs[i]
		m := map[string]any{"error_code": nil, "error_msg": "", "number_input_tokens": r.PromptTokens}
		switch {
		case r.Status != llmmetrics.StatusOK || len(r.Chunks) == 0:
			m["error_code"], m["error_msg"] = 500, message(r)
		case len(r.Chunks) > 0:
			e2e := seconds(r.Chunks[len(r.Chunks)-1])
			m["ttft_s"], m["end_to_end_latency_s"] = seconds(r.Chunks[0]), e2e
			m["inter_token_latency_s"] = e2e / float64(r.CompletionTokens)
			m["number_output_tokens"] = r.CompletionTokens
			m["number_total_tokens"] = r.CompletionTokens + r.PromptTokens
			m["request_output_throughput_token_per_s"] = float64(r.CompletionTokens) / e2e
		}
		list[i] = m
	}
	return must(json.Marshal(list))
}

// GuideLLM returns GuideLLM's benchmarks.json, one benchmark.
func GuideLLM(recs []llmmetrics.Record) []byte {
	groups := map[string][]map[string]any{"successful": {}, "incomplete": {}, "errored": {}}
	for i := range recs {
		r := &recs[i]
		start := 1000 + seconds(r.Sent)
		q := map[string]any{"request_id": r.ID, "prompt_tokens": r.PromptTokens, "start_time": start}
		if r.Status != llmmetrics.StatusOK || len(r.Chunks) == 0 {
			q["output_tokens"], q["end_time"], q["request_latency"] = 0, start+0.05, 0.05
			q["error"] = message(r)
			groups["errored"] = append(groups["errored"], q)
			continue
		}
		first, last := seconds(r.Chunks[0]), seconds(r.Chunks[len(r.Chunks)-1])
		q["output_tokens"], q["end_time"], q["request_latency"] = r.CompletionTokens, start+last, last
		q["first_token_time"], q["last_token_time"] = start+first, start+last
		q["time_to_first_token_ms"] = first * 1000
		q["time_per_output_token_ms"] = last * 1000 / float64(r.CompletionTokens)
		q["inter_token_latency_ms"] = (last - first) * 1000 / float64(r.CompletionTokens-1)
		groups["successful"] = append(groups["successful"], q)
	}
	totals := map[string]int{"successful": len(groups["successful"]), "incomplete": 0, "errored": len(groups["errored"]), "total": len(recs)}
	doc := map[string]any{"benchmarks": []any{map[string]any{
		"duration": seconds(span(recs)), "request_totals": totals, "requests": groups, "metrics": map[string]any{},
	}}}
	return must(json.Marshal(doc))
}

// GenAIPerf returns perf_analyzer's profile_export.json for an OpenAI chat
// endpoint: each response an SSE event, the last with the usage.
func GenAIPerf(recs []llmmetrics.Record) []byte {
	var reqs []map[string]any
	for i := range recs {
		r := &recs[i]
		sent := int64(time.Second + r.Sent)
		q := map[string]any{"timestamp": sent}
		stamps := []int64{}
		outputs := []map[string]string{}
		if r.Status == llmmetrics.StatusOK {
			for j, at := range r.Chunks {
				usage := ""
				if j == len(r.Chunks)-1 {
					usage = fmt.Sprintf(`,"usage":{"prompt_tokens":%d,"completion_tokens":%d}`, r.PromptTokens, r.CompletionTokens)
				}
				stamps = append(stamps, sent+int64(at))
				outputs = append(outputs, map[string]string{"response": `data: {"choices":[{"delta":{"content":"tok"}}]` + usage + "}\n\n"})
			}
		}
		q["response_timestamps"], q["response_outputs"] = stamps, outputs
		reqs = append(reqs, q)
	}
	return must(json.Marshal(map[string]any{"service_kind": "openai", "experiments": []any{map[string]any{"requests": reqs}}}))
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
