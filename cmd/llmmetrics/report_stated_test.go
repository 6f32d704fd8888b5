package main

import (
	"encoding/json"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// report of an inference-perf stage report, detected or named with
// --from, prints its figures as the file states them, under their paths in
// the file; --json gives them with every digit. The expected values are
// the file's own, decoded apart. reconcile has no requests to compare.
func TestReportInferencePerf(t *testing.T) {
	for _, stage := range []string{"0_lifecycle", "2_prometheus"} {
		file := realdata(t, "prometheus/kubernetes-sigs__inference-perf__vllm_stage_"+stage+"_metrics.json")
		b, err := os.ReadFile(file)
		require.NoError(t, err)
		var doc struct {
			Successes struct {
				Count   float64 `json:"count"`
				Latency *struct {
					TTFT map[string]float64 `json:"time_to_first_token"`
				} `json:"latency"`
				TTFT map[string]float64 `json:"time_to_first_token"`
			} `json:"successes"`
		}
		require.NoError(t, json.Unmarshal(b, &doc))
		key, want := "successes.time_to_first_token.p90", doc.Successes.TTFT["p90"]
		if doc.Successes.Latency != nil {
			key, want = "successes.latency.time_to_first_token.p90", doc.Successes.Latency.TTFT["p90"]
		}

		code, detected, errs := runCLI(t, "", "report", file)
		require.Equal(t, 0, code, errs)
		code, out, errs := runCLI(t, "", "report", "--from", "inference-perf", file)
		require.Equal(t, 0, code, errs)
		assert.Equal(t, detected, out, "detected and named alike")
		assert.True(t, strings.HasPrefix(out, "inference-perf summary of "+file), out)
		assert.Contains(t, out, "as the file states it")
		assert.Regexp(t, `(?m)^`+strings.ReplaceAll(key, ".", `\.`)+` +`+strconv.FormatFloat(want, 'g', 7, 64)+` `, out)

		code, out, errs = runCLI(t, "", "report", "--json", "--from", "inference-perf", file)
		require.Equal(t, 0, code, errs)
		var got map[string]float64
		require.NoError(t, json.Unmarshal([]byte(out), &got), out)
		assert.Equal(t, want, got[key])
		assert.Equal(t, doc.Successes.Count, got["successes.count"])

		code, _, errs = runCLI(t, "", "reconcile", file)
		assert.Equal(t, 1, code)
		assert.Contains(t, errs, "summary only")
		code, _, errs = runCLI(t, "", "report", "--fail-if", "p99(ttft)>1s", file)
		assert.Equal(t, 2, code)
		assert.Contains(t, errs, "no requests")

		// The flags that compute llmmetrics' own figures are refused in
		// one line, never ignored.
		for _, args := range [][]string{
			{"--slo", "ttft=1s"}, {"--method", "linear"}, {"--percentiles", "50,99"}, {"--window", "10s"},
			{"--slo", "ttft=1s", "--fail-below", "0.9"},
		} {
			code, out, errs := runCLI(t, "", append(append([]string{"report"}, args...), file)...)
			assert.Equal(t, 2, code, "%v: %s", args, errs)
			assert.Empty(t, out, args)
			assert.Equal(t, "llmmetrics: "+args[0]+": "+file+" holds inference-perf's summary, no requests: llmmetrics computes no figure of its own to judge or draw, and prints the file's as it states them\n", errs, args)
		}
	}
}
