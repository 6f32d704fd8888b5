package formats

import "fmt"

// compare fills a comparison of a GenAI-Perf run.
func (g *genaiperfFile) compare(c *Comparison) error {
	d, err := g.dialect()
	if err != nil {
		return err
	}
	s := c.Summary
	c.throughputRows(d, "request_throughput.avg", "")
	c.distRows("TTFT", s.TTFT, d, "time_to_first_token.avg", "time_to_first_token.std", "time_to_first_token.p50", "time_to_first_token.p99")
	c.distRows("E2E", s.E2E, d, "request_latency.avg", "request_latency.std", "request_latency.p50", "request_latency.p99")
	c.methodReason("GenAI-Perf interpolates linearly between the two nearest values (numpy's default)")
	skipped := 0
	for _, q := range g.reqs {
		if len(q.kept) == 0 {
			skipped++
		}
	}
	c.Reasons = append(c.Reasons,
		"Token counts: GenAI-Perf re-tokenizes the text; llmmetrics takes n from server usage, so TPOT and token rates are llmmetrics' only (GenAI-Perf's inter_token_latency, which is a TPOT, needs its tokenizer).",
		"Clock boundaries: both end TTFT at the first response with content and E2E at the last one, since the records keep GenAI-Perf's choice of text-bearing responses.",
	)
	if skipped > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Requests: GenAI-Perf skips the %d requests with no content but still divides all of them by its duration for request_throughput; llmmetrics counts them as failed (no text) and its requests/s counts ok requests only.", skipped))
	}
	return nil
}
