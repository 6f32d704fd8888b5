package server

import (
	"fmt"
	"strings"
)

// Observation says what one observation of a vLLM histogram is, or what a
// counter counts.
type Observation string

const (
	PerRequest    Observation = "one per finished request"
	PerEngineStep Observation = "one per engine step (per running request, for inter-token latency)"
	Counts        Observation = "a counter"
)

// A Metric describes one vLLM metric: what it measures, what one
// observation is, and what to beware of.
type Metric struct {
	Name        string // without the "vllm:" prefix, as in vLLM 0.33.0
	Kind        string // counter, histogram or gauge
	Observation Observation
	Unit        string
	Boundary    string // from what to what, for durations
	Caveat      string
	OldNames    []string // names the metric had in earlier vLLM releases
}

// Catalogue lists the vLLM metrics this package reads, as vLLM 0.33.0
// defines them (vllm/v1/metrics/loggers.py and stats.py), with older names.
var Catalogue = []Metric{
	{Name: "generation_tokens_total", Kind: "counter", Observation: Counts, Unit: "tokens",
		Caveat: "the output-token counter: output tokens/s is its delta over a declared window, never a histogram's buckets"},
	{Name: "prompt_tokens_total", Kind: "counter", Observation: Counts, Unit: "tokens",
		Caveat: "prompt tokens processed, prefix-cache hits included; report its rate apart from output tokens/s, never added to it"},
	{Name: "request_success_total", Kind: "counter", Observation: Counts, Unit: "requests",
		Caveat: "finished requests, by finished_reason (stop, length, abort)"},
	{Name: "num_preemptions_total", Kind: "counter", Observation: Counts, Unit: "preemptions"},
	{Name: "prefix_cache_queries_total", Kind: "counter", Observation: Counts, Unit: "tokens",
		Caveat: "prompt tokens looked up in the prefix cache; with prefix_cache_hits_total it gives the hit rate over the window"},
	{Name: "prefix_cache_hits_total", Kind: "counter", Observation: Counts, Unit: "tokens"},
	{Name: "num_requests_running", Kind: "gauge", Unit: "requests",
		Caveat: "a gauge: its value at a scrape, not a count over the window"},
	{Name: "num_requests_waiting", Kind: "gauge", Unit: "requests",
		Caveat: "a gauge: its value at a scrape, not a count over the window"},
	{Name: "kv_cache_usage_perc", Kind: "gauge", Unit: "fraction (0–1, despite the name)",
		Caveat: "a gauge: its value at a scrape", OldNames: []string{"gpu_cache_usage_perc"}},
	{Name: "iteration_tokens_total", Kind: "histogram", Observation: PerEngineStep, Unit: "tokens",
		Caveat:   "a histogram of the tokens scheduled in each engine step (prompt and output together); its buckets count engine steps, and its _sum is not an output-token series: it is never a token counter, and no throughput can be taken from it",
		OldNames: []string{"iteration_tokens"}},
	{Name: "time_to_first_token_seconds", Kind: "histogram", Observation: PerRequest, Unit: "seconds",
		Boundary: "from the request's arrival at the engine to its first new token: excludes the client, the network and the HTTP server's own time"},
	{Name: "inter_token_latency_seconds", Kind: "histogram", Observation: PerEngineStep, Unit: "seconds",
		Boundary: "between consecutive decode steps of a running request",
		Caveat:   "one observation per non-prefill engine step per request: under speculative decoding or multi-token steps one observation covers several tokens, so it is a per-step gap, not a per-token one; its count grows by about n − 1 per request",
		OldNames: []string{"time_per_output_token_seconds"}},
	{Name: "request_time_per_output_token_seconds", Kind: "histogram", Observation: PerRequest, Unit: "seconds",
		Boundary: "per request, decode time / (generation tokens − 1)",
		Caveat:   "vLLM observes 0 for zero- and one-token outputs, for which TPOT is undefined: quote its distribution only for a window without such requests; otherwise use filtered client TPOT"},
	{Name: "e2e_request_latency_seconds", Kind: "histogram", Observation: PerRequest, Unit: "seconds",
		Boundary: "from the request's arrival at the engine to its finish"},
	{Name: "request_queue_time_seconds", Kind: "histogram", Observation: PerRequest, Unit: "seconds",
		Boundary: "from first queued to first scheduled"},
	{Name: "request_prefill_time_seconds", Kind: "histogram", Observation: PerRequest, Unit: "seconds",
		Boundary: "from first scheduled to the first new token (queue time excluded)"},
	{Name: "request_decode_time_seconds", Kind: "histogram", Observation: PerRequest, Unit: "seconds",
		Boundary: "from the first new token to the last"},
	{Name: "request_inference_time_seconds", Kind: "histogram", Observation: PerRequest, Unit: "seconds",
		Boundary: "from first scheduled to the last token (prefill plus decode)"},
	{Name: "request_prompt_tokens", Kind: "histogram", Observation: PerRequest, Unit: "tokens"},
	{Name: "request_generation_tokens", Kind: "histogram", Observation: PerRequest, Unit: "tokens"},
	{Name: "request_max_num_generation_tokens", Kind: "histogram", Observation: PerRequest, Unit: "tokens",
		Caveat: "the requested output budget (max_tokens, or the model's limit), not what was generated"},
	{Name: "request_params_max_tokens", Kind: "histogram", Observation: PerRequest, Unit: "tokens",
		Caveat: "the max_tokens parameter as sent: an upper bound, not an output length"},
	{Name: "request_params_n", Kind: "histogram", Observation: PerRequest, Unit: "sequences"},

	// llama.cpp's server (llama-server --metrics): counters and gauges, no
	// histograms; names keep their "llamacpp:" prefix.
	{Name: "llamacpp:tokens_predicted_total", Kind: "counter", Observation: Counts, Unit: "tokens",
		Caveat: "llama.cpp's output-token counter: the known-output check reads it where a vLLM server has generation_tokens"},
	{Name: "llamacpp:prompt_tokens_total", Kind: "counter", Observation: Counts, Unit: "tokens",
		Caveat: "prompt tokens processed, cached prompt tokens excluded (see prompt_tokens_cached_total)"},
	{Name: "llamacpp:prompt_tokens_cached_total", Kind: "counter", Observation: Counts, Unit: "tokens"},
	{Name: "llamacpp:prompt_seconds_total", Kind: "counter", Observation: Counts, Unit: "seconds",
		Caveat: "time spent on prompt processing, summed over requests"},
	{Name: "llamacpp:tokens_predicted_seconds_total", Kind: "counter", Observation: Counts, Unit: "seconds",
		Caveat: "time spent generating, summed over requests"},
	{Name: "llamacpp:n_decode_total", Kind: "counter", Observation: Counts, Unit: "decode calls",
		Caveat: "llama_decode calls (engine steps), not tokens"},
	{Name: "llamacpp:requests_processing", Kind: "gauge", Unit: "requests", Caveat: "a gauge: its value at a scrape"},
	{Name: "llamacpp:requests_deferred", Kind: "gauge", Unit: "requests", Caveat: "a gauge: its value at a scrape"},
}

// outputCounters are the servers' output-token counters, by short name,
// in the order the known-output check looks for them.
var outputCounters = []string{"generation_tokens", "llamacpp:tokens_predicted"}

// Describe returns the catalogue entry of a metric, by its full or short
// name, or an old name.
func Describe(name string) (Metric, bool) {
	n := strings.TrimPrefix(name, "vllm:")
	for _, m := range Catalogue {
		if m.Name == n || m.Name == n+"_total" || strings.TrimSuffix(m.Name, "_total") == n {
			return m, true
		}
		for _, old := range m.OldNames {
			if old == n {
				return m, true
			}
		}
	}
	return Metric{}, false
}

// Rate returns the per-second rate of a counter over the window, by short
// name ("generation_tokens"). Asked of a histogram, such as
// iteration_tokens_total, it returns ErrNotACounter with the reason.
func (w *Window) Rate(name string) (float64, error) {
	short := strings.TrimSuffix(strings.TrimPrefix(name, "vllm:"), "_total")
	if c, ok := w.Counters[short]; ok {
		return c.PerSecond, nil
	}
	if m, ok := Describe(name); ok && m.Kind != "counter" {
		return 0, fmt.Errorf("%w: %s is a %s, %s: %s", ErrNotACounter, name, m.Kind, m.Observation, m.Caveat)
	}
	if _, ok := w.Histograms[strings.TrimPrefix(name, "vllm:")]; ok {
		return 0, fmt.Errorf("%w: %s is a histogram", ErrNotACounter, name)
	}
	return 0, fmt.Errorf("%w: %s", ErrMissing, name)
}
