package formats

import "fmt"

// compare fills a comparison of an LLMPerf run. LLMPerf has no TPOT and no
// gap distribution, so those rows have no LLMPerf column; its
// inter_token_latency_s is shown as what it is.
func (l *llmperfFile) compare(c *Comparison) error {
	d, err := l.dialect()
	if err != nil {
		return err
	}
	s := c.Summary
	c.row("ok requests", float64(s.Requests.OK), true, d, "results_num_completed_requests")
	c.distRowsScaled("TTFT", s.TTFT, d, 1000, "results_ttft_s_mean", "results_ttft_s_stddev", "results_ttft_s_quantiles_p50", "results_ttft_s_quantiles_p99")
	if s.TPOT != nil {
		c.distRowsScaled("TPOT", &s.TPOT.Distribution, d, 1000, "", "", "", "")
	} else {
		c.distRowsScaled("TPOT", nil, d, 1000, "", "", "", "")
	}
	c.distRowsScaled("LLMPerf inter_token_latency_s (≈E2E/n)", nil, d, 1000, "results_inter_token_latency_s_mean", "results_inter_token_latency_s_stddev", "results_inter_token_latency_s_quantiles_p50", "results_inter_token_latency_s_quantiles_p99")
	c.distRowsScaled("E2E", s.E2E, d, 1000, "results_end_to_end_latency_s_mean", "results_end_to_end_latency_s_stddev", "results_end_to_end_latency_s_quantiles_p50", "results_end_to_end_latency_s_quantiles_p99")

	c.methodReason("LLMPerf takes pandas' linear quantiles (numpy's default)")
	c.Reasons = append(c.Reasons,
		"Standard deviation: LLMPerf reports the sample std (divisor N − 1); llmmetrics the population std (divisor N), so LLMPerf's is larger by √(N/(N − 1)).",
		"Per-token pace: LLMPerf has no TPOT. Its inter_token_latency_s divides the whole request time, first-token wait included, by the number of chunks, so it is about E2E/n and larger than TPOT = (E2E − TTFT)/(n − 1) whenever TTFT exceeds the mean gap; llmmetrics computes TPOT from the same file's TTFT, E2E and token count.",
		"ITL: the file holds no chunk arrivals, so neither side has a gap distribution.",
		"Window: the file holds no send times; LLMPerf's own throughput divides by the test's wall-clock time, which the file does not hold, so neither side reports a rate here (declare --window to get llmmetrics' rates).",
	)
	failed := 0
	for i := range l.recs {
		if l.recs[i].failed() {
			failed++
		}
	}
	if failed > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Failures: %d of %d requests have an error_code; both leave them out of the latency figures. LLMPerf reports error_rate = %d/%d; llmmetrics keeps them in the offered count, so they lower SLO attainment.", failed, len(l.recs), failed, len(l.recs)))
	}
	return nil
}
