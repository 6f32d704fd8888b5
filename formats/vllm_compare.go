package formats

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics"
)

// compare fills a comparison of a vLLM file: vLLM's figures for all four
// metrics at p50 and p99, beside llmmetrics', and the reasons they differ.
func (v *serveFile) compare(c *Comparison) error {
	names := serveMetrics[v.tool]
	d, err := v.dialectOf(names, []float64{50, 99}, nil)
	if err != nil {
		return err
	}
	s := c.Summary
	c.row("ok requests", float64(s.Requests.OK), true, d, "completed")
	c.throughputRows(d, "request_throughput", "output_throughput")
	keys := func(m string) (string, string, string, string) {
		return "mean_" + m + "_ms", "std_" + m + "_ms", "p50_" + m + "_ms", "p99_" + m + "_ms"
	}
	var tpot, itl *llmmetrics.Distribution
	if s.TPOT != nil {
		tpot = &s.TPOT.Distribution
	}
	if s.ITL != nil {
		itl = &s.ITL.Distribution
	}
	for i, dist := range []*llmmetrics.Distribution{s.TTFT, tpot, itl, s.E2E} {
		m, sd, p50, p99 := keys(names[i])
		c.distRows([]string{"TTFT", "TPOT", "ITL", "E2E"}[i], dist, d, m, sd, p50, p99)
	}

	// Why the columns differ, for this file.
	tool := toolName(v.tool)
	c.methodReason(tool + " interpolates linearly between the two nearest values (numpy's default, Hyndman–Fan type 7)")
	ok, roleChunk, multi, zero, failed, vllmGaps := 0, 0, 0, 0, 0, 0
	var shift float64
	for i := range v.ttfts {
		if v.errors[i] != "" {
			failed++
			continue
		}
		ok++
		n, gaps := int(v.outputLens[i]), v.gaps(i)
		vllmGaps += len(gaps)
		switch {
		case n == 0:
			zero++
		case len(gaps) == n:
			roleChunk++
			shift += gaps[0]
		case len(gaps)+1 < n:
			multi++
		}
	}
	if roleChunk > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Clock boundary: in %d of %d ok requests %s's client ended TTFT at a role-only first chunk; llmmetrics ends it at the first text-bearing chunk, on average %.6f ms later. %s counts that role→text gap as one more ITL, so it pools %d gaps where llmmetrics pools %d.",
			roleChunk, ok, tool, shift/float64(roleChunk)*1000, tool, vllmGaps, gapCount(s)))
	}
	if multi > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Chunks, not tokens: %d ok requests received fewer chunks than tokens. Both pool their chunk gaps, but %s calls them ITL; llmmetrics labels them chunk gaps (basis %q) and keeps TPOT, from the token count, as the per-token figure.",
			multi, tool, basis(s)))
	}
	if s.TPOT != nil && s.ITL != nil {
		c.Reasons = append(c.Reasons, "Weighting: in both conventions the TPOT mean weights each request equally and the ITL mean weights each gap equally, so long responses pull the ITL mean towards their pace; the two means differ for that reason, not because of a measurement.")
	}
	if v.latencies == nil {
		c.Reasons = append(c.Reasons, "E2E and TPOT: the file stores no per-request latency, so both columns rebuild it as ttft + Σ itls; the tool's own figures, which used the stored latency, can differ in the 5th to 8th digit.")
	}
	if v.startTimes != nil {
		if t := s.Throughput; t != nil {
			c.Reasons = append(c.Reasons, fmt.Sprintf("Window: %s divides by its duration, from the first dispatch until every response was gathered (%.6f s); llmmetrics divides by %v.",
				tool, v.duration, t.Window))
		}
	} else {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Window: the file has no send times, so both divide by %s's duration (%.6f s).", tool, v.duration))
	}
	if zero > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Zero-token responses: %d successful requests returned no token; %s counts them as completed (and in request throughput); llmmetrics counts them apart, as zero-token, outside the ok requests.", zero, tool))
	}
	if failed > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Failures: both leave the %d failed requests out of every latency figure; llmmetrics keeps them in the offered count, so they lower SLO attainment.", failed))
	}
	return nil
}
