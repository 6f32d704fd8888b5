package formats

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics"
)

// compare fills a comparison of a GuideLLM benchmark: its successful group
// beside llmmetrics' ok requests. Of a file that keeps a sample of its
// requests, GuideLLM's column is what the file states, over every request:
// its formulas applied to the sample would be figures of no run.
func (g *guidellmFile) compare(c *Comparison) error {
	d, err := g.dialect()
	if err != nil {
		return err
	}
	if g.sample != nil {
		d = g.stated()
		c.Sample, c.Stated = g.sample, true
	}
	s := c.Summary
	c.row("ok requests", float64(s.Requests.OK), true, d, "request_latency.successful.count")
	keys := func(m string) (string, string, string, string) {
		p := m + ".successful."
		if c.Stated {
			// The file states the median, not p50, which GuideLLM's
			// formulas make the same figure.
			return p + "mean", p + "std_dev", p + "median", p + "percentiles.p99"
		}
		return p + "mean", p + "std_dev", p + "percentiles.p50", p + "percentiles.p99"
	}
	m, sd, p50, p99 := keys("time_to_first_token_ms")
	c.distRows("TTFT", s.TTFT, d, m, sd, p50, p99)
	var tpot *llmmetrics.Distribution
	if s.TPOT != nil {
		tpot = &s.TPOT.Distribution
	}
	m, sd, p50, p99 = keys("inter_token_latency_ms")
	c.distRows("TPOT", tpot, d, m, sd, p50, p99)
	m, sd, p50, p99 = keys("request_latency")
	c.distRowsScaled("E2E", s.E2E, d, 1000, m, sd, p50, p99)

	if c.Method != llmmetrics.NearestRank {
		c.Reasons = append(c.Reasons, "Percentile method: GuideLLM takes the weighted inverse CDF without interpolation (nearest rank when weights are equal); --method linear interpolates instead.")
	}
	c.Reasons = append(c.Reasons,
		"Names and weighting: GuideLLM's inter_token_latency_ms is llmmetrics' TPOT, (last − first token)/(n − 1) per request, but GuideLLM weights each request by n − 1, so its mean is llmmetrics' gap-weighted mean, not the request-weighted TPOT mean in the llmmetrics column; its time_per_output_token_ms is a different quantity again.",
		"E2E: GuideLLM's request_latency ends when the stream ends (usage and [DONE] frames included); llmmetrics' E2E ends at the last token, so it is shorter.",
	)
	if s.TPOT != nil {
		c.Reasons = append(c.Reasons, fmt.Sprintf("For this file llmmetrics' gap-weighted TPOT mean is %.4f ms, the figure GuideLLM's weighted mean estimates.", float64(s.TPOT.GapWeightedMean)/1e6))
	}
	if n := len(g.b.Requests["errored"]); n > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Failures: %d requests are errored. GuideLLM summarizes them in their own group and in \"total\", where a missing TTFT counts as 0 ms; llmmetrics leaves them out of every latency figure and keeps them in the offered count, so they lower SLO attainment.", n))
	}
	if n := len(g.b.Requests["incomplete"]); n > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Incomplete: %d requests were cancelled by GuideLLM at the benchmark's end. GuideLLM summarizes them in their own group and in \"total\", where a missing TTFT counts as 0 ms; llmmetrics counts them apart, as unfinished at the run's end: in no latency or rate, not failed and not judged by an SLO.", n))
	}
	if g.sample != nil {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Sample: the file keeps %s (%s). The GuideLLM column is what the file states, over all %d requests; the llmmetrics column is recomputed from the %d kept, so the two columns describe different requests, and their difference is not one of convention.",
			g.sample, g.sample.Detail, g.sample.Of, g.sample.Kept))
	}
	return nil
}

// stated is the benchmark's own figures, as its file states them, as a
// dialect.
func (g *guidellmFile) stated() *Dialect {
	d := &Dialect{Tool: GuideLLM, Stated: true}
	for _, f := range guidellmFigures(g.b) {
		d.Figures = append(d.Figures, DialectFigure{Figure: f})
	}
	return d
}
