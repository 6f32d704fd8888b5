package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// guidellmSampledFile is a GuideLLM benchmark that counts 4 successful
// requests and 1 incomplete, and keeps 2 successful ones as a sample. Its
// stated request_latency mean, over all 4, is 0.7 s.
const guidellmSampledFile = `{"benchmarks": [{"request_totals": {"successful": 4, "incomplete": 1, "errored": 0, "total": 5},
 "requests": {"successful": [
  {"request_id": "a", "prompt_tokens": 10, "output_tokens": 3, "start_time": 100.0, "end_time": 100.5, "first_token_time": 100.1, "last_token_time": 100.4, "request_latency": 0.5, "time_to_first_token_ms": 100.0, "time_per_output_token_ms": 100.0, "inter_token_latency_ms": 150.0},
  {"request_id": "b", "prompt_tokens": 10, "output_tokens": 5, "start_time": 101.0, "end_time": 101.6, "first_token_time": 101.2, "last_token_time": 101.6, "request_latency": 0.6, "time_to_first_token_ms": 200.0, "time_per_output_token_ms": 80.0, "inter_token_latency_ms": 100.0}],
  "incomplete": [], "errored": []},
 "metrics": {"request_latency": {"successful": {"mean": 0.7, "median": 0.65, "variance": 0.01, "std_dev": 0.1, "min": 0.5, "max": 0.9, "count": 4, "total_sum": 2.8,
   "percentiles": {"p50": 0.65, "p99": 0.9}}}}}]}`

// The rates of a file that keeps a sample of its requests would count only
// the sample over the run's window (here 8 tokens over 1.6 s, 5 tokens/s,
// of a run of 5 requests): report leaves them absent with the reason, the
// goodput rate too; the attainment stays. reconcile marks llmmetrics'
// column a sample and puts the file's own figures beside it.
func TestSampledFileRates(t *testing.T) {
	p := filepath.Join(t.TempDir(), "benchmarks.json")
	require.NoError(t, os.WriteFile(p, []byte(guidellmSampledFile), 0o644))
	why := "the file keeps 2 of 5 requests as a sample: rates over the window would count only those"

	code, out, errs := runCLI(t, "", "report", "--slo", "ttft=1s", p)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "tokens/s")
	assert.NotContains(t, out, "throughput over")
	assert.Contains(t, out, "  throughput: "+why+"\n")
	assert.Contains(t, out, "goodput     absent: "+why)
	assert.Contains(t, out, "attainment  2 good / 2 offered")

	code, out, errs = runCLI(t, "", "report", "--json", p)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, `"throughput":{`)
	assert.Contains(t, out, `"throughput":"`+why+`"`)

	code, out, errs = runCLI(t, "", "reconcile", p)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "llmmetrics (nearest-rank; SAMPLE of 2 of 5 requests)")
	assert.Regexp(t, `ok requests +2\.0000 +4\.0000 +request_latency\.successful\.count`, out)
	assert.Regexp(t, `E2E mean \(ms\) +\S+ +700\.0000 +request_latency\.successful\.mean`, out)

	// diff and sweep take its figures as a run's: they warn.
	q := filepath.Join(t.TempDir(), "benchmarks.json")
	require.NoError(t, os.WriteFile(q, []byte(guidellmSampledFile), 0o644))
	sampled := " keeps a sample of its requests, 2 of 5 requests (2 of 4 successful, 0 of 1 incomplete): its figures here are the sample's, and its rates count only those"
	code, out, errs = runCLI(t, "", "diff", p, q)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "WARNING: "+p+sampled)
	assert.Contains(t, out, "WARNING: "+q+sampled)
	code, out, errs = runCLI(t, "", "sweep", "--level", p+"=1", "--level", q+"=2", p, q)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "WARNING: "+p+sampled)
}
