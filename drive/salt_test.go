package drive

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The prompts' text comes from the seed and the prompt salt together: two
// runs of one seed and two salts send prompts that share no salt (a
// server's prefix cache holds nothing of the other run's), the same salt
// sends the same prompts again, and within one run two requests of one
// prefix block share its text. The plan (the lengths, the group each
// request draws) is the seed's alone.
func TestPromptSalt(t *testing.T) {
	srv := aTokenAByte(t)
	base := Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1, PrefixBlockTokens: 100}
	prompts := func(salt uint64) []string {
		p := base
		p.PromptSalt = salt
		sz, _, _, err := SizePrompts(context.Background(), p, 300, 300)
		require.NoError(t, err)
		p.Sizing, p.Replay = sz, []Request{
			{PromptTokens: 300, MaxTokens: 1, PrefixBlocks: []int{4}},
			{PromptTokens: 300, MaxTokens: 1, PrefixBlocks: []int{4}},
			{PromptTokens: 300, MaxTokens: 1},
		}
		return []string{p.Prompt(1), p.Prompt(2), p.Prompt(3)}
	}
	a, b, again := prompts(0x1234), prompts(0x5678), prompts(0x1234)
	assert.Equal(t, a, again, "the same seed and salt: the same prompts")
	for i := range a {
		assert.NotEqual(t, a[i][:8], b[i][:8], "request %d: another salt, another first salt", i+1)
	}
	words := strings.Fields(a[0])
	block := 1 + slices.IndexFunc(words[1:], func(w string) bool { return w != "hello" }) // block 4: its salt and words
	require.Greater(t, block, 1)
	assert.Equal(t, words[:block], strings.Fields(a[1])[:block], "one block, one text within a run")
	assert.NotEqual(t, words[block], strings.Fields(a[1])[block], "each request's tail has its own salt")

	// SyntheticPrompts, the same.
	synth := func(salt uint64) []string {
		p := base
		p.PrefixBlockTokens, p.PromptSalt = 0, salt
		ps, _, _, err := SyntheticPrompts(context.Background(), p, 60, 3)
		require.NoError(t, err)
		return ps
	}
	assert.Equal(t, synth(7), synth(7))
	assert.NotEqual(t, synth(7)[0][:8], synth(8)[0][:8])
}

// A session's turns are recorded under their rows of the plan: session
// k's turn t (the warm-up's sessions first) is id (k−1)·Turns + t, as
// Schedule lists it, not its place in send order.
func TestSessionIDsArePlanRows(t *testing.T) {
	f := newFake(t, func(int64) time.Duration { return time.Millisecond }, 0)
	p := Plan{URL: f.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", MaxTokens: 1,
		Prompts: []string{"a"}, Sessions: 3, Turns: 2, Warmup: Warmup{Requests: 1}}
	out, err := Run(context.Background(), p)
	require.NoError(t, err)
	plan, _, err := Schedule(p)
	require.NoError(t, err)
	require.Len(t, out.Results, len(plan))
	row := map[string]string{} // session/turn → the plan's id
	for i, q := range plan {
		row[q.Session+"/"+strconv.Itoa(q.Turn)] = strconv.Itoa(i + 1)
	}
	ids := map[string]bool{}
	for _, res := range out.Results {
		c := res.Record.Client
		key := c.Session + "/" + strconv.Itoa(c.Turn)
		assert.Equal(t, row[key], res.Record.ID, key)
		ids[res.Record.ID] = true
	}
	assert.Len(t, ids, len(plan), "every id once")
}

// No request's prompt begins with the salt of a sizing request, which a
// prefix cache would hold: request 7's salt once came from the sizing
// generator's stream, so it shared the first sizing request's opening
// (22 tokens cached on llama-server, against 8 for the others). Of 40
// prompts sized by the three sizing requests, none begins with their
// first word.
func TestSizingSaltsApart(t *testing.T) {
	var mu sync.Mutex
	var sizing []string
	inner := aTokenAByte(t)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		var body struct{ Messages []struct{ Content string } }
		if json.Unmarshal(b, &body) == nil && len(body.Messages) > 0 {
			mu.Lock()
			sizing = append(sizing, strings.Fields(body.Messages[0].Content + " x")[0])
			mu.Unlock()
		}
		resp, err := http.Post(inner.URL+r.URL.Path, "application/json", bytes.NewReader(b))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadGateway)
			return
		}
		defer resp.Body.Close()
		w.Header().Set("Content-Type", "text/event-stream")
		io.Copy(w, resp.Body)
	}))
	t.Cleanup(srv.Close)
	p := Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1, PromptSalt: 5}
	sz, _, _, err := SizePrompts(context.Background(), p, 60, 60)
	require.NoError(t, err)
	require.NotEmpty(t, sizing)
	p.Sizing = sz
	for n := 1; n <= 40; n++ {
		p.Replay = append(p.Replay, Request{PromptTokens: 60, MaxTokens: 1})
	}
	for n := 1; n <= 40; n++ {
		first := strings.Fields(p.Prompt(n))[0]
		assert.NotContains(t, sizing, first, "request %d begins with a sizing request's salt", n)
	}
}
