package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// refusingServer is a fake llama.cpp that answers the preflight requests
// (max_tokens 1: the test, sizing and salt requests), so that the load
// begins, and fails every measured request with a 503 and the server's
// words; it counts the requests it failed.
func refusingServer(t *testing.T) (*httptest.Server, *atomic.Int64) {
	var failed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		var body struct {
			MaxTokens int `json:"max_tokens"`
			Messages  []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		if body.MaxTokens != 1 {
			failed.Add(1)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"error":{"code":503,"message":"the model is loading","type":"unavailable_error"}}`)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		prompt := 20 + len(strings.Fields(body.Messages[0].Content))
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n", prompt)
	}))
	t.Cleanup(srv.Close)
	return srv, &failed
}

// A search every probe of which measured nothing exits with status 4
// after its report, as run does (issue #30 [truth]: it exited 0 with a
// capacity "below concurrency 1" read from failures alone). The one
// probe, at concurrency 1, sends 2 measured requests, both failed.
func TestSearchNothingMeasured(t *testing.T) {
	srv, failed := refusingServer(t)
	for _, asJSON := range []bool{false, true} {
		args := []string{"run", "--search", "concurrency", "--slo", "ttft=10s", "--search-max", "4", "--repeats", "1",
			"--url", srv.URL + "/v1/chat/completions", "--model", "tiny", "--requests", "2", "--prompts", promptsFile(t),
			"--max-tokens", "3", "--out", filepath.Join(t.TempDir(), "probe.jsonl")}
		if asJSON {
			args = append(args, "--json")
		}
		failed.Store(0)
		code, stdout, errs := runBinary(t, args...)
		assert.Equal(t, 4, code, errs)
		assert.Equal(t, int64(2), failed.Load())
		assert.Contains(t, errs, "every measured request failed: 2 of 2 in the search's 1 probe")
		assert.Contains(t, errs, "the model is loading", "the server's words")
		if asJSON {
			assert.Contains(t, stdout, `{"search":`, "the report comes first")
		} else {
			assert.Contains(t, stdout, "probes (attainment against SLO", "the report comes first")
		}
	}
}

// A breakdown none of whose measured requests ended ok exits with status
// 4 after its report, as run does (issue #30 [truth]: it exited 0). The
// first request of the first length fails; the other five are not sent.
func TestBreakdownNothingMeasured(t *testing.T) {
	srv, failed := refusingServer(t)
	out := filepath.Join(t.TempDir(), "bd.jsonl")
	code, stdout, errs := runBinary(t, "run", "--ttft-breakdown", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny",
		"--prompt-lengths", "32,64", "--repeats", "3", "--settle", "1ms", "--out", out)
	assert.Equal(t, 4, code, errs)
	assert.Equal(t, int64(1), failed.Load())
	assert.Contains(t, errs, "every measured request failed: 1 of 1, and 5 not sent (after the failure at 32 tokens); the first failure: request len32-1: error")
	assert.Contains(t, errs, "the model is loading", "the server's words")
	assert.Contains(t, stdout, "prompt length 32 tokens: 1 sent: 0 decomposed, 1 failed", "the report comes first")
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	require.NotNil(t, run.End)
	assert.Equal(t, "completed", run.End.State, "the file is whole")

	// One ok request is a measurement: status 0.
	srv2, _ := heldAfter(t, 100)
	code, _, errs = runBinary(t, "run", "--ttft-breakdown", "--url", srv2.URL+"/v1/chat/completions", "--model", "tiny",
		"--prompt-lengths", "32", "--repeats", "1", "--settle", "1ms")
	assert.Equal(t, 0, code, errs)
}
