package drive

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sixAWord counts a prompt as the tiny model's tokenizer does, one token a
// character: 29 tokens for the chat template and the 8-character salt, and
// 6 for each " hello". A one-word prompt counts 35, two words 41, three 47.
func sixAWord(t *testing.T) *httptest.Server {
	return countingServer(t, func(content string) int {
		return 29 + 6*(len(strings.Fields(content))-1) // the salt is not a word
	})
}

// countingServer answers a chat request with one token, and with usage
// counting the prompt's first message as count says.
func countingServer(t *testing.T, count func(content string) int) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var body struct {
			Messages []struct{ Content string }
		}
		b, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(b, &body); err != nil || len(body.Messages) == 0 {
			http.Error(w, "bad body", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"t\"}}]}\n\n")
		fmt.Fprintf(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":%d,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n", count(body.Messages[0].Content))
	}))
	t.Cleanup(srv.Close)
	return srv
}

// Each prompt gets the whole number of words whose count comes nearest
// the length asked: for 41 or 42, two words (41 tokens), not the one word
// (35) that was "within 8" (issue #21, point 5); of two as near, the
// shorter (38 is 3 from 35 and from 41; 44 is 3 from 41 and from 47). The
// sizing requests are never longer than one word (35 tokens), and a
// length of exactly one word's count is sized by one request.
func TestPromptSizingNearest(t *testing.T) {
	srv := sixAWord(t)
	p := Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1}
	for _, c := range []struct {
		asked, words, preflight int
	}{
		{35, 1, 1}, // exactly one word: one request
		{38, 1, 2}, // 35 and 41 are both 3 away: the shorter
		{39, 2, 2}, // 41 is 2 away, 35 is 4
		{41, 2, 2},
		{42, 2, 2}, // 41 is 1 away, 35 is 7
		{43, 2, 2},
		{44, 2, 2},   // 41 and 47 are both 3 away: the shorter
		{45, 3, 2},   // 47 is 2 away
		{101, 12, 2}, // (101 − 29)/6 = 12 words, 101 tokens exactly
	} {
		prompts, pre, note, err := SyntheticPrompts(context.Background(), p, c.asked, 2)
		require.NoError(t, err, "%d tokens", c.asked)
		for _, pr := range prompts {
			assert.Len(t, strings.Fields(pr), 1+c.words, "%d tokens asked: a salt and %d words (%s)", c.asked, c.words, note)
		}
		require.Len(t, pre, c.preflight, "%d tokens asked", c.asked)
		for _, r := range pre {
			assert.LessOrEqual(t, r.Record.PromptTokens, 35, "sizing request %s for %d: never longer than one word", r.Record.ID, c.asked)
			assert.True(t, r.Record.Preflight && r.Record.Warmup, "sizing request %s is marked preflight", r.Record.ID)
		}
	}
}

// A server whose count does not grow with the words (10 tokens, one word
// or none) gives counts, but no slope: the note says so, where it said the
// preflight requests "got no prompt token count" though both had one.
func TestPromptSizingNoSlope(t *testing.T) {
	srv := countingServer(t, func(string) int { return 10 })
	p := Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1}
	_, pre, note, err := SyntheticPrompts(context.Background(), p, 16, 2)
	require.NoError(t, err)
	require.Len(t, pre, 2)
	assert.Contains(t, note, "not calibrated (a word added nothing to the count: one word counted 10 tokens, the salt alone 10)")
	assert.NotContains(t, note, "got no prompt token count")
}
