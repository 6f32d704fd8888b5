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

// writeRun writes a JSONL run of 30 requests whose TTFT is base + i ms,
// each 11 tokens, one a second.
func writeRunFile(t *testing.T, dir, name string, base int) string {
	var b strings.Builder
	for i := range 30 {
		first := (base + i) * 1_000_000
		var chunks []string
		for k := range 11 {
			chunks = append(chunks, fmt.Sprint(first+k*20_000_000))
		}
		fmt.Fprintf(&b, `{"id":"r%d","status":"ok","sent_ns":%d,"chunk_arrivals_ns":[%s],"completion_tokens":11}`+"\n",
			i, i*1_000_000_000, strings.Join(chunks, ","))
	}
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

func TestDiffCommand(t *testing.T) {
	dir := t.TempDir()
	a1, a2, a3 := writeRunFile(t, dir, "a1.jsonl", 100), writeRunFile(t, dir, "a2.jsonl", 100), writeRunFile(t, dir, "a3.jsonl", 100)
	b1 := writeRunFile(t, dir, "b1.jsonl", 150)
	// Every B TTFT (150–179 ms) is above every A TTFT (100–129 ms).
	code, out, errs := runCLI(t, "", "diff", "--percentiles", "50", a1+","+a2+","+a3, b1)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "A: 3 run(s), B: 1 run(s)")
	// Per run, nearest-rank p50 is rank 15 of 30: 114 ms in each A run,
	// 164 ms in B. B's one run is above all three of A's: U = 0, the most
	// extreme of C(4, 1) = 4 splits, p = 2/4.
	// B's one run has no spread: "± ?", not "± 0%".
	assert.Regexp(t, `ttft p50 \(ms\)\s+114 ± 0%\s+164 ± \?\s+~ \(p=0\.500 n=3\+1\)`, out)
	assert.Regexp(t, `tpot p50 \(ms\)\s+20 ± 0%\s+20 ± \?\s+~ \(p=1\.000 n=3\+1\)`, out)
	assert.Contains(t, out, "± ? marks a side of one run: its spread between runs is unknown, not zero")
	assert.Contains(t, out, "need ≥ 4 runs a side for α = 0.05: with 3 + 1 runs the smallest possible p is 0.5, so no change can be significant")

	// Four runs a side reach it: p = 2/70.
	b2, b3, b4 := writeRunFile(t, dir, "b2.jsonl", 150), writeRunFile(t, dir, "b3.jsonl", 150), writeRunFile(t, dir, "b4.jsonl", 150)
	a4 := writeRunFile(t, dir, "a4.jsonl", 100)
	code, out, errs = runCLI(t, "", "diff", "--percentiles", "50", strings.Join([]string{a1, a2, a3, a4}, ","), strings.Join([]string{b1, b2, b3, b4}, ","))
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `ttft p50 \(ms\)\s+114 ± 0%\s+164 ± 0%\s+\+43\.86% \(p=0\.029 n=4\)`, out)
	assert.NotContains(t, out, "need ≥")

	// A run against itself: nothing changed.
	code, out, errs = runCLI(t, "", "diff", "--json", a1, a1)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, `"significant":true`)

	for _, args := range [][]string{{"diff", a1}, {"diff", a1, b1, a2}, {"diff", "--from", "vllm", a1, b1}} {
		code, _, errs = runCLI(t, "", args...)
		assert.Equal(t, 2, code, args)
		assert.NotEmpty(t, errs)
	}
	code, _, _ = runCLI(t, "", "diff", a1, filepath.Join(dir, "missing.jsonl"))
	assert.Equal(t, 1, code)

	// One file named four times a side is one run, not four: with the
	// four-a-side minimum it would reach p = 0.029 on nothing but repeats.
	code, _, errs = runCLI(t, "", "diff", strings.Join([]string{a1, a1, a1, a1}, ","), strings.Join([]string{b1, b2, b3, b4}, ","))
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "is given twice")
	code, _, errs = runCLI(t, "", "sweep", a1, filepath.Join(dir, ".", filepath.Base(a1)))
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "is given twice")
}

// A sweep of runs taken by llmmetrics run at two concurrencies, three
// repeats each, read from their headers; every request of the fake meets
// a generous SLO, so the capacity is bounded below only.
func TestSweepCommand(t *testing.T) {
	srv, _ := fakeLlama(t)
	dir := t.TempDir()
	var files []string
	for _, c := range []string{"1", "4"} {
		for k := range 3 {
			out := filepath.Join(dir, fmt.Sprintf("c%s-%d.jsonl", c, k))
			code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "8",
				"--concurrency", c, "--prompts", promptsFile(t), "--max-tokens", "4", "--out", out, "--env", "gpu=none", "--scrape", srv.URL+"/metrics")
			require.Equal(t, 0, code, errs)
			files = append(files, out)
		}
	}
	code, out, errs := runCLI(t, "", append([]string{"sweep", "--slo", "ttft=10s"}, files...)...)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `concurrency\s+1\s+4`, out)
	assert.Regexp(t, `runs\s+3\s+3`, out)
	assert.Contains(t, out, "environment: gpu=none")
	assert.NotContains(t, out, "warning:")
	assert.Contains(t, out, "the capacity is at least concurrency 4, the highest measured (not extrapolated)")
	// The scrapes kept beside each run give the server's token rate.
	assert.FileExists(t, filepath.Join(dir, "c1-0.before.prom"))
	assert.Regexp(t, `server output_tokens_per_s \(tokens/s\)\s+\S+ ±\S+\s+\S+ ±\S+`, out)

	code, out, errs = runCLI(t, "", append([]string{"sweep", "--json"}, files...)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, `{"sweep":{"kind":"concurrency"`)

	// A file without a level in a header needs --level.
	plain := writeRunFile(t, dir, "plain.jsonl", 100)
	code, _, errs = runCLI(t, "", "sweep", plain)
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "give --level")
	code, out, errs = runCLI(t, "", "sweep", "--level", plain+"=2", plain)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "warning: concurrency 2 has 1 run(s)")
	assert.Contains(t, out, "environment: not recorded")
}

// Real vLLM result files as the levels of a rate sweep.
func TestSweepRealVLLM(t *testing.T) {
	dir := "../../../shared/realdata/vllm"
	a := filepath.Join(dir, "surajssd__llm-k8s__llama33-70b-tp8-qps01.json")
	b := filepath.Join(dir, "surajssd__llm-k8s__deepseek-v25-qps16.json")
	if _, err := os.Stat(a); err != nil {
		t.Skip("../shared/realdata is absent: the vLLM files of the sweep test live there")
	}
	code, out, errs := runCLI(t, "", "sweep", "--kind", "rate", "--level", a+"=1", "--level", b+"=16", "--slo", "ttft=300ms", a, b)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `rate\s+1\s+16`, out)
	assert.Contains(t, out, "capacity")

	// With vLLM's percentile method, a level of one run gives that run's
	// percentiles: they match the p50 and p99 TTFT vLLM wrote in its file.
	code, out, errs = runCLI(t, "", "sweep", "--json", "--method", "linear", "--kind", "rate", "--level", a+"=1", "--level", b+"=16", a, b)
	require.Equal(t, 0, code, errs)
	var got struct {
		Sweep struct {
			Levels []struct {
				Figures map[string]struct{ Median float64 }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	for i, file := range []string{a, b} {
		raw, err := os.ReadFile(file)
		require.NoError(t, err)
		var v struct {
			Median float64 `json:"median_ttft_ms"`
			P99    float64 `json:"p99_ttft_ms"`
		}
		require.NoError(t, json.Unmarshal(raw, &v))
		assert.InDelta(t, v.Median, got.Sweep.Levels[i].Figures["ttft p50"].Median, 1e-6, file)
		assert.InDelta(t, v.P99, got.Sweep.Levels[i].Figures["ttft p99"].Median, 1e-6, file)
	}
}

// inference-perf's stage reports as the levels of a rate sweep: each
// stage's client and server reports are one run at its requested rate,
// their figures as the files give them (seconds there, ms here).
func TestSweepInferencePerf(t *testing.T) {
	prefix := "../../../shared/realdata/prometheus/kubernetes-sigs__inference-perf__vllm_stage_"
	if _, err := os.Stat(prefix + "2_lifecycle_metrics.json"); err != nil {
		t.Skip("../shared/realdata is absent: the inference-perf stage reports live there")
	}
	var files []string
	for _, n := range []string{"0", "2", "4"} {
		files = append(files, prefix+n+"_lifecycle_metrics.json", prefix+n+"_prometheus_metrics.json")
	}
	code, out, errs := runCLI(t, "", append([]string{"sweep", "--json"}, files...)...)
	require.Equal(t, 0, code, errs)
	var got struct {
		Sweep struct {
			Kind   string
			Levels []struct {
				Level   float64
				Runs    int
				Figures map[string]struct{ Median float64 }
			}
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, "rate", got.Sweep.Kind)
	require.Len(t, got.Sweep.Levels, 3)
	for i, n := range []string{"0", "2", "4"} {
		var client, server struct {
			Load struct {
				Rate float64 `json:"requested_rate"`
			} `json:"load_summary"`
			Successes struct {
				Latency struct {
					TTFT struct{ P99 float64 } `json:"time_to_first_token"`
				}
				TTFT struct{ Median float64 } `json:"time_to_first_token"`
			}
		}
		for _, f := range []struct {
			name string
			v    any
		}{{"_lifecycle_metrics.json", &client}, {"_prometheus_metrics.json", &server}} {
			b, err := os.ReadFile(prefix + n + f.name)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(b, f.v))
		}
		lv := got.Sweep.Levels[i]
		assert.Equal(t, client.Load.Rate, lv.Level)
		assert.Equal(t, 1, lv.Runs, "a stage's two reports are one run")
		// To the nanosecond: durations are whole nanoseconds.
		assert.InDelta(t, 1000*client.Successes.Latency.TTFT.P99, lv.Figures["ttft p99"].Median, 1e-6)
		assert.InDelta(t, 1000*server.Successes.TTFT.Median, lv.Figures["server ttft p50"].Median, 1e-6)
	}
	code, out, errs = runCLI(t, "", append([]string{"sweep"}, files...)...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "may include traffic from outside the stage")
}

// Another tool's file has no run header, but states its load: diff
// compares what it states (vLLM's request_rate 1 and 16 here).
func TestDiffWarnsForeignLoads(t *testing.T) {
	a := realdata(t, "vllm/surajssd__llm-k8s__llama33-70b-tp8-qps01.json")
	b := realdata(t, "vllm/surajssd__llm-k8s__deepseek-v25-qps16.json")
	code, out, errs := runCLI(t, "", "diff", a, b)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "WARNING: A and B differ in load rate_per_s: A 1, B 16\n")
	assert.NotContains(t, out, "has no run header")
	// A file against itself: no load differs, and the one warning says
	// that the sides are one run.
	code, out, errs = runCLI(t, "", "diff", a, a)
	require.Equal(t, 0, code, errs)
	assert.NotContains(t, out, "differ in")
	assert.Equal(t, 1, strings.Count(out, "WARNING"), out)
	assert.Contains(t, out, "WARNING: A and B are the same run: their measured records are identical")
}

// writeUsageRun writes a JSONL run of 10 ok requests, request i sent at
// i s with text 0.5 s and 1 s after it: its window, first send to last
// text, is 10 s. Each reports 10 output tokens, but the first
// uncounted carry no completion_tokens (no usage): the output rate counts
// the others, (10 − uncounted) × 10 tokens / 10 s, a lower bound when
// uncounted > 0.
func writeUsageRun(t *testing.T, dir, name string, uncounted int) string {
	var b strings.Builder
	for i := range 10 {
		usage := `,"completion_tokens":10`
		if i < uncounted {
			usage = ""
		}
		fmt.Fprintf(&b, `{"id":"r%d","status":"ok","sent_ns":%d,"chunk_arrivals_ns":[500000000,1000000000]%s}`+"\n",
			i, i*1_000_000_000, usage)
	}
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(b.String()), 0o644))
	return p
}

// An output rate that leaves out answers without a token count is a
// lower bound, and diff and sweep mark it: "≥" before the value, "lower_bound"
// in JSON with how many runs, and a note that its change is not a change
// of the rate (issue #30 [truth]: they compared it as an ordinary value).
// A's two runs count every answer: 100 tokens / 10 s = 10 /s each. B's
// leave out 5 and 2: 50 and 80 tokens / 10 s = 5 and 8 /s, median 6.5,
// MAD 1.5 (23 % of 6.5).
func TestDiffSweepLowerBound(t *testing.T) {
	dir := t.TempDir()
	a1, a2 := writeUsageRun(t, dir, "a1.jsonl", 0), writeUsageRun(t, dir, "a2.jsonl", 0)
	b1, b2 := writeUsageRun(t, dir, "b1.jsonl", 5), writeUsageRun(t, dir, "b2.jsonl", 2)

	code, out, errs := runCLI(t, "", "diff", a1+","+a2, b1+","+b2)
	require.Equal(t, 0, code, errs)
	// B's bound is below A's rate: the true rate may be above it, so the
	// row gives no direction ("?"), whatever the test's p.
	assert.Regexp(t, `output_tokens_per_s \(tokens/s\)\s+10 ± 0%\s+≥6\.5 ± 23%\s+\? \(a lower bound, p=0\.333 n=2\)`, out)
	assert.Regexp(t, `requests_per_s \(requests/s\)\s+1 ± 0%\s+1 ± 0%`, out, "a rate of known counts is not marked")
	assert.Contains(t, out, "≥ marks a lower bound: output_tokens_per_s counts only the ok requests with a usable output token count in 0 of A's 2 runs and 2 of B's 2; the change of a lower bound is not a change of the rate\n")
	assert.Equal(t, 1, strings.Count(out, "≥ marks"))

	code, out, errs = runCLI(t, "", "diff", "--json", a1+","+a2, b1+","+b2)
	require.Equal(t, 0, code, errs)
	var d struct {
		Rows []struct {
			Name       string
			B          struct{ Median float64 }
			LowerBound *bool              `json:"lower_bound"`
			Runs       struct{ A, B int } `json:"lower_bound_runs"`
			Note       string             `json:"lower_bound_note"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &d))
	marked := 0
	for _, r := range d.Rows {
		if r.Name != "output_tokens_per_s" {
			assert.Nil(t, r.LowerBound, r.Name)
			continue
		}
		marked++
		require.NotNil(t, r.LowerBound)
		assert.True(t, *r.LowerBound)
		assert.Equal(t, 6.5, r.B.Median)
		assert.Equal(t, 0, r.Runs.A)
		assert.Equal(t, 2, r.Runs.B)
		assert.Contains(t, r.Note, "the change of a lower bound is not a change of the rate")
	}
	assert.Equal(t, 1, marked)

	// A against itself: no bound, no mark.
	code, out, errs = runCLI(t, "", "diff", a1+","+a2, a1+","+a2)
	require.Equal(t, 0, code, errs)
	assert.NotRegexp(t, `≥\d`, out)
	assert.NotContains(t, out, "≥ marks")

	// The sweep: A at concurrency 1, B at 2.
	args := []string{"sweep", "--level", a1 + "=1", "--level", a2 + "=1", "--level", b1 + "=2", "--level", b2 + "=2", a1, a2, b1, b2}
	code, out, errs = runCLI(t, "", args...)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `output_tokens_per_s \(tokens/s\)\s+10 ±0\s+≥6\.5 ±1\.5`, out)
	assert.Contains(t, out, "≥ marks a lower bound: output_tokens_per_s counts only the ok requests with a usable output token count at concurrency 2 (2 of 2 runs); the change of a lower bound is not a change of the rate\n")

	code, out, errs = runCLI(t, "", append([]string{"sweep", "--json"}, args[1:]...)...)
	require.Equal(t, 0, code, errs)
	type fig struct {
		Median     float64
		LowerBound *bool `json:"lower_bound"`
		Runs       int   `json:"lower_bound_runs"`
	}
	var sw struct {
		Sweep struct {
			Levels []struct {
				Level   float64
				Figures map[string]fig
			}
			Notes []string `json:"lower_bound_notes"`
		}
	}
	require.NoError(t, json.Unmarshal([]byte(out), &sw))
	require.Len(t, sw.Sweep.Levels, 2)
	one, two := sw.Sweep.Levels[0].Figures["output_tokens_per_s"], sw.Sweep.Levels[1].Figures["output_tokens_per_s"]
	assert.Equal(t, 10.0, one.Median)
	assert.Nil(t, one.LowerBound)
	assert.Equal(t, 6.5, two.Median)
	require.NotNil(t, two.LowerBound)
	assert.True(t, *two.LowerBound)
	assert.Equal(t, 2, two.Runs)
	assert.Nil(t, sw.Sweep.Levels[1].Figures["requests_per_s"].LowerBound)
	require.Len(t, sw.Sweep.Notes, 1)
	assert.Contains(t, sw.Sweep.Notes[0], "the change of a lower bound is not a change of the rate")
}

// A figure one side's run lacks is not compared, and the line says which
// run lacks it: here B's file stores no send times, so B's run has no
// throughput window and A's has one.
func TestDiffNamesRunWithoutWindow(t *testing.T) {
	dir := t.TempDir()
	a := writeRunFile(t, dir, "a.jsonl", 100)
	text, err := os.ReadFile(a)
	require.NoError(t, err)
	var b strings.Builder
	for line := range strings.Lines(string(text)) {
		var rec map[string]any
		require.NoError(t, json.Unmarshal([]byte(line), &rec))
		delete(rec, "sent_ns")
		out, err := json.Marshal(rec)
		require.NoError(t, err)
		b.Write(append(out, '\n'))
	}
	unsent := filepath.Join(dir, "unsent.jsonl")
	require.NoError(t, os.WriteFile(unsent, []byte(b.String()), 0o644))

	code, out, errs := runCLI(t, "", "diff", a, unsent)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, out, "not compared: output_tokens_per_s: B run 1 ("+unsent+") has no throughput window: ")
	assert.Contains(t, out, "not compared: requests_per_s: B run 1 ("+unsent+") has no throughput window: ")
	assert.NotContains(t, out, "A run 1 has no throughput window")
}
