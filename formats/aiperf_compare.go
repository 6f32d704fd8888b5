package formats

import (
	"fmt"
	"math"
)

// compare fills a comparison of an AIPerf run.
func (a *aiperfFile) compare(c *Comparison) error {
	d, err := a.dialect()
	if err != nil {
		return err
	}
	s := c.Summary
	c.row("ok requests", float64(s.Requests.OK), true, d, "request_count.avg")
	c.throughputRows(d, "request_throughput.avg", "output_token_throughput.avg")
	keys := func(tag string) (string, string, string, string) {
		return tag + ".avg", tag + ".std", tag + ".p50", tag + ".p99"
	}
	m, sd, p50, p99 := keys("ttft")
	c.distRows("TTFT", s.TTFT, d, m, sd, p50, p99)
	m, sd, p50, p99 = keys("inter_token_latency")
	if s.TPOT != nil {
		c.distRows("TPOT", &s.TPOT.Distribution, d, m, sd, p50, p99)
	} else {
		c.distRows("TPOT", nil, d, m, sd, p50, p99)
	}
	m, sd, p50, p99 = keys("inter_chunk_latency")
	if s.ITL != nil {
		c.distRows("ITL", &s.ITL.Distribution, d, m, sd, p50, p99)
	} else {
		c.distRows("ITL", nil, d, m, sd, p50, p99)
	}
	m, sd, p50, p99 = keys("request_latency")
	c.distRows("E2E", s.E2E, d, m, sd, p50, p99)

	c.methodReason("AIPerf interpolates linearly between the two nearest values (numpy's default)")
	c.Reasons = append(c.Reasons, "Names: AIPerf's inter_token_latency is (request_latency − ttft)/(output_sequence_length − 1) per record, which llmmetrics calls TPOT (one value per request); AIPerf's inter_chunk_latency pools every chunk gap, which llmmetrics calls ITL (one value per gap). The rows pair them by meaning, not by name.")
	reasoning, multi, failed, over := 0, 0, 0, 0
	var overTokens int64
	for _, r := range a.recs {
		if r.Error != nil {
			failed++
			continue
		}
		if r.scalars["reasoning_token_count"] > 0 {
			reasoning++
		}
		chunks, n := len(r.lists["inter_chunk_latency"])+1, int(r.scalars["output_sequence_length"])
		if chunks < n {
			multi++
		}
		if chunks > n {
			over++
			overTokens += int64(n)
		}
	}
	if reasoning > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Clock boundary: %d records streamed reasoning; AIPerf ends TTFT at the first content or reasoning chunk, and the records keep that boundary, so both columns do. A TTFT to the first answer (content) token is not in the file.", reasoning))
	}
	if multi > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Chunks, not tokens: %d records received fewer chunks than tokens; their gaps are chunk gaps, which llmmetrics labels as such (basis %q).", multi, basis(s)))
	}
	if t := s.Throughput; t != nil {
		if dur, ok := d.Lookup("benchmark_duration.avg"); ok {
			same := ""
			if math.Abs(dur-t.Window.Length.Seconds()) < 1e-9 {
				same = " Here the two are the same to the nanosecond."
			}
			c.Reasons = append(c.Reasons, fmt.Sprintf("Window: AIPerf divides by its benchmark_duration, from the earliest request to the last response of the records without an error (%.6f s); llmmetrics divides by %v, which starts at the first send of any offered record, failed ones included.%s", dur, t.Window, same))
		}
		// The records whose count is below their chunks are the only ok
		// ones llmmetrics leaves out of its output rate (AIPerf's records
		// always have a count): when the summary left out as many, these
		// are they.
		if u := s.Requests.Uncounted; over > 0 && u.BelowChunks == over && u.Total() == over {
			theirs := float64(t.OutputTokens + overTokens)
			sec := t.Window.Length.Seconds()
			c.Reasons = append(c.Reasons, fmt.Sprintf("Tokens left out: llmmetrics' output rate leaves out the %d ok records whose token count is below their chunks (%d tokens; see the note below), and AIPerf's output_token_throughput counts them: it is total_osl / benchmark_duration, every valid record's output_sequence_length. Over llmmetrics' window the %d tokens are %.4f tokens/s: %d tokens give %.4f, and %d give %.4f.",
				over, overTokens, overTokens, float64(overTokens)/sec, t.OutputTokens, float64(t.OutputTokensPerSecond), int64(theirs), theirs/sec))
		}
	}
	if failed > 0 {
		c.Reasons = append(c.Reasons, fmt.Sprintf("Failures: both leave the %d errored or cancelled records out of every latency figure; llmmetrics keeps them in the offered count, so they lower SLO attainment (AIPerf's newer good_request_fraction does the same).", failed))
	}
	c.Reasons = append(c.Reasons, "Standard deviation: both use the population std; the std rows differ only through the samples they cover.")
	return nil
}
