package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// help COMMAND and COMMAND --help describe every flag with its default and
// give examples; the overview lists every command.
func TestHelp(t *testing.T) {
	for _, c := range commands {
		for _, args := range [][]string{{"help", c.name}, {c.name, "--help"}, {c.name, "-h"}} {
			code, out, errs := runCLI(t, "", args...)
			require.Equal(t, 0, code, "%v: %s", args, errs)
			assert.Contains(t, out, "usage: "+c.synopsis, args)
			assert.Contains(t, out, "examples:", args)
		}
	}
	_, out, _ := runCLI(t, "", "help", "report")
	for _, want := range []string{
		`-percentiles list`, `(default "50,90,95,99")`,
		`-method method`, `(default "nearest-rank")`,
		"max_gap=1s", "-slo-strict", "-window duration", "-strict", "-dialect", "-from TOOL",
	} {
		assert.Contains(t, out, want)
	}
	_, out, _ = runCLI(t, "", "help", "server")
	assert.Contains(t, out, `(default "128,512,2048")`)
	code, out, _ := runCLI(t, "", "help")
	assert.Equal(t, 0, code)
	for _, c := range commands {
		assert.Contains(t, out, "llmmetrics "+c.name)
	}
	code, _, errs := runCLI(t, "", "help", "nosuch")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, `unknown command "nosuch"`)
}

func TestVersion(t *testing.T) {
	for _, args := range [][]string{{"version"}, {"--version"}} {
		code, out, _ := runCLI(t, "", args...)
		require.Equal(t, 0, code)
		// In a test binary the main module's version is "(devel)" or empty;
		// the Go version is always there.
		assert.Regexp(t, `^llmmetrics \S+ .*go1\.\d+`, out)
	}
	code, _, _ := runCLI(t, "", "version", "extra")
	assert.Equal(t, 2, code)
}

// compare was renamed reconcile; the old name says so.
func TestCompareRenamed(t *testing.T) {
	code, _, errs := runCLI(t, smallVLLM, "compare")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "compare is now called reconcile")
}

func TestFlagMistakes(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"report", "--percentiles", "50,50.0"}, "--percentiles: invalid percentile: p50 given twice"},
		{[]string{"report", "--lenient", "--strict"}, "opposite"},
		{[]string{"report", "--slo", "ttft=x"}, "--slo: invalid SLO"},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, errs, c.msg, c.args)
		// one prefix, not two
		assert.Equal(t, 1, strings.Count(errs, "llmmetrics:"), errs)
	}
}

// --dialect applies the choices the tool offers (vLLM's percentiles and
// goodput) and refuses the rest.
func TestDialectFlags(t *testing.T) {
	code, out, errs := runCLI(t, smallVLLM, "report", "--dialect", "vllm", "--json", "--percentiles", "50,99.9", "--slo", "ttft=200ms")
	require.Equal(t, 0, code, errs)
	var got map[string]float64
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	// ttfts of the completed requests 0.1 and 0.3 s: p50 = 0.2 s; p99.9 =
	// 0.1 + 0.999·0.2 = 0.2998 s. Goodput: only the first (0.1 s ≤ 0.2 s)
	// is good: 1 / 2 s.
	assert.InDelta(t, 200, got["p50_ttft_ms"], 1e-9)
	assert.InDelta(t, 299.8, got["p99.9_ttft_ms"], 1e-9)
	assert.Equal(t, 0.5, got["request_goodput"])
	_, hasP99 := got["p99_ttft_ms"]
	assert.False(t, hasP99, "the asked percentiles replace the file's")

	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--method", "linear"}, "--method with --dialect"},
		{[]string{"--window", "10s"}, "--window with --dialect"},
		{[]string{"--slo", "max_gap=1s"}, "no limit on the largest gap"},
		{[]string{"--slo", "ttft=1s", "--slo-strict"}, "inclusive"},
	} {
		code, _, errs := runCLI(t, smallVLLM, append([]string{"report", "--dialect", "vllm"}, c.args...)...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, errs, c.msg, c.args)
	}
	code, _, errs = runCLI(t, "", "report", "--dialect", "genai-perf", "--percentiles", "50", "../../formats/testdata/genai_perf_profile_export.json")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "GenAI-Perf's summary has no choice of percentiles")

	// The table prints 7 significant digits; the JSON every digit.
	_, out, _ = runCLI(t, smallVLLM, "report", "--dialect", "vllm")
	assert.Contains(t, out, "request_goodput: vLLM does not store its --goodput limits")
	assert.NotRegexp(t, `\d\.\d{8,}`, out)
}

// Another tool's invalid requests are set aside by default, counted at
// the top of the report; --strict makes them fatal.
func TestImportedSetAside(t *testing.T) {
	// The second request has 4 chunks and an output_len of 2 (every
	// text-bearing chunk carries a token): its count contradicts its
	// chunks, so only what needs the count sets it aside (issue 20); its
	// TTFT and E2E stay, in strict mode too.
	in := `{"duration": 2.0, "ttfts": [0.1, 0.1], "itls": [[0.02], [0.02, 0.02, 0.02]], "input_lens": [5, 5], "output_lens": [2, 2], "errors": ["", ""]}`
	code, out, errs := runCLI(t, in, "report", "--from", "vllm")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "no token count: 1 ok request (0 no usage, 0 usage of zero, 1 count below the chunks)")
	assert.Contains(t, out, "TTFT              2 ")
	assert.Contains(t, out, "TPOT              1 ")
	assert.Contains(t, out, "output  ≥1.000 tokens/s (≥2 tokens), a LOWER BOUND: it counts 1 of the 2 ok requests") // the first request's 2 over 2 s, the other uncounted
	code, out, errs = runCLI(t, in, "report", "--from", "vllm", "--json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"no_count":{"total":1,"no_usage":0,"zero_usage":0,"below_chunks":1}`)
	code, _, errs = runCLI(t, in, "report", "--from", "vllm", "--strict")
	assert.Equal(t, 0, code, errs)
}

// A report of records without prompt tokens leaves the prompt rate out
// and says why, rather than printing a rate of 0.
func TestNoSilentPromptZero(t *testing.T) {
	in := "request_id,prompt_tokens,completion_tokens,TTFT_ms,E2E_ms,sent_ms\na,0,3,10,30,0\n"
	code, out, _ := runCLI(t, in, "report")
	require.Equal(t, 0, code)
	assert.Contains(t, out, "prompt  absent: no ok record carries a prompt token count")
	assert.NotContains(t, out, "0.000 tokens/s (0 tokens)")
	_, out, _ = runCLI(t, in, "report", "--json")
	var got struct {
		Throughput map[string]any    `json:"throughput"`
		Absent     map[string]string `json:"absent"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.NotContains(t, got.Throughput, "prompt_tokens_per_s")
	assert.Equal(t, "no ok record carries a prompt token count", got.Absent["prompt_tokens_per_s"])
}

// A companion summary file is recognised and the right file named.
func TestSummaryFileNamed(t *testing.T) {
	code, _, errs := runCLI(t, `{"records": {"ttft": {"tag": "ttft", "unit": "ms", "avg": 18.2}}}`, "report")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "pass its per-record file, profile_export.jsonl")
}
