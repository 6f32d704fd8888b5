package live

// The exported metrics, named once for the Collector, the PrometheusSink
// and (with dots, see otel.go) the OTelSink.

var histNames = [numHists][2]string{
	histDuration: {"gen_ai_client_operation_duration_seconds", "Time from the request's send to its last text-bearing chunk (llmmetrics E2E) for successful requests, to the failure for failed ones (with error_type)."},
	histTTFC:     {"gen_ai_client_operation_time_to_first_chunk_seconds", "Time from the request's send to its first text-bearing chunk, of successful streamed requests (llmmetrics TTFT)."},
	histPerChunk: {"gen_ai_client_operation_time_per_output_chunk_seconds", "Gap between consecutive text-bearing chunks, one observation per chunk after the first (llmmetrics ITL; chunk gaps where chunks carry several tokens)."},
	histInput:    {"gen_ai_client_token_usage", "Tokens per successful request, from the server's usage."},
	histOutput:   {"gen_ai_client_token_usage", ""},
	histTPOT:     {"llmmetrics_time_per_output_token_seconds", "Per-request TPOT, (t_last − t_first)/(n − 1) with n from usage, of successful requests with n ≥ 2."},
	histMaxGap:   {"llmmetrics_max_gap_seconds", "Each successful request's largest gap between text-bearing chunks (stalls)."},
}

// A promMetric is an exported counter's or gauge's name, help and own
// labels (beyond the Key's, unless bare).
type promMetric struct {
	name, help string
	labels     []string
	bare       bool // no Key labels: one series a recorder
}

var (
	requestsCounter = promMetric{"llmmetrics_requests_total",
		"Requests by outcome: ok, no_count (ok without a usable token count), zero_token, failed (with error_type), rejected, warmup; they sum to the requests offered.",
		promNames(attrOutcome, attrErrorType), false}
	outputTokensCounter = promMetric{"llmmetrics_output_tokens_total", "Output tokens of successful requests, from usage. Not to be added to prompt tokens.", nil, false}
	promptTokensCounter = promMetric{"llmmetrics_prompt_tokens_total", "Prompt tokens of successful requests, from usage. Not to be added to output tokens.", nil, false}
	goodCounter         = promMetric{"llmmetrics_goodput_good_total", "Requests that met the SLO.", nil, false}
	judgedCounter       = promMetric{"llmmetrics_goodput_offered_total", "Requests judged against the SLO: every offered request but warm-up, failures included.", nil, false}
	basisCounter        = promMetric{"llmmetrics_gap_basis_requests_total", "Successful requests with two or more chunks, by gap basis: token (one token a chunk) or chunk.", promNames(attrBasis), false}
	noCountCounter      = promMetric{"llmmetrics_no_count_requests_total", "Successful requests without a usable token count, by reason: no_usage, zero_usage, below_chunks. They have TTFT and E2E, no TPOT.", promNames(attrReason), false}
	overflowCounter     = promMetric{"llmmetrics_label_set_overflow_total", "Requests recorded under the _OTHER label set because the recorder held its limit of label sets (Options.MaxLabelSets), or under their model's _OTHER response model because it held MaxResponseModels.", nil, true}
	inFlightGauge       = promMetric{"llmmetrics_requests_in_flight", "Calls through the recorder's Transport that have begun and not ended.", nil, true}
)

// reasons are the no_count reasons, as the llmmetrics_reason label says.
var reasons = [...]string{"no_usage", "zero_usage", "below_chunks"}

// MetricNames returns the name of every Prometheus metric family the
// Collector and the PrometheusSink export (histograms without their
// _bucket, _sum and _count suffixes), for dashboards and alert rules to be
// checked against.
func MetricNames() []string {
	var out []string
	seen := map[string]bool{}
	for _, n := range histNames {
		if !seen[n[0]] {
			seen[n[0]] = true
			out = append(out, n[0])
		}
	}
	for _, m := range []promMetric{requestsCounter, outputTokensCounter, promptTokensCounter, goodCounter, judgedCounter,
		basisCounter, noCountCounter, overflowCounter, inFlightGauge} {
		out = append(out, m.name)
	}
	return out
}
