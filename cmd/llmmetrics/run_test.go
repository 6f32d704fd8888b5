package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeLlama serves chat streams as llama.cpp's server does (role chunk with
// content null, one content chunk a token, finish chunk, usage chunk with
// timings) and a /metrics with its output-token counter; the prompt counts
// 20 template tokens plus one a word.
func fakeLlama(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var predicted, served atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/metrics":
			fmt.Fprintf(w, "# TYPE llamacpp:tokens_predicted_total counter\nllamacpp:tokens_predicted_total %d\n", predicted.Load())
			return
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"tiny"}]}`)
			return
		case "/v1/chat/completions":
		default:
			http.NotFound(w, r)
			return
		}
		served.Add(1)
		var body struct {
			MaxTokens int `json:"max_tokens"`
			Messages  []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		require.NoError(t, json.Unmarshal(b, &body))
		prompt := 20 + len(strings.Fields(body.Messages[0].Content))
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"role":"assistant","content":null}}]}`+"\n\n")
		for i := range body.MaxTokens {
			fmt.Fprintf(w, `data: {"choices":[{"index":0,"delta":{"content":" t%d"}}]}`+"\n\n", i)
			w.(http.Flusher).Flush()
		}
		predicted.Add(int64(body.MaxTokens))
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`+"\n\n")
		fmt.Fprintf(w, `data: {"choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d},"timings":{"prompt_n":%d,"prompt_ms":1.5,"predicted_n":%d,"predicted_ms":3.0}}`+"\n\ndata: [DONE]\n\n",
			prompt, body.MaxTokens, prompt, body.MaxTokens)
	}))
	t.Cleanup(srv.Close)
	return srv, &served
}

func TestRunCommand(t *testing.T) {
	srv, served := fakeLlama(t)
	dir := t.TempDir()
	out, timings := filepath.Join(dir, "run.jsonl"), filepath.Join(dir, "timings.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
		"--requests", "12", "--concurrency", "3", "--warmup", "2", "--prompt-tokens", "64", "--max-tokens", "8",
		"--scrape", srv.URL+"/metrics", "--out", out, "--timings", timings, "--env", "gpu=none", "--header", "X-Secret: hunter2", "--json")
	require.Equal(t, 0, code, errs)
	var got struct {
		Client struct {
			Requests llmmetrics.Accounting `json:"requests"`
			Run      llmmetrics.RunHeader  `json:"run"`
			Notes    []string              `json:"notes"`
		} `json:"client"`
		Server struct {
			Known struct {
				Agree        bool    `json:"agree"`
				ServerTokens float64 `json:"server_generation_tokens"`
			} `json:"known_output"`
		} `json:"server"`
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	a := got.Client.Requests
	// Two preflight requests size the prompts, then 2 warm-up and 12
	// measured: every request sent is counted once.
	assert.Equal(t, int64(16), served.Load())
	assert.Equal(t, 16, a.Offered)
	assert.Equal(t, 12, a.OK)
	assert.Equal(t, 4, a.Warmup)
	// The known-output check over the measured part: 12 × 8 tokens.
	assert.True(t, got.Server.Known.Agree)
	assert.Equal(t, 96.0, got.Server.Known.ServerTokens)
	h := got.Client.Run
	assert.Equal(t, "closed", h.Load["loop"])
	assert.Equal(t, "2", h.Load["warmup"])
	assert.Equal(t, "none", h.Env["gpu"])
	assert.Contains(t, string(h.Server["/v1/models"]), "tiny")
	assert.NotContains(t, stdout, "hunter2", "a header's value never appears in the output")
	assert.Contains(t, strings.Join(got.Client.Notes, " "), "preflight requests for 64 prompt tokens")

	// The file reads back with its header, and report gives the same counts.
	code, stdout, errs = runCLI(t, "", "report", "--json", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, `"offered":16,"ok":12`)
	assert.Contains(t, stdout, `"warmup":4`)
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.NotContains(t, string(b), "hunter2")
	first, _, _ := strings.Cut(string(b), "\n")
	assert.True(t, strings.HasPrefix(first, `{"llmmetrics_run":`))
	// The timings file feeds the server command's TTFT decomposition.
	tb, err := os.ReadFile(timings)
	require.NoError(t, err)
	assert.Equal(t, 16, strings.Count(string(tb), `"source":"llama.cpp"`))

	// The prompts were sized to 64 tokens as the server counts them.
	run, err := llmmetrics.ReadJSONL(strings.NewReader(string(b)))
	require.NoError(t, err)
	for _, r := range run.Records {
		if !r.Warmup {
			assert.InDelta(t, 64, r.PromptTokens, 1, r.ID)
		}
	}
}

func TestRunCommandErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		msg  string
	}{
		{[]string{"run"}, "needs --url"},
		{[]string{"run", "--url", "http://h/v1/chat/completions", "--prompt-tokens", "8"}, "either a number of requests or a duration"},
		{[]string{"run", "--url", "http://h/v1/chat/completions", "--requests", "3", "--prompt-tokens", "8"}, "a concurrency"},
		{[]string{"run", "--url", "http://h/v1/chat/completions", "--requests", "3", "--concurrency", "1"}, "--prompt-tokens or --prompts"},
		{[]string{"run", "--url", "http://h/x", "--requests", "3", "--concurrency", "1", "--prompt-tokens", "8", "--warmup", "soon"}, "--warmup"},
		{[]string{"run", "--url", "http://h/x", "--requests", "3", "--concurrency", "1", "--prompt-tokens", "8", "--body", "[1]"}, "--body"},
	} {
		code, _, errs := runCLI(t, "", c.args...)
		assert.Equal(t, 2, code, c.args)
		assert.Contains(t, errs, c.msg, c.args)
	}
}

// Two machines' files of one run are reported together, on the clock of
// the earlier start.
func TestReportMergesFiles(t *testing.T) {
	dir := t.TempDir()
	write := func(name, start string, sent int64) string {
		path := filepath.Join(dir, name)
		body := `{"llmmetrics_run":{"tool":"llmmetrics","start":"` + start + `"}}` + "\n" +
			fmt.Sprintf(`{"id":"1","sent_ns":%d,"chunk_arrivals_ns":[100000000,200000000],"completion_tokens":2}`, sent) + "\n"
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		return path
	}
	a := write("a.jsonl", "2026-11-30T10:00:00Z", 0)
	b := write("b.jsonl", "2026-11-30T10:00:01Z", 0)
	code, out, errs := runCLI(t, "", "report", "--json", a, b)
	require.Equal(t, 0, code, errs)
	var got struct {
		Requests   llmmetrics.Accounting `json:"requests"`
		Throughput struct {
			Window float64 `json:"window_s"`
		} `json:"throughput"`
		Notes []string `json:"notes"`
		TTFT  struct {
			IDs map[string]string `json:"request_ids"`
		} `json:"ttft_ms"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &got))
	assert.Equal(t, 2, got.Requests.OK)
	// b's request went 1 s after a's: the window runs from 0 to 1.2 s.
	assert.Equal(t, 1.2, got.Throughput.Window)
	assert.Contains(t, strings.Join(got.Notes, " "), "clock offset is unknown")
	assert.Equal(t, "1/1", got.TTFT.IDs["p50"])

	code, _, errs = runCLI(t, "", "report", a, "../../testdata/sample_run.jsonl")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "no header with its start time")
}
