package formats_test

import (
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/formats"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guidellmSampled is a GuideLLM benchmark that counts 4 successful requests
// and 1 incomplete but keeps only 2 successful ones (a and b) as a sample,
// as GuideLLM's request_samples does. Its stated request_latency figures
// cover all 4: count 4, mean 0.7 s, median 0.65 s, std 0.1 s, p99 0.9 s.
// Recomputed from the sample they would be count 2 and mean
// (0.5 + 0.6)/2 = 0.55 s.
const guidellmSampled = `{"benchmarks": [{"request_totals": {"successful": 4, "incomplete": 1, "errored": 0, "total": 5},
 "requests": {"successful": [
  {"request_id": "a", "prompt_tokens": 10, "output_tokens": 3, "start_time": 100.0, "end_time": 100.5, "first_token_time": 100.1, "last_token_time": 100.4, "request_latency": 0.5, "time_to_first_token_ms": 100.0, "time_per_output_token_ms": 100.0, "inter_token_latency_ms": 150.0},
  {"request_id": "b", "prompt_tokens": 10, "output_tokens": 5, "start_time": 101.0, "end_time": 101.6, "first_token_time": 101.2, "last_token_time": 101.6, "request_latency": 0.6, "time_to_first_token_ms": 200.0, "time_per_output_token_ms": 80.0, "inter_token_latency_ms": 100.0}],
  "incomplete": [], "errored": []},
 "metrics": {"request_latency": {"successful": {"mean": 0.7, "median": 0.65, "variance": 0.01, "std_dev": 0.1, "min": 0.5, "max": 0.9, "count": 4, "total_sum": 2.8,
   "percentiles": {"p50": 0.65, "p99": 0.9}}}}}]}`

// A file that keeps a sample of its requests says so (File.Sample), and
// reconciling it puts what the file states, over every request, in the
// tool's column — not the tool's formulas applied to the sample, which
// describe no run — beside llmmetrics' figures of the sample, marked.
func TestGuideLLMSampleStated(t *testing.T) {
	f, err := formats.Read(strings.NewReader(guidellmSampled), formats.GuideLLM)
	require.NoError(t, err)
	require.NotNil(t, f.Sample)
	assert.Equal(t, formats.Sample{Kept: 2, Of: 5, Detail: "2 of 4 successful, 0 of 1 incomplete"}, *f.Sample)
	assert.Equal(t, "2 of 5 requests", f.Sample.String())

	c, err := formats.Compare(f, llmmetrics.Options{})
	require.NoError(t, err)
	assert.True(t, c.Stated)
	assert.Equal(t, f.Sample, c.Sample)
	rows := map[string]formats.ComparisonRow{}
	for _, r := range c.Rows {
		rows[r.Metric] = r
	}
	ok := rows["ok requests"]
	assert.Equal(t, 2.0, ok.Ours, "the sample's")
	assert.Equal(t, 4.0, ok.Theirs, "the file's request_latency.successful.count")
	e2e := rows["E2E mean (ms)"]
	assert.Equal(t, "request_latency.successful.mean", e2e.Key)
	assert.InDelta(t, 700.0, e2e.Theirs, 1e-9, "0.7 s stated, not 550 ms from the sample")
	assert.InDelta(t, 650.0, rows["E2E p50 (ms)"].Theirs, 1e-9, "the stated median")
	assert.InDelta(t, 900.0, rows["E2E p99 (ms)"].Theirs, 1e-9)
	assert.False(t, rows["TTFT mean (ms)"].HasTheir, "the file states no TTFT")

	var b strings.Builder
	require.NoError(t, c.WriteTable(&b))
	assert.Contains(t, b.String(), "llmmetrics (nearest-rank; SAMPLE of 2 of 5 requests)")
	assert.Contains(t, b.String(), "guidellm (as the file states)")
	j, err := c.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(j), `"llmmetrics_sample":{"kept":2,"of":5,"detail":"2 of 4 successful, 0 of 1 incomplete"},"tool_column":"stated by the file"`)
}

// A file that keeps every request is reconciled as before: the tool's
// formulas on its requests, no sample.
func TestGuideLLMWholeNotSample(t *testing.T) {
	whole := strings.Replace(guidellmSampled, `"successful": 4, "incomplete": 1, "errored": 0, "total": 5`, `"successful": 2, "incomplete": 0, "errored": 0, "total": 2`, 1)
	f, err := formats.Read(strings.NewReader(whole), formats.GuideLLM)
	require.NoError(t, err)
	assert.Nil(t, f.Sample)
	c, err := formats.Compare(f, llmmetrics.Options{})
	require.NoError(t, err)
	assert.False(t, c.Stated)
	assert.Nil(t, c.Sample)
	for _, r := range c.Rows {
		if r.Metric == "E2E mean (ms)" {
			assert.InDelta(t, 550.0, r.Theirs, 1e-9, "(0.5 + 0.6)/2 s, recomputed")
		}
	}
}
