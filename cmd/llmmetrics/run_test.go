package main

import (
	"bytes"
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
// timings), a request without "stream": true its whole answer in one JSON
// body with usage, and a /metrics with its output-token counter; the
// prompt counts 20 template tokens plus one a word.
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
			MaxTokens int  `json:"max_tokens"`
			Stream    bool `json:"stream"`
			Messages  []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		require.NoError(t, json.Unmarshal(b, &body))
		prompt := 20 + len(strings.Fields(body.Messages[0].Content))
		if !body.Stream { // the whole answer in one JSON body
			predicted.Add(int64(body.MaxTokens))
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"%s"},"finish_reason":"length"}],"usage":{"prompt_tokens":%d,"completion_tokens":%d}}`,
				strings.Repeat(" t", body.MaxTokens), prompt, body.MaxTokens)
			return
		}
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
	// measured: every request sent is counted once, each in one category.
	assert.Equal(t, int64(16), served.Load())
	assert.Equal(t, 16, a.Offered)
	assert.Equal(t, 12, a.OK)
	assert.Equal(t, 2, a.Warmup)
	assert.Equal(t, 2, a.Preflight)
	// The known-output check over the measured part: 12 × 8 tokens.
	assert.True(t, got.Server.Known.Agree)
	assert.Equal(t, 96.0, got.Server.Known.ServerTokens)
	h := got.Client.Run
	assert.Equal(t, "closed", h.Load["loop"])
	assert.Equal(t, "2", h.Load["warmup"])
	assert.Equal(t, "none", h.Env["gpu"])
	assert.Contains(t, string(h.Server["/v1/models"]), "tiny")
	assert.NotContains(t, stdout, "hunter2", "a header's value never appears in the output")
	assert.Contains(t, strings.Join(got.Client.Notes, " "), "prompts of 43 words for the 64 prompt tokens asked")

	// The file reads back with its header, and report gives the same counts.
	code, stdout, errs = runCLI(t, "", "report", "--json", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, `"offered":16,"ok":12`)
	assert.Contains(t, stdout, `"warmup":2`)
	assert.Contains(t, stdout, `"preflight":2}`)
	// The sizing note is kept in the file's end line, and report says it;
	// the sizing requests are preflight, apart from the warm-up (issue
	// #21, point 9: report had no note, and "+ 4 warm-up").
	assert.Contains(t, stdout, `"notes":["prompts of 43 words for the 64 prompt tokens asked`)
	code, stdout, errs = runCLI(t, "", "report", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "requests: 16 offered = 12 ok + 0 zero-token + 0 failed + 0 rejected + 2 warm-up + 2 preflight (not measured)\n")
	assert.Contains(t, stdout, "  - prompts of 43 words for the 64 prompt tokens asked: 64 tokens as the server counts them")
	assert.Contains(t, stdout, "  - Warm-up: a fixed warm-up of 2 requests.\n")
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
		{[]string{"run", "--url", "http://h/x", "--ttft-breakdown", "--requests", "3", "--concurrency", "2"}, "--concurrency, --requests belong to a load run"},
		{[]string{"run", "--url", "http://h/x", "--ttft-breakdown", "--prompt-lengths", "128,x"}, `"x" is not a token count`},
		{[]string{"run", "--url", "http://h/x", "--ttft-breakdown", "--prompt-lengths", "128,128"}, "given twice"},
		{[]string{"run", "--url", "http://h/x", "--ttft-breakdown", "--repeats", "0"}, "at least one request per length"},
		{[]string{"run", "--url", "http://h/x", "--search", "concurrency", "--slo", "ttft=1s", "--repeats", "0"}, "--repeats 0: --search needs at least one run"},
		{[]string{"run", "--url", "http://h/x", "--ttft-breakdown", "--settle", "0s"}, "--settle must be positive"},
		{[]string{"run", "--url", "http://h/x", "--requests", "3", "--concurrency", "1", "--prompt-tokens", "8", "--repeats", "3"}, "--repeats belongs to --search or --ttft-breakdown"},
		{[]string{"run", "--url", "http://h/x", "--requests", "3", "--prompt-tokens", "8", "--search", "concurrency"}, "--search needs --slo"},
		{[]string{"run", "--url", "http://h/x", "--requests", "3", "--prompt-tokens", "8", "--search", "qps", "--slo", "ttft=1s"}, `--search "qps"`},
		{[]string{"run", "--url", "http://h/x", "--requests", "3", "--concurrency", "2", "--prompt-tokens", "8", "--search", "concurrency", "--slo", "ttft=1s"}, "leave --concurrency and --rate out"},
		{[]string{"run", "--url", "http://h/x", "--requests", "3", "--prompt-tokens", "8", "--search", "concurrency", "--slo", "ttft=1s", "--ttft-breakdown"}, "two different runs"},
		{[]string{"run", "--url", "http://h/x", "--requests", "3", "--concurrency", "1", "--prompt-tokens", "8", "--target", "0.5"}, "--target belong to --search"},
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
			fmt.Sprintf(`{"id":%q,"sent_ns":%d,"chunk_arrivals_ns":[100000000,200000000],"completion_tokens":2}`, name, sent) + "\n"
		require.NoError(t, os.WriteFile(path, []byte(body), 0o644))
		return path
	}
	a := write("a.jsonl", "2026-11-30T10:00:00Z", 0)
	b := write("b.jsonl", "2026-11-30T10:00:00.1Z", 0)
	code, out, errs := runCLI(t, "", "report", "--json", "--merge", a, b)
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
	// b's request went 0.1 s after a's: the window runs from 0 to 0.3 s.
	assert.Equal(t, 0.3, got.Throughput.Window)
	assert.Contains(t, strings.Join(got.Notes, " "), "clock offset is unknown")
	assert.Equal(t, "1/a.jsonl", got.TTFT.IDs["p50"])

	code, _, errs = runCLI(t, "", "report", "--merge", a, "../../testdata/sample_run.jsonl")
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "--merge: ../../testdata/sample_run.jsonl has no run header with a start time")
}

// breakdownJSON is the JSON report of run --ttft-breakdown.
type breakdownJSON struct {
	B struct {
		Salt      string
		SaltNote  string `json:"salt_note"`
		Sent      int
		Preflight int
		Skipped   int
		MaxTokens int `json:"max_tokens"`
		Lengths   []struct {
			Asked         int `json:"prompt_tokens_asked"`
			Sent          int
			Decomposed    int
			Failed        int
			Skipped       int
			Failure       string
			SkipReason    string `json:"skip_reason"`
			ServerPrompt  []int  `json:"server_prompt_tokens"`
			Cached        []*int `json:"cached_prompt_tokens"`
			Decomposition struct {
				Rows []struct {
					ClientTTFT     float64  `json:"client_ttft_ms"`
					Queue          *float64 `json:"queue_ms"`
					Prefill        *float64 `json:"prefill_ms"`
					ClientOverhead *float64 `json:"client_overhead_ms"`
				}
			}
			GPU []map[string]any
		}
	} `json:"ttft_breakdown"`
}

// standInGPU puts the gpu package's stand-in nvidia-smi first on PATH.
func standInGPU(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("internal", "gpu", "testdata", "nvidia-smi"))
	require.NoError(t, err)
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "nvidia-smi"), src, 0o755))
	t.Setenv("PATH", dir+string(os.PathListSeparator)+os.Getenv("PATH"))
}

// oomAbove wraps a server so that a chat request whose prompt has more
// than words words is answered HTTP 500, out of memory.
func oomAbove(t *testing.T, next http.Handler, words int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/chat/completions" {
			var body struct {
				Messages []struct{ Content string }
			}
			require.NoError(t, json.Unmarshal(b, &body))
			if len(strings.Fields(body.Messages[0].Content)) > words {
				http.Error(w, `{"error":{"code":500,"message":"failed to allocate KV cache: out of memory"}}`, http.StatusInternalServerError)
				return
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		next.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The TTFT breakdown against a llama.cpp-like server: its timings give the
// prefill, the rest is unknown; a length that runs out of memory stops the
// run, and the longer one is skipped with the reason; the GPU telemetry is
// summarized per length.
func TestRunBreakdown(t *testing.T) {
	standInGPU(t)
	llama, served := fakeLlama(t)
	srv := oomAbove(t, llama.Config.Handler, 150)
	dir := t.TempDir()
	out, timings := filepath.Join(dir, "bd.jsonl"), filepath.Join(dir, "timings.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--ttft-breakdown", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
		"--prompt-lengths", "512,64,128", "--repeats", "3", "--settle", "250ms", "--gpu-telemetry", "--gpu-interval", "5ms", "--out", out, "--timings", timings, "--json")
	require.Equal(t, 0, code, errs)
	var got breakdownJSON
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	b := got.B
	// The fake reports no cached tokens: the text salt.
	assert.Equal(t, "text", b.Salt)
	assert.Contains(t, b.SaltNote, "does not report cached prompt tokens")
	assert.Equal(t, 16, b.MaxTokens, "the breakdown's default")
	// 2 sizing + 2 salt preflight requests, 3 + 3 at 64 and 128, then the
	// first at 512 fails (its prompt has more than 150 words) and the
	// other 2 are skipped.
	assert.Equal(t, 4, b.Preflight)
	assert.Equal(t, 4+3+3+1, b.Sent)
	assert.Equal(t, int64(b.Sent), served.Load()+1, "the failed request never reached the fake")
	assert.Equal(t, 2, b.Skipped)
	require.Len(t, b.Lengths, 3)
	for i, want := range []int{64, 128} {
		l := b.Lengths[i]
		assert.Equal(t, want, l.Asked)
		assert.Equal(t, 3, l.Decomposed)
		// The fake counts words + 20 and the salt is one word: the two
		// sizing requests found 1 token a word and 21 fixed.
		assert.Equal(t, []int{want, want, want}, l.ServerPrompt)
		assert.Equal(t, []*int{nil, nil, nil}, l.Cached, "the server did not say")
		for _, r := range l.Decomposition.Rows {
			require.NotNil(t, r.Prefill)
			assert.Equal(t, 1.5, *r.Prefill, "llama.cpp's prompt_ms")
			assert.Nil(t, r.Queue)
			assert.Nil(t, r.ClientOverhead)
			assert.Positive(t, r.ClientTTFT)
		}
		require.NotEmpty(t, l.GPU, "samples during the length's requests")
		assert.Equal(t, 0.0, l.GPU[0]["index"])
		assert.Equal(t, 300.5, l.GPU[0]["power_max_w"])
		assert.Equal(t, 0.0, l.GPU[1]["power_n"], "GPU 1 reports no power")
	}
	l := b.Lengths[2]
	assert.Equal(t, 512, l.Asked)
	assert.Equal(t, 1, l.Sent)
	assert.Equal(t, 1, l.Failed)
	assert.Contains(t, l.Failure, "request len512-1: error: HTTP 500")
	assert.Contains(t, l.Failure, "out of memory")
	assert.Equal(t, 2, l.Skipped)
	assert.Equal(t, "after the failure at 512 tokens", l.SkipReason)

	// Every request sent is in the file after its header, and the timings
	// file feeds the server command.
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	assert.Len(t, run.Records, b.Sent)
	assert.Equal(t, "ttft-breakdown", run.Header.Load["mode"])
	assert.Equal(t, "text", run.Header.Load["salt"])
	assert.Equal(t, "NVIDIA H100 80GB HBM3", run.Header.Env["gpu"])
	assert.Len(t, run.Header.ID, 26, "a run id (crypto/rand.Text) names the run in every copy of its file")
	code, stdout, errs = runCLI(t, "", "server", "--records", out, "--timings", timings, "--json")
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, `"prefill_ms":1.5`)

	// The table says the same.
	code, stdout, errs = runCLI(t, "", "run", "--ttft-breakdown", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
		"--prompt-lengths", "64,512", "--repeats", "2", "--settle", "1ms")
	require.Equal(t, 0, code, errs)
	for _, want := range []string{
		"cache isolation: text salt: the server does not report cached prompt tokens",
		"prompt length 64 tokens: 2 sent: 2 decomposed, 0 failed, 0 left out",
		"prompt tokens as the server counted them: 64, 64; cached prompt tokens: unknown, unknown",
		"prompt length 512 tokens: 1 sent: 0 decomposed, 1 failed, 0 left out (no text to time); 1 skipped: after the failure at 512 tokens",
		"failed: request len512-1: error: HTTP 500",
		"requests: 7 sent (4 preflight, marked warm-up), 1 skipped",
	} {
		assert.Contains(t, stdout, want)
	}
}

// --gpu-telemetry on a load run summarizes the samples of the measured
// part; without nvidia-smi it is refused before anything is sent.
func TestRunGPUTelemetry(t *testing.T) {
	srv, served := fakeLlama(t)
	t.Setenv("PATH", t.TempDir())
	args := []string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--requests", "20", "--concurrency", "2",
		"--prompts", promptsFile(t), "--max-tokens", "4", "--gpu-telemetry", "--gpu-interval", "5ms"}
	code, _, errs := runCLI(t, "", args...)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "--gpu-telemetry: gpu: nvidia-smi not found")
	assert.Zero(t, served.Load())

	standInGPU(t)
	code, stdout, errs := runCLI(t, "", append(args, "--json")...)
	require.Equal(t, 0, code, errs)
	var got struct {
		GPU struct {
			Level string
			GPUs  []map[string]any
		}
	}
	require.NoError(t, json.Unmarshal([]byte(stdout), &got), stdout)
	assert.Equal(t, "closed loop, concurrency 2", got.GPU.Level)
	code, stdout, errs = runCLI(t, "", args...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "GPU telemetry over the measured part (closed loop, concurrency 2):")
}

func promptsFile(t *testing.T) string {
	p := filepath.Join(t.TempDir(), "prompts.txt")
	require.NoError(t, os.WriteFile(p, []byte("hello there\n"), 0o644))
	return p
}

// The capacity search through the command: the fake meets a 10 s TTFT at
// every level, so the search doubles to --search-max and repeats it; each
// probe's file, with its level in the header, feeds sweep.
func TestRunSearch(t *testing.T) {
	srv, served := fakeLlama(t)
	dir := t.TempDir()
	out := filepath.Join(dir, "probe.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--search", "concurrency", "--slo", "ttft=10s", "--search-max", "4", "--repeats", "2",
		"--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "6", "--prompts", promptsFile(t), "--max-tokens", "3", "--out", out)
	require.Equal(t, 0, code, errs)
	for _, want := range []string{
		" 1. concurrency 1        attainment 1: meets the target",
		" 3. concurrency 4        attainment 1: meets the target",
		" 4. concurrency 4        attainment 1: meets the target (repeat)",
		"every level up to the highest allowed, concurrency 4, meets the target (median attainment 1 over 2 runs)",
		"DistServe's framing",
	} {
		assert.Contains(t, stdout, want)
	}
	assert.Equal(t, int64(1+4*6), served.Load(), "the test request and four probes")
	files, err := filepath.Glob(filepath.Join(dir, "probe-concurrency*.jsonl"))
	require.NoError(t, err)
	require.Len(t, files, 4)
	pre, err := llmmetrics.ReadJSONL(mustOpen(t, filepath.Join(dir, "probe-preflight.jsonl")))
	require.NoError(t, err)
	require.Len(t, pre.Records, 1)
	assert.Equal(t, "test-1", pre.Records[0].ID)
	code, stdout, errs = runCLI(t, "", append([]string{"sweep", "--slo", "ttft=10s"}, files...)...)
	require.Equal(t, 0, code, errs)
	assert.Regexp(t, `concurrency\s+1\s+2\s+4`, stdout)
	assert.Regexp(t, `runs\s+1\s+1\s+2`, stdout)
}

// --prompt-tokens below the template's own size stops the run after its
// sizing requests, which were answered: the end line names the size asked,
// not a failed request, and keeps the reason for report (the fake counts
// 20 tokens of template and one a word, so a one-word prompt with its
// salt is 22 tokens).
func TestPromptTokensTooFew(t *testing.T) {
	srv, _ := fakeLlama(t)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "2",
		"--concurrency", "1", "--prompt-tokens", "5", "--out", out)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, "prompts of 5 tokens are shorter than the smallest this server allows: a one-word prompt counts 22 tokens (the word,")
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	require.NotNil(t, run.End)
	assert.Equal(t, "--prompt-tokens below the smallest prompt", run.End.By)
	for _, r := range run.Records {
		assert.Equal(t, llmmetrics.StatusOK, r.Status, "the sizing request %s was answered", r.ID)
	}
	_, stdout, _ := runCLI(t, "", "report", out)
	assert.Contains(t, stdout, "INTERRUPTED by --prompt-tokens below the smallest prompt")
	assert.Contains(t, stdout, "a one-word prompt counts 22 tokens")
}
