package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/drive/trace"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// usageUpstream answers chat streams as llama.cpp's server does: a chunk
// a token, max_tokens of them, and usage when the request asks for it
// (stream_options.include_usage), its prompt tokens 20 + the words of the
// prompt. The model "unknown" gets a 404 whose message quotes the prompt,
// as validation errors of some servers do.
func usageUpstream(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			io.WriteString(w, `{"data":[{"id":"tiny"}]}`)
			return
		}
		var req struct {
			Model         string `json:"model"`
			MaxTokens     int    `json:"max_tokens"`
			StreamOptions struct {
				IncludeUsage bool `json:"include_usage"`
			} `json:"stream_options"`
			Messages []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || len(req.Messages) == 0 {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		prompt := req.Messages[0].Content
		if req.Model == "unknown" {
			quoted, _ := json.Marshal("model not found; input: " + prompt)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotFound)
			fmt.Fprintf(w, `{"error":{"code":404,"message":%s,"type":"not_found_error"}}`, quoted)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for k := range req.MaxTokens {
			fmt.Fprintf(w, `data: {"model":"tiny","choices":[{"index":0,"delta":{"content":" t%d"}}]}`+"\n\n", k)
			w.(http.Flusher).Flush()
		}
		io.WriteString(w, `data: {"model":"tiny","choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`+"\n\n")
		if req.StreamOptions.IncludeUsage {
			fmt.Fprintf(w, `data: {"model":"tiny","choices":[],"usage":{"prompt_tokens":%d,"completion_tokens":%d}}`+"\n\n", 20+len(strings.Fields(prompt)), req.MaxTokens)
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// secret marks the prompts the test sends: the file must not hold it.
const secret = "zebra-secret"

// prodRequest is request i of the production traffic: a prompt of 1 + i
// words (prompt tokens 21 + i at the upstream) and max_tokens 1 + i%6.
func prodRequest(i int, model string) string {
	words := secret + strings.Repeat(" w", i)
	body, _ := json.Marshal(map[string]any{"model": model, "stream": true, "max_tokens": 1 + i%6,
		"messages": []map[string]string{{"role": "user", "content": words}}})
	return string(body)
}

// recordProduction sends n requests through a gateway started with
// --include-usage --record FILE (the first n/2 one after another, the
// rest from three goroutines) and two to an unknown model, and stops the
// gateway. It returns the file, and for each sequential request i the
// interval its send time must lie in, from the records' epoch.
func recordProduction(t *testing.T, up string, n int) (path string, within [][2]time.Duration) {
	path = filepath.Join(t.TempDir(), "prod.jsonl")
	c, err := parseFlags([]string{"--upstream", up, "--include-usage", "--record", path}, io.Discard)
	require.NoError(t, err)
	before := time.Now()
	g, err := newGateway(c)
	require.NoError(t, err)
	after := time.Now() // the epoch is within [before, after]
	gw := httptest.NewServer(g)
	for i := range n / 2 {
		t0 := time.Now()
		assert.Equal(t, http.StatusOK, send(t, gw.URL, prodRequest(i, "tiny")))
		within = append(within, [2]time.Duration{t0.Sub(after), time.Since(before)})
	}
	var wg sync.WaitGroup
	for w := range 3 {
		wg.Go(func() {
			for i := n/2 + w; i < n; i += 3 {
				assert.Equal(t, http.StatusOK, send(t, gw.URL, prodRequest(i, "tiny")))
			}
		})
	}
	wg.Wait()
	for i := range 2 {
		assert.Equal(t, http.StatusNotFound, send(t, gw.URL, prodRequest(i, "unknown")))
	}
	gw.Close() // every call has ended, and been recorded
	require.NoError(t, g.Close())
	_, err = os.Stat(path)
	require.NoError(t, err)
	return path, within
}

// The production loop's first half, in process: the gateway's --record
// file holds every call, with the upstream's usage and the send times the
// test bracketed, and no prompt text; drive/trace (run --replay's
// reader) keeps every arrival and length of its ok calls.
func TestRecord(t *testing.T) {
	const n = 24
	up := usageUpstream(t)
	path, within := recordProduction(t, up.URL, n)
	b, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.False(t, bytes.Contains(b, []byte(secret)), "no prompt text: %s", b)
	assert.False(t, bytes.Contains(b, []byte(`"content"`)))

	run, err := llmmetrics.ReadJSONL(bytes.NewReader(b))
	require.NoError(t, err)
	require.NotNil(t, run.Header)
	require.NotNil(t, run.End)
	assert.True(t, run.Header.Ends)
	assert.Equal(t, up.URL, run.Header.Target)
	assert.Equal(t, "completed", run.End.State)
	assert.Equal(t, n+2, run.End.Written)
	require.Len(t, run.Records, n+2)
	byPrompt := map[int]llmmetrics.Record{} // request i has prompt tokens 21 + i
	for _, r := range run.Records {
		if r.Status != llmmetrics.StatusOK {
			assert.Equal(t, "HTTP 404: error.type 404", r.Message, "the status, not the server's words")
			continue
		}
		i := r.PromptTokens - 21
		require.True(t, i >= 0 && i < n, "prompt tokens %d", r.PromptTokens)
		assert.NotContains(t, byPrompt, i, "request %d twice", i)
		byPrompt[i] = r
		assert.Equal(t, 1+i%6, r.CompletionTokens, "request %d", i)
		assert.Len(t, r.Chunks, 1+i%6, "request %d: a chunk a token", i)
	}
	require.Len(t, byPrompt, n, "every ok request, once")
	for i, w := range within {
		assert.True(t, byPrompt[i].Sent >= w[0] && byPrompt[i].Sent <= w[1], "request %d sent at %v, outside [%v, %v]", i, byPrompt[i].Sent, w[0], w[1])
	}

	tr, err := trace.Read(path, "")
	require.NoError(t, err)
	assert.Equal(t, trace.LLMMetrics, tr.Format)
	rp, err := tr.Replay(trace.Options{})
	require.NoError(t, err)
	checkPlan(t, run, rp.Requests)
}

// checkPlan checks that a replay's requests are the ok records of run, in
// send order: each due at its send time from the first one's, with its
// prompt tokens and its output tokens as max_tokens.
func checkPlan(t *testing.T, run *llmmetrics.Run, reqs []drive.Request) {
	t.Helper()
	var ok []llmmetrics.Record
	for _, r := range run.Records {
		if r.Status == llmmetrics.StatusOK {
			ok = append(ok, r)
		}
	}
	slices.SortStableFunc(ok, func(a, b llmmetrics.Record) int { return int(a.Sent - b.Sent) })
	require.Len(t, reqs, len(ok))
	for i, r := range ok {
		assert.Equal(t, r.Sent-ok[0].Sent, reqs[i].Scheduled, "request %d's arrival", i)
		assert.Equal(t, r.PromptTokens, reqs[i].PromptTokens, "request %d's prompt", i)
		assert.Equal(t, r.CompletionTokens, reqs[i].MaxTokens, "request %d's output", i)
	}
}

// The production loop end to end with the command, as docs/run.md gives
// it: the gateway's --record file reads in report, run --replay --dry-run
// plans every arrival and length of it, run --replay sends them to a
// candidate server, and diff compares production with the candidate.
func TestRecordLoop(t *testing.T) {
	if testing.Short() {
		t.Skip("builds cmd/llmmetrics")
	}
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command to build cmd/llmmetrics:", err)
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "llmmetrics")
	build := exec.Command(goBin, "build", "-o", bin, "github.com/llmmetrics/llmmetrics/cmd/llmmetrics")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("building cmd/llmmetrics: %v\n%s", err, out)
	}
	llmmetricsCmd := func(args ...string) string {
		t.Helper()
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, args...)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "llmmetrics %s\n%s%s", strings.Join(args, " "), stdout.String(), stderr.String())
		return stdout.String()
	}

	const n = 24
	up := usageUpstream(t)
	prod, _ := recordProduction(t, up.URL, n)
	f, err := os.Open(prod)
	require.NoError(t, err)
	run, err := llmmetrics.ReadJSONL(f)
	f.Close()
	require.NoError(t, err)

	var report struct {
		Requests llmmetrics.Accounting `json:"requests"`
	}
	require.NoError(t, json.Unmarshal([]byte(llmmetricsCmd("report", "--json", prod)), &report))
	assert.Equal(t, n+2, report.Requests.Offered, "report counts every call")
	assert.Equal(t, n, report.Requests.OK)
	assert.Equal(t, 2, report.Requests.Failed)
	text := llmmetricsCmd("report", prod)
	assert.Contains(t, text, "by status: HTTP 404 ×2", "the failures' status, without the server's words")
	assert.NotContains(t, text, secret)

	plan := filepath.Join(dir, "plan.jsonl")
	llmmetricsCmd("run", "--replay", prod, "--dry-run", "--out", plan)
	pf, err := os.Open(plan)
	require.NoError(t, err)
	defer pf.Close()
	h, reqs, err := drive.ReadPlan(pf)
	require.NoError(t, err)
	assert.Equal(t, "llmmetrics", h.Load["replay_format"])
	checkPlan(t, run, reqs)

	cand := filepath.Join(dir, "cand.jsonl")
	llmmetricsCmd("run", "--replay", prod, "--url", up.URL+"/v1/chat/completions", "--model", "tiny", "--out", cand)
	cf, err := os.Open(cand)
	require.NoError(t, err)
	crun, err := llmmetrics.ReadJSONL(cf)
	cf.Close()
	require.NoError(t, err)
	sent := 0
	for _, r := range crun.Records {
		if !r.Warmup && r.Status == llmmetrics.StatusOK {
			sent++
		}
	}
	assert.Equal(t, n, sent, "the candidate answered every replayed request")
	out := llmmetricsCmd("diff", prod, cand)
	assert.Contains(t, out, "A = "+prod+", B = "+cand)
	assert.Contains(t, out, "ttft p99 (ms)")
}

// --record writes a new file only; --record-messages belongs to it.
func TestRecordFlags(t *testing.T) {
	path := filepath.Join(t.TempDir(), "prod.jsonl")
	require.NoError(t, os.WriteFile(path, []byte("yesterday's\n"), 0o644))
	c, err := parseFlags([]string{"--record", path}, io.Discard)
	require.NoError(t, err)
	_, err = newGateway(c)
	assert.ErrorContains(t, err, "--record: ")
	b, _ := os.ReadFile(path)
	assert.Equal(t, "yesterday's\n", string(b), "left as it was")
	c, err = parseFlags([]string{"--record-messages"}, io.Discard)
	require.NoError(t, err)
	_, err = newGateway(c)
	assert.ErrorContains(t, err, "--record-messages belongs to --record")
}
