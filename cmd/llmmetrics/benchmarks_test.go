package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeGuideLLMSweep writes a GuideLLM benchmarks.json of four
// benchmarks, as --rate-type sweep writes them: synchronous, throughput,
// then constant at 2 and at 4 requests/s. Benchmark k has 10 successful
// requests a second apart, each with TTFT 100·k ms and 5 tokens over
// 400 ms.
func writeGuideLLMSweep(t *testing.T, dir string) string {
	strategies := []string{`{"type_": "synchronous"}`, `{"type_": "throughput", "max_concurrency": 64}`,
		`{"type_": "constant", "rate": 2.0}`, `{"type_": "constant", "rate": 4.0}`}
	var bs []string
	for k, st := range strategies {
		var reqs []string
		for i := range 10 {
			start := 1000.0*float64(k+1) + float64(i)
			first := start + 0.1*float64(k+1)
			reqs = append(reqs, fmt.Sprintf(`{"request_id": "b%d-%d", "prompt_tokens": 10, "output_tokens": 5, "start_time": %g, "end_time": %g, "first_token_time": %g, "last_token_time": %g}`,
				k, i, start, first+0.4, first, first+0.4))
		}
		bs = append(bs, fmt.Sprintf(`{"args": {"strategy": %s}, "requests": {"successful": [%s], "incomplete": [], "errored": []}}`, st, strings.Join(reqs, ",")))
	}
	p := filepath.Join(dir, "benchmarks.json")
	require.NoError(t, os.WriteFile(p, []byte(`{"benchmarks": [`+strings.Join(bs, ",")+`]}`), 0o644))
	return p
}

// Every benchmark of a GuideLLM sweep file is reported, or the one
// --benchmark names.
func TestReportEveryBenchmark(t *testing.T) {
	file := writeGuideLLMSweep(t, t.TempDir())
	code, out, errs := runCLI(t, "", "report", "--percentiles", "50", file)
	require.Equal(t, 0, code, errs)
	for k, st := range []string{"synchronous", "throughput", "constant at 2 requests/s", "constant at 4 requests/s"} {
		assert.Contains(t, out, fmt.Sprintf("llmmetrics report: %s, benchmark %d of 4 (%s)\n", file, k+1, st))
	}
	code, out, errs = runCLI(t, "", "report", "--json", "--percentiles", "50", file)
	require.Equal(t, 0, code, errs)
	lines := strings.Split(strings.TrimSpace(out), "\n")
	require.Len(t, lines, 4, "one JSON object a benchmark")
	for k, line := range lines {
		var s struct {
			TTFT struct{ P50 float64 } `json:"ttft_ms"`
		}
		require.NoError(t, json.Unmarshal([]byte(line), &s))
		assert.InDelta(t, 100*float64(k+1), s.TTFT.P50, 1e-6, "benchmark %d's TTFT", k+1)
	}

	code, out, errs = runCLI(t, "", "report", "--benchmark", "3", file)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "benchmark 3 of 4 (constant at 2 requests/s)")
	assert.NotContains(t, out, "benchmark 1 of 4")
	assert.Contains(t, out, "300.000")

	for _, args := range [][]string{{"report", "--benchmark", "5", file}, {"report", "--plot", t.TempDir(), file}} {
		code, _, errs = runCLI(t, "", args...)
		assert.Equal(t, 2, code, args)
		assert.Contains(t, errs, "benchmark", args)
	}
	// A gate applies to each benchmark: only the fourth crosses 350 ms.
	code, out, errs = runCLI(t, "", "report", "--fail-if", "p50(ttft)>350ms", file)
	assert.Equal(t, 3, code, errs)
	assert.Contains(t, out, "benchmark 4 of 4")
	assert.Contains(t, errs, "benchmark 4: gate failed: p50(ttft)>350ms (it is 400ms)")
	assert.NotContains(t, errs, "benchmark 3:")
	assert.Equal(t, 1, strings.Count(errs, "\n"), "one line")
}

// A sweep reads its levels from the files: each constant benchmark of a
// GuideLLM sweep at its rate, the synchronous and throughput ones left
// out with a note.
func TestSweepLevelsFromGuideLLM(t *testing.T) {
	file := writeGuideLLMSweep(t, t.TempDir())
	code, out, errs := runCLI(t, "", "sweep", "--json", file)
	require.Equal(t, 0, code, errs)
	var got struct {
		Sweep struct {
			Kind   string
			Levels []struct {
				Level   float64
				Names   []string
				Figures map[string]struct{ Median float64 }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "rate", got.Sweep.Kind)
	require.Len(t, got.Sweep.Levels, 2)
	assert.Equal(t, 2.0, got.Sweep.Levels[0].Level)
	assert.Equal(t, []string{file + "#3"}, got.Sweep.Levels[0].Names)
	assert.Equal(t, 300.0, got.Sweep.Levels[0].Figures["ttft p50"].Median)
	assert.Equal(t, 4.0, got.Sweep.Levels[1].Level)
	assert.Equal(t, 400.0, got.Sweep.Levels[1].Figures["ttft p50"].Median)

	code, out, errs = runCLI(t, "", "sweep", file)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "benchmark 1 (synchronous) is at concurrency 1, not a rate: left out of the sweep")
	assert.Contains(t, out, "benchmark 2 (throughput) states no load: left out of the sweep")
	code, _, errs = runCLI(t, "", "sweep", "--level", file+"=3", file)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "each with its own level")
}

// vLLM files state their request_rate or max_concurrency, AIPerf its
// loadgen in the summary beside its records: no --level needed.
func TestSweepLevelsFromRealFiles(t *testing.T) {
	a := realdata(t, "vllm/surajssd__llm-k8s__llama33-70b-tp8-qps01.json")
	b := realdata(t, "vllm/surajssd__llm-k8s__deepseek-v25-qps16.json")
	code, out, errs := runCLI(t, "", "sweep", a, b)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `rate\s+1\s+16\s`, out)

	c := realdata(t, "vllm/pillaiharish__llm-serving-performance-lab__day05_large_i2048_o256_c4.json")
	d := realdata(t, "vllm/pillaiharish__llm-serving-performance-lab__day06_c16_i128_o64_n64.json")
	code, out, errs = runCLI(t, "", "sweep", c, d)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `concurrency\s+4\s+16\s`, out)

	// request_rate inf and no max_concurrency: no level stated.
	inf := realdata(t, "vllm/surajssd__llm-k8s__llama33-70b-tp4pp2-qpsinf.json")
	code, _, errs = runCLI(t, "", "sweep", inf)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "states no level")

	ai := realdata(t, "aiperf/ai-dynamo__aiperf__run1_profile_export.jsonl")
	code, out, errs = runCLI(t, "", "sweep", ai)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `concurrency\s+100\s`, out)
}

// diff takes the first benchmark of a file that holds several, and says so.
func TestDiffFirstBenchmark(t *testing.T) {
	file := writeGuideLLMSweep(t, t.TempDir())
	code, out, errs := runCLI(t, "", "diff", "--percentiles", "50", file, file)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "WARNING: "+file+" holds 4 benchmarks: diff takes the first; report --benchmark N reports each\n")
	// The first benchmark's TTFT is 100 ms in every request.
	assert.Regexp(t, `ttft p50 \(ms\)\s+100 ± \?`, out)
}
