package main

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// AIPerf's real run: 89 ok records, three of which have one token fewer
// than chunks (240 in 241, 246 in 247, 246 in 247). report's throughput
// line counts the 89 and says the output rate leaves the 3 out;
// --dialect aiperf gives AIPerf's own output_token_throughput, which its
// summary states as 2320.7222350404572 (21624 tokens / 9.317788951 s);
// reconcile explains the output-rate row: the 3 records' 240 + 246 + 246 =
// 732 tokens, 732 / 9.317788951 = 78.5594 tokens/s.
func TestPeersAIPerfOutputRate(t *testing.T) {
	file := realdata(t, "aiperf/ai-dynamo__aiperf__run1_profile_export.jsonl")

	code, out, errs := runCLI(t, "", "report", file)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "counting 89 ok requests; the output rate counts 86 of them, 3 left out (count below the chunks):\n  output  ≥2242.163 tokens/s (≥20892 tokens), a LOWER BOUND: it counts 86 of the 89 ok requests")

	code, out, errs = runCLI(t, "", "report", "--dialect", "aiperf", file)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `\noutput_token_throughput\.avg +2320\.722 `, out)

	code, out, errs = runCLI(t, "", "reconcile", file)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `\n  output tokens/s +2242\.1628 +2320\.7222 +output_token_throughput\.avg\n`, out)
	assert.Contains(t, out, "Over llmmetrics' window the 732 tokens are 78.5594 tokens/s: 20892 tokens give 2242.1628, and 21624 give 2320.7222.\n")
}

// GuideLLM's real run with request_totals successful 586, errored 0,
// incomplete 23: the 23 were cancelled by GuideLLM at the benchmark's end
// (their error reads "TimeoutError"). report counts them apart, as
// unfinished: 0 failed, so an error rate of 0/609 (before: 23 timeouts,
// 23/609 = 3.8%), and an SLO every successful request meets is met by
// 586/586 = 100.00% (before: 586/609 = 96.22%). The error set is empty;
// the note quotes GuideLLM's words.
func TestPeersGuideLLMIncomplete(t *testing.T) {
	file := realdata(t, "guidellm/rsevilla87__guidellm-results-parser__benchmarks.json")
	code, out, errs := runCLI(t, "", "report", "--slo", "ttft=2s,tpot=50ms", "--fail-if", "error_rate>0", file)
	require.Equal(t, 0, code, errs+out)
	assert.Contains(t, out, "requests: 609 offered = 586 ok + 0 zero-token + 0 failed + 0 rejected + 23 unfinished at the run's end (not measured, not failed)\n")
	assert.Contains(t, out, "failed: 0 error, 0 timeout, 0 cancelled;")
	assert.Contains(t, out, "attainment  586 good / 586 offered = 100.00% (failed, zero-token and rejected requests stay in the denominator; the 23 unfinished at the run's end are not judged)\n")
	assert.Contains(t, out, `23 requests are incomplete: GuideLLM cancelled them at the benchmark's end (its words: "TimeoutError: The request timed out before completing.")`)
	assert.NotContains(t, out, "error set")
	assert.False(t, strings.Contains(out, "timeout ×"), "an incomplete request is counted as a timeout")

	code, out, errs = runCLI(t, "", "report", "--json", file)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"failed":0,`)
	assert.Contains(t, out, `"timeouts":0,"cancelled":0,"unfinished":23`)
}
