package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestRealServerSessions runs 3 sessions of 3 turns against a real
// llama-server: in every session each turn's prompt holds the previous
// turn's prompt and its answer (prompt tokens ≥ the previous prompt's
// plus its completion tokens: the conversation, real answer included, is
// sent back), the server's cached prompt tokens are recorded, and the
// report gives TTFT by turn.
func TestRealServerSessions(t *testing.T) {
	base := llamaServer(t)
	out := filepath.Join(t.TempDir(), "sessions.jsonl")
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--url", base + "/v1/chat/completions", "--model", "tiny", "--prompt-tokens", "40",
		"--max-tokens", "8", "--sessions", "3", "--turns", "3", "--think-time", "10ms", "--out", out}, nil, &stdout, &stderr)
	require.Equal(t, 0, code, stderr.String())
	assert.Contains(t, stdout.String(), "TTFT by turn")
	f, err := os.Open(out)
	require.NoError(t, err)
	defer f.Close()
	runRecs, err := llmmetrics.ReadJSONL(f)
	require.NoError(t, err)
	turns := map[string][]llmmetrics.Record{}
	for _, rec := range runRecs.Records {
		if rec.Preflight || rec.Warmup {
			continue
		}
		require.Equal(t, llmmetrics.StatusOK, rec.Status, rec.Message)
		c := rec.Client
		require.NotNil(t, c)
		assert.True(t, c.HasCached, "record %s: llama-server reports its cached prompt tokens", rec.ID)
		assert.LessOrEqual(t, c.CachedPromptTokens, rec.PromptTokens)
		turns[c.Session] = append(turns[c.Session], rec)
	}
	require.Len(t, turns, 3)
	for s, recs := range turns {
		require.Len(t, recs, 3, s)
		for k, rec := range recs {
			require.Equal(t, k+1, rec.Client.Turn, s)
			if k > 0 {
				prev := recs[k-1]
				assert.GreaterOrEqual(t, rec.PromptTokens, prev.PromptTokens+prev.CompletionTokens,
					"session %s turn %d: the context holds the previous prompt and answer", s, k+1)
			}
		}
	}
}
