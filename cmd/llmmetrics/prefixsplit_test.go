package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Template parts of splitTemplateLlama: 5 tokens before the message, 15
// after it (20 in all, as fakeLlama's).
const splitOpening, splitClosing = 5, 15

// splitTemplateLlama is a chat server whose template, like ChatML's,
// parts around the message: splitOpening tokens before it (BOS, the user
// header), splitClosing after it (end of turn, the assistant header); a
// word of the message is a token. Its prefix cache, like a radix cache,
// reports as cached_tokens the longest run of tokens, from the start,
// that the prompt has in common with any prompt sent before.
func splitTemplateLlama(t *testing.T) *httptest.Server {
	var mu sync.Mutex
	var seen [][]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprint(w, `{"data":[{"id":"tiny"}]}`)
			return
		case "/v1/chat/completions":
		default:
			http.NotFound(w, r)
			return
		}
		var body struct {
			MaxTokens int  `json:"max_tokens"`
			Stream    bool `json:"stream"`
			Messages  []struct {
				Content string `json:"content"`
			} `json:"messages"`
		}
		b, _ := io.ReadAll(r.Body)
		require.NoError(t, json.Unmarshal(b, &body))
		toks := strings.Split(strings.Repeat("<open> ", splitOpening), " ")[:splitOpening]
		toks = append(toks, strings.Fields(body.Messages[0].Content)...)
		toks = append(toks, strings.Split(strings.Repeat("<close> ", splitClosing), " ")[:splitClosing]...)
		mu.Lock()
		cached := 0
		for _, old := range seen {
			n := 0
			for n < min(len(old), len(toks)) && old[n] == toks[n] {
				n++
			}
			cached = max(cached, n)
		}
		seen = append(seen, toks)
		mu.Unlock()
		usage := fmt.Sprintf(`{"prompt_tokens":%d,"completion_tokens":%d,"prompt_tokens_details":{"cached_tokens":%d}}`, len(toks), body.MaxTokens, cached)
		text := strings.Repeat(" t", body.MaxTokens)
		if !body.Stream {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"choices":[{"index":0,"message":{"role":"assistant","content":"%s"},"finish_reason":"length"}],"usage":%s}`, text, usage)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		for range body.MaxTokens {
			fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":" t"}}]}`+"\n\n")
		}
		fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"length"}]}`+"\n\n")
		fmt.Fprintf(w, `data: {"choices":[],"usage":%s}`+"\n\ndata: [DONE]\n\n", usage)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// cachedByPlace runs the CLI's run against a splitTemplateLlama with
// args, plans it with --dry-run, and returns the plan, the header's
// stated prefix sharing and each measured request's record by its place
// in the plan.
func cachedByPlace(t *testing.T, args ...string) ([]drive.Request, string, []llmmetrics.Record) {
	dir := t.TempDir()
	planFile, out := filepath.Join(dir, "plan.jsonl"), filepath.Join(dir, "run.jsonl")
	code, _, errs := runCLI(t, "", append([]string{"run", "--dry-run", "--out", planFile}, args...)...)
	require.Equal(t, 0, code, errs)
	h, plan, err := drive.ReadPlan(mustOpen(t, planFile))
	require.NoError(t, err)
	srv := splitTemplateLlama(t)
	code, _, errs = runCLI(t, "", append([]string{"run", "--url", srv.URL + "/v1/chat/completions", "--out", out}, args...)...)
	require.Equal(t, 0, code, errs)
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	recs := make([]llmmetrics.Record, len(plan))
	for _, r := range run.Records {
		if r.Preflight {
			continue
		}
		n, err := strconv.Atoi(r.ID)
		require.NoError(t, err)
		recs[n-1] = r
	}
	return plan, h.Load["prefix_sharing"], recs
}

// Under a template that parts around the message, a prefix of
// --prefix-tokens 200 is the prompt's first 200 tokens as the server
// counts them, its template's opening included: every request after its
// group's first finds exactly 200 tokens cached (the 5 of the opening,
// the group's salt and 194 words; its own tail's salt parts it), the
// others only the opening's 5, and the planned share (18 requests of 20
// after their group's first: 18·200 = 3600 of 20·300 = 6000 tokens) is
// what the cache reused of the requests that share. Sizing the block with
// the whole template before the message left it 15 tokens short (185).
func TestPrefixGroupsSplitTemplate(t *testing.T) {
	plan, sharing, recs := cachedByPlace(t, "--model", "tiny", "--requests", "20", "--concurrency", "1", "--prompt-tokens", "300",
		"--max-tokens", "2", "--prefix-groups", "2", "--prefix-tokens", "200", "--seed", "3")
	assert.Equal(t, "60.0% of the 6000 prompt tokens planned (3600) are in blocks sent before, in 200-token blocks", sharing)
	first, reused := map[string]bool{}, 0
	for i, q := range plan {
		r := recs[i]
		require.Equal(t, llmmetrics.StatusOK, r.Status, r.Message)
		assert.Equal(t, 300, r.PromptTokens, "request %d", i+1)
		require.True(t, r.Client.HasCached)
		if first[q.Group] {
			assert.Equal(t, 200, r.Client.CachedPromptTokens, "request %d shares its group's 200 tokens", i+1)
			reused += r.Client.CachedPromptTokens
		} else {
			assert.Equal(t, splitOpening, r.Client.CachedPromptTokens, "request %d, its group's first, shares the template's opening", i+1)
		}
		first[q.Group] = true
	}
	assert.Equal(t, 3600, reused)
}

// A Mooncake replay under the same template: blocks of 512 tokens from
// the prompt's start. Row 1 finds the opening's 5 tokens (the sizing
// requests had it); row 2 repeats row 1's first two blocks (1024
// tokens) and finds them cached; row 3 repeats the first only: 512; row
// 4 shares none: the opening's 5. Row 1's third block is partial (1100 −
// 1024 − 15 of the closing = 61 tokens).
func TestMooncakePrefixSplitTemplate(t *testing.T) {
	trace := filepath.Join(t.TempDir(), "mooncake.jsonl")
	rows := `{"timestamp": 0, "input_length": 1100, "output_length": 2, "hash_ids": [0, 1, 2]}
{"timestamp": 10, "input_length": 1600, "output_length": 2, "hash_ids": [0, 1, 3, 4]}
{"timestamp": 20, "input_length": 1200, "output_length": 2, "hash_ids": [0, 5, 6]}
{"timestamp": 30, "input_length": 900, "output_length": 2, "hash_ids": [7, 8]}
`
	require.NoError(t, os.WriteFile(trace, []byte(rows), 0o644))
	// one request in flight: the cache sees the rows in their order.
	plan, sharing, recs := cachedByPlace(t, "--model", "tiny", "--replay", trace, "--speed", "100", "--concurrency", "1")
	require.Len(t, plan, 4)
	// by hand: (1024 + 512) of 1100 + 1600 + 1200 + 900 = 4800.
	assert.Equal(t, "32.0% of the 4800 prompt tokens planned (1536) are in blocks sent before, in 512-token blocks", sharing)
	for i, want := range []int{splitOpening, 1024, 512, splitOpening} {
		r := recs[i]
		require.Equal(t, llmmetrics.StatusOK, r.Status, r.Message)
		assert.Equal(t, plan[i].PromptTokens, r.PromptTokens, "row %d", i+1)
		assert.Equal(t, want, r.Client.CachedPromptTokens, "row %d", i+1)
	}
}
