package live

import (
	"github.com/prometheus/client_golang/prometheus"
)

// A Collector exports a Recorder's cumulative figures to Prometheus under
// the same names as PrometheusSink, computed at each scrape from the
// recorder's own sharded state: recording touches no state shared between
// goroutines, so its cost does not grow with the cores recording at once
// (PrometheusSink's histograms are shared atomic counters). It exports
// classic buckets only; use PrometheusSink for native histograms.
type Collector struct {
	rec   *Recorder
	hists [numHists]*prometheus.Desc
	// counters
	requests, outputTokens, promptTokens, good, judged, basis *prometheus.Desc
}

var histNames = [numHists][2]string{
	histDuration: {"gen_ai_client_operation_duration_seconds", "Time from the request's send to its last text-bearing chunk, of successful requests (llmmetrics E2E)."},
	histTTFC:     {"gen_ai_client_operation_time_to_first_chunk_seconds", "Time from the request's send to its first text-bearing chunk, of successful requests (llmmetrics TTFT)."},
	histPerChunk: {"gen_ai_client_operation_time_per_output_chunk_seconds", "Gap between consecutive text-bearing chunks, one observation per chunk after the first (llmmetrics ITL; chunk gaps where chunks carry several tokens)."},
	histInput:    {"gen_ai_client_token_usage", "Tokens per successful request, from the server's usage."},
	histOutput:   {"gen_ai_client_token_usage", ""},
	histTPOT:     {"llmmetrics_time_per_output_token_seconds", "Per-request TPOT, (t_last − t_first)/(n − 1) with n from usage, of successful requests with n ≥ 2."},
	histMaxGap:   {"llmmetrics_max_gap_seconds", "Each successful request's largest gap between text-bearing chunks (stalls)."},
}

// A promCounter is an exported counter's name, help and own labels, for
// the Collector and the PrometheusSink alike.
type promCounter struct {
	name, help string
	labels     []string
}

var (
	requestsCounter     = promCounter{"llmmetrics_requests_total", "Requests by outcome: ok, zero_token, failed (with error_type), rejected, warmup; they sum to the requests offered.", []string{"outcome", "error_type"}}
	outputTokensCounter = promCounter{"llmmetrics_output_tokens_total", "Output tokens of successful requests, from usage. Not to be added to prompt tokens.", nil}
	promptTokensCounter = promCounter{"llmmetrics_prompt_tokens_total", "Prompt tokens of successful requests, from usage. Not to be added to output tokens.", nil}
	goodCounter         = promCounter{"llmmetrics_goodput_good_total", "Requests that met the SLO.", nil}
	judgedCounter       = promCounter{"llmmetrics_goodput_offered_total", "Requests judged against the SLO: every offered request but warm-up, failures included.", nil}
	basisCounter        = promCounter{"llmmetrics_gap_basis_requests_total", "Successful requests with two or more chunks, by gap basis: token (one token a chunk) or chunk.", []string{"basis"}}
)

// NewCollector returns a Collector of rec, to register with a
// prometheus.Registerer.
func NewCollector(rec *Recorder) *Collector {
	c := &Collector{rec: rec}
	desc := func(name, help string, extra ...string) *prometheus.Desc {
		return prometheus.NewDesc(name, help, append(append([]string{}, genaiLabels...), extra...), nil)
	}
	tokens := desc(histNames[histInput][0], histNames[histInput][1], "gen_ai_token_type")
	for h, n := range histNames {
		switch h {
		case histInput, histOutput:
			c.hists[h] = tokens
		default:
			c.hists[h] = desc(n[0], n[1])
		}
	}
	counter := func(m promCounter) *prometheus.Desc { return desc(m.name, m.help, m.labels...) }
	c.requests, c.outputTokens, c.promptTokens = counter(requestsCounter), counter(outputTokensCounter), counter(promptTokensCounter)
	c.good, c.judged, c.basis = counter(goodCounter), counter(judgedCounter), counter(basisCounter)
	return c
}

// Describe sends the descriptions of every metric.
func (c *Collector) Describe(ch chan<- *prometheus.Desc) {
	for h, d := range c.hists {
		if h != histOutput {
			ch <- d
		}
	}
	for _, d := range []*prometheus.Desc{c.requests, c.outputTokens, c.promptTokens, c.good, c.judged, c.basis} {
		ch <- d
	}
}

// Collect sends every label set's cumulative figures.
func (c *Collector) Collect(ch chan<- prometheus.Metric) {
	for _, s := range c.rec.Snapshots(false) {
		l := []string{s.Key.Operation, s.Key.Provider, s.Key.Model, s.Key.Endpoint}
		with := func(extra ...string) []string { return append(append([]string{}, l...), extra...) }
		for h, d := range c.hists {
			cum, n := s.hist[h].cumulative(h)
			labels := l
			switch h {
			case histInput:
				labels = with("input")
			case histOutput:
				labels = with("output")
			}
			ch <- prometheus.MustNewConstHistogram(d, n, s.hist[h].sum, cum, labels...)
		}
		k := s.Counts
		counter := func(d *prometheus.Desc, v int64, labels ...string) {
			ch <- prometheus.MustNewConstMetric(d, prometheus.CounterValue, float64(v), labels...)
		}
		counter(c.requests, k.OK, with("ok", "")...)
		counter(c.requests, k.ZeroToken, with("zero_token", "")...)
		counter(c.requests, k.Rejected, with("rejected", "")...)
		counter(c.requests, k.Warmup, with("warmup", "")...)
		counter(c.requests, k.Errors, with("failed", "error")...)
		counter(c.requests, k.Timeouts, with("failed", "timeout")...)
		counter(c.requests, k.Cancelled, with("failed", "cancelled")...)
		counter(c.outputTokens, k.OutputTokens, l...)
		counter(c.promptTokens, k.PromptTokens, l...)
		counter(c.good, k.Good, l...)
		counter(c.judged, k.Judged, l...)
		counter(c.basis, k.TokenBasis, with("token")...)
		counter(c.basis, k.ChunkBasis, with("chunk")...)
	}
}
