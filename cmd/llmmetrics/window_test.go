package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// realdata returns the path of a file in ../shared/realdata, skipping the
// test when the folder is absent.
func realdata(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join("../../../shared/realdata", name)
	if _, err := os.Stat(p); err != nil {
		t.Skipf("../shared/realdata is absent (%s): the real files of this test live there", name)
	}
	return p
}

// One window for every command: an old vLLM file without send times
// declares its duration, and report, diff, sweep and reconcile all divide
// by it, giving the request rate vLLM wrote in the file (0.9746 requests/s
// over 205.2 s); its workload has no arrivals or requests in flight.
func TestOneWindowVLLMWithoutSendTimes(t *testing.T) {
	file := realdata(t, "vllm/surajssd__llm-k8s__llama33-70b-tp8-qps01.json")
	raw, err := os.ReadFile(file)
	require.NoError(t, err)
	var own struct {
		Rate float64 `json:"request_throughput"`
	}
	require.NoError(t, json.Unmarshal(raw, &own))
	require.InDelta(t, 0.9746, own.Rate, 1e-4)

	code, out, errs := runCLI(t, "", "report", "--json", file)
	require.Equal(t, 0, code, errs)
	var rep struct {
		Throughput struct {
			Rate float64 `json:"requests_per_s"`
		}
		Absent map[string]string
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.InDelta(t, own.Rate, rep.Throughput.Rate, 1e-9, "report")
	assert.Equal(t, "the records carry no send times", rep.Absent["workload.arrivals"])
	assert.Equal(t, "the records carry no send times", rep.Absent["workload.concurrency"])
	code, out, errs = runCLI(t, "", "report", file)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "all at once")
	assert.NotContains(t, out, "in flight (")

	code, out, errs = runCLI(t, "", "diff", "--json", file, file)
	require.Equal(t, 0, code, errs)
	var d struct {
		Rows []struct {
			Name string
			A    struct{ Median float64 }
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	found := false
	for _, r := range d.Rows {
		if r.Name == "requests_per_s" {
			found = true
			assert.InDelta(t, own.Rate, r.A.Median, 1e-9, "diff")
		}
	}
	assert.True(t, found, "diff has a requests_per_s row")

	code, out, errs = runCLI(t, "", "sweep", "--json", "--kind", "rate", "--level", file+"=1", file)
	require.Equal(t, 0, code, errs)
	var sw struct {
		Sweep struct {
			Levels []struct {
				Figures map[string]struct{ Median float64 }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &sw))
	require.Len(t, sw.Sweep.Levels, 1)
	assert.InDelta(t, own.Rate, sw.Sweep.Levels[0].Figures["requests_per_s"].Median, 1e-9, "sweep")
	assert.NotContains(t, sw.Sweep.Levels[0].Figures, "in_flight mean")
	assert.NotContains(t, sw.Sweep.Levels[0].Figures, "arrival_cv")

	code, out, errs = runCLI(t, "", "reconcile", "--json", file)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"request_throughput"`)
	var rc struct {
		Rows []struct {
			Key        string  `json:"tool_key"`
			LLMMetrics float64 `json:"llmmetrics"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &rc))
	found = false
	for _, r := range rc.Rows {
		if r.Key == "request_throughput" {
			found = true
			assert.InDelta(t, own.Rate, r.LLMMetrics, 1e-9, "reconcile")
		}
	}
	assert.True(t, found, "reconcile has a request_throughput row")
}

// An LLMPerf file has no send times and declares no window: every command
// says throughput is absent rather than inventing it, and the report's
// pictures have no timeline.
func TestOneWindowLLMPerf(t *testing.T) {
	file := realdata(t, "llmperf/ray-project__llmperf-leaderboard__fireworks_7b_individual_responses.json")
	code, out, errs := runCLI(t, "", "report", "--json", file)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `"throughput":"`)
	assert.NotContains(t, out, `"output_tokens_per_s"`)

	code, out, errs = runCLI(t, "", "diff", file, file)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "output_tokens_per_s (tokens/s)  ")
	assert.Contains(t, out, "not compared: output_tokens_per_s: A run 1 ("+file+") and B run 1 ("+file+") have no throughput window")

	code, out, errs = runCLI(t, "", "sweep", "--level", file+"=1", file)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "output_tokens_per_s")
	assert.NotContains(t, out, "in_flight")

	dir := t.TempDir()
	code, _, errs = runCLI(t, "", "report", "--plot", dir, file)
	require.Equal(t, 0, code, errs)
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	for _, e := range entries {
		assert.NotContains(t, e.Name(), "timeline")
	}
}
