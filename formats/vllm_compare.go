package formats

import (
	"fmt"

	"github.com/llmmetrics/llmmetrics"
)

// compare fills a comparison of a vLLM file: vLLM's figures for all four
// metrics at p50 and p99, beside llmmetrics', and the reasons they differ.
func (v *vllmFile) compare(c *Comparison) error {
	d, err := v.dialectOf(vllmMetrics, []float64{50, 99})
	if err != nil {
		return err
	}
	s := c.Summary
	c.row("ok requests", float64(s.Requests.OK), true, d, "completed")
	c.throughputRows(d, "request_throughput", "output_throughput")
	c.distRows("TTFT", s.TTFT, d, "mean_ttft_ms", "std_ttft_ms", "p50_ttft_ms", "p99_ttft_ms")
	if s.TPOT != nil {
		c.distRows("TPOT", &s.TPOT.Distribution, d, "mean_tpot_ms", "std_tpot_ms", "p50_tpot_ms", "p99_tpot_ms")
	} else {
		c.distRows("TPOT", nil, d, "mean_tpot_ms", "std_tpot_ms", "p50_tpot_ms", "p99_tpot_ms")
	}
	if s.ITL != nil {
		c.distRows("ITL", &s.ITL.Distribution, d, "mean_itl_ms", "std_itl_ms", "p50_itl_ms", "p99_itl_ms")
	} else {
		c.distRows("ITL", nil, d, "mean_itl_ms", "std_itl_ms", "p50_itl_ms", "p99_itl_ms")
	}
	c.distRows("E2E", s.E2E, d, "mean_e2el_ms", "std_e2el_ms", "p50_e2el_ms", "p99_e2el_ms")

	// Why the columns differ, for this file.
	c.methodReason("vLLM interpolates linearly between the two nearest values (numpy's default, Hyndman–Fan type 7)")
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
		c.Reasons = append(c.Reasons, fmt.Sprintf("Clock boundary: in %d of %d ok requests vLLM's client ended TTFT at a role-only first chunk; llmmetrics ends it at the first text-bearing chunk, on average %.6f ms later. vLLM counts that role→text gap as one more ITL, so it pools %d gaps where llmmetrics pools %d.",
			roleChunk, ok, shift/float64(roleChunk)*1000, vllmGaps, gapCount(s)))
	}
	if multi > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Chunks, not tokens: %d ok requests received fewer chunks than tokens. Both pool their chunk gaps, but vLLM calls them ITL; llmmetrics labels them chunk gaps (basis %q) and keeps TPOT, from the token count, as the per-token figure.",
			multi, basis(s)))
	}
	if s.TPOT != nil && s.ITL != nil {
		c.Reasons = append(c.Reasons, "Weighting: in both conventions the TPOT mean weights each request equally and the ITL mean weights each gap equally, so long responses pull the ITL mean towards their pace; the two means differ for that reason, not because of a measurement.")
	}
	if v.latencies == nil {
		c.Reasons = append(c.Reasons, "E2E and TPOT: the file stores no per-request latency, so both columns rebuild it as ttft + Σ itls; vLLM's own figures, which used the stored latency, can differ in the 5th to 8th digit.")
	}
	if v.startTimes != nil {
		if t := s.Throughput; t != nil {
			c.Reasons = append(c.Reasons, fmt.Sprintf("Window: vLLM divides by its duration, from the first dispatch until every response was gathered (%.6f s); llmmetrics divides by %v.",
				v.duration, t.Window))
		}
	} else {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Window: the file has no send times, so both divide by vLLM's duration (%.6f s).", v.duration))
	}
	if zero > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Zero-token responses: %d successful requests returned no token; vLLM counts them as completed (and in request throughput); llmmetrics counts them apart, as zero-token, outside the ok requests.", zero))
	}
	if failed > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Failures: both leave the %d failed requests out of every latency figure; llmmetrics keeps them in the offered count, so they lower SLO attainment.", failed))
	}
	return nil
}

// gapCount is the number of gaps llmmetrics pooled.
func gapCount(s *llmmetrics.Summary) int {
	if s.ITL == nil {
		return 0
	}
	return s.ITL.N
}

// basis is the basis of llmmetrics' pooled gaps, or "none".
func basis(s *llmmetrics.Summary) string {
	if s.ITL == nil {
		return "none"
	}
	return s.ITL.Basis.String()
}
