package main

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --prompts reads ShareGPT-style conversations (each one's first human
// turn) and JSONL with a prompt and max_tokens a line; the fake counts 20
// template tokens and one a word.
func TestPromptFiles(t *testing.T) {
	srv, _ := fakeLlama(t)
	dir := t.TempDir()
	share := filepath.Join(dir, "sharegpt.json")
	require.NoError(t, os.WriteFile(share, []byte(`[
 {"id":"a","conversations":[{"from":"system","value":"be brief"},{"from":"human","value":"one two three"},{"from":"gpt","value":"ok"}]},
 {"id":"b","conversations":[{"from":"human","value":"four five"},{"from":"gpt","value":"ok"}]},
 {"id":"c","conversations":[{"from":"gpt","value":"no human turn"}]}
]`), 0o644))
	lines := filepath.Join(dir, "prompts.jsonl")
	require.NoError(t, os.WriteFile(lines, []byte(`{"prompt":"a b","max_tokens":3}
{"prompt":"c","max_tokens":5}
{"prompt":"d e f"}
`), 0o644))
	for _, c := range []struct {
		file      string
		prompt    []int // prompt tokens by request, in turn
		maxTokens []int
	}{
		{share, []int{23, 22}, []int{2, 2}},
		{lines, []int{22, 21, 23}, []int{3, 5, 2}},
	} {
		out := filepath.Join(dir, "run.jsonl")
		code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "6", "--concurrency", "1",
			"--prompts", c.file, "--max-tokens", "2", "--out", out, "--force")
		require.Equal(t, 0, code, errs)
		run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
		require.NoError(t, err)
		for _, r := range run.Records {
			if r.Warmup {
				continue
			}
			n, err := strconv.Atoi(r.ID)
			require.NoError(t, err)
			k := (n - 1) % len(c.prompt)
			assert.Equal(t, c.prompt[k], r.PromptTokens, "%s request %s", c.file, r.ID)
			assert.Equal(t, c.maxTokens[k], r.MaxTokens, "%s request %s", c.file, r.ID)
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	require.NoError(t, os.WriteFile(bad, []byte("{\"text\":\"x\"}\n"), 0o644))
	code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "2", "--concurrency", "1", "--prompts", bad)
	assert.Equal(t, 1, code)
	assert.Contains(t, errs, `bad.jsonl: line 1: want {"prompt": "...", "max_tokens": N}`)
}
