package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// prodUnstreamed is a gateway's file of three ok calls: the second's four
// tokens came at once (one chunk: a call production made without
// streaming), the others streamed.
const prodUnstreamed = `{"id":"a","sent_ns":1000000,"chunk_arrivals_ns":[10000000,20000000,30000000],"prompt_tokens":30,"completion_tokens":3}
{"id":"b","sent_ns":2000000,"chunk_arrivals_ns":[25000000],"prompt_tokens":40,"completion_tokens":4}
{"id":"c","sent_ns":3000000,"first_text_ns":10000000,"last_text_ns":30000000,"prompt_tokens":50,"completion_tokens":5}
`

// A run file's call that production made without streaming is replayed
// so: its body has no "stream": true nor stream_options, the others
// stream; its answer, one JSON body, comes back as production's did, an
// ok request not streamed; the header and the notes say how many.
func TestReplayUnstreamed(t *testing.T) {
	llama, _ := fakeLlama(t)
	srv, bodies := bodyRecorder(t, llama.URL)
	prod := writeFile(t, "prod.jsonl", prodUnstreamed)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--replay", prod, "--out", out)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "not streamed: 1 ok request whose text came at once")
	assert.Contains(t, stdout, "1 of 3 requests replayed without streaming, as production sent them")

	bs := bodies()
	require.Len(t, bs, 5, "two sizing requests (one word, the salt), then the three calls")
	for _, b := range bs[2:] {
		if b["max_tokens"] == 4.0 {
			assert.NotContains(t, b, "stream", "the call of 4 tokens")
			assert.NotContains(t, b, "stream_options")
		} else {
			assert.Equal(t, true, b["stream"], "the call of %v tokens", b["max_tokens"])
		}
	}
	run, recs := readRecords(t, out)
	assert.Equal(t, "1 of 3 requests sent without streaming, as production sent them", run.Header.Load["unstreamed"])
	unstreamed := 0
	for _, r := range recs {
		if !r.Preflight && r.MaxTokens == 4 {
			unstreamed++
			assert.Equal(t, 4, r.CompletionTokens)
			assert.False(t, r.NoUsage, "usage read from the JSON body")
			assert.Equal(t, r.FirstText, r.LastText, "its text at once")
		}
	}
	assert.Equal(t, 1, unstreamed)
	// Production's own report counts the same call so.
	code, stdout, errs = runCLI(t, "", "report", prod)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "not streamed: 1 ok request whose text came at once")
}

// The plan of a replayed run file carries the mark, "stream": false, and
// reads back with it; --replay-stream streams every call, said.
func TestReplayUnstreamedPlan(t *testing.T) {
	prod := writeFile(t, "prod.jsonl", prodUnstreamed)
	dir := t.TempDir()
	plan := filepath.Join(dir, "plan.jsonl")
	code, stdout, errs := runCLI(t, "", "run", "--dry-run", "--model", "m", "--replay", prod, "--out", plan)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "1 of 3 requests replayed without streaming, as production sent them")
	b, err := os.ReadFile(plan)
	require.NoError(t, err)
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	require.Len(t, lines, 4)
	assert.NotContains(t, lines[1], `"stream"`)
	assert.Contains(t, lines[2], `"stream":false`)
	assert.NotContains(t, lines[3], `"stream"`)
	_, reqs, err := drive.ReadPlan(strings.NewReader(string(b)))
	require.NoError(t, err)
	assert.Equal(t, []bool{false, true, false}, []bool{reqs[0].Unstreamed, reqs[1].Unstreamed, reqs[2].Unstreamed})

	plan2 := filepath.Join(dir, "plan2.jsonl")
	code, stdout, errs = runCLI(t, "", "run", "--dry-run", "--model", "m", "--replay", prod, "--replay-stream", "--out", plan2)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "1 of 3 requests that production sent without streaming are replayed streamed (--replay-stream)")
	b, err = os.ReadFile(plan2)
	require.NoError(t, err)
	assert.NotContains(t, string(b), `"stream":false`)

	code, _, errs = runCLI(t, "", "run", "--dry-run", "--model", "m", "--replay-stream", "--requests", "3", "--prompt-tokens", "50")
	assert.Equal(t, 2, code)
	assert.Contains(t, errs, "--replay-stream belong to --replay")
}

// Calls production made without streaming cannot go to a TGI URL without
// /generate_stream: one line, status 2, nothing sent; --replay-stream
// sends them streamed.
func TestReplayUnstreamedRefused(t *testing.T) {
	srv, served := fakeLlama(t)
	prod := writeFile(t, "prod.jsonl", prodUnstreamed)
	for _, c := range []struct{ args []string }{
		{[]string{"--url", srv.URL + "/tgi", "--api", "tgi"}},
	} {
		args := append([]string{"run", "--model", "m", "--replay", prod}, c.args...)
		code, _, errs := runCLI(t, "", args...)
		assert.Equal(t, 2, code, c.args)
		assert.Equal(t, 1, strings.Count(errs, "\n"), "one line: %q", errs)
		assert.Contains(t, errs, "--replay: 1 of 3 requests were made without streaming in production (the first prod.jsonl:2)", c.args)
		assert.Contains(t, errs, "give --replay-stream to stream them all", c.args)
		code, _, errs = runCLI(t, "", append(args, "--replay-stream", "--dry-run")...)
		assert.Equal(t, 0, code, errs)
	}
	assert.Zero(t, served.Load(), "nothing is sent")
}

// A server that ignores "stream" and answers one JSON body without usage:
// each answer is counted not streamed, whatever its unknown count, so
// TTFT is absent with the reason (it once read each answer's E2E as its
// TTFT, with no note) and a gate on it cannot be judged (status 1, where
// it failed with status 3 on E2Es taken for TTFTs).
func TestRunOneBodyWithoutUsage(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id":"c1","object":"chat.completion","model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"hello there"},"finish_reason":"stop"}]}`)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "run.jsonl")
	args := []string{"run", "--url", srv.URL + "/v1/chat/completions", "--model", "m", "--requests", "4", "--concurrency", "2", "--prompt-tokens", "8", "--out", out}
	code, stdout, errs := runCLI(t, "", args...)
	require.Equal(t, 0, code, errs)
	assert.Contains(t, stdout, "not streamed: 4 ok requests whose text came at once")
	assert.Contains(t, stdout, "every ok request's text came at once (not streamed)")
	b, err := os.ReadFile(out)
	require.NoError(t, err)
	assert.Equal(t, 5, strings.Count(string(b), `"one_body":true`), "the sizing request and the four calls")
	code, _, errs = runCLI(t, "", "report", "--fail-if", "p99(ttft)>10ms", out)
	assert.Equal(t, 1, code, errs)
	assert.Contains(t, errs, "cannot be judged")
}
