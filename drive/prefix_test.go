package drive

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// aTokenAByte counts a prompt as the tiny model's tokenizer counts the
// synthetic prompts, a token a character: 21 for the chat template, then
// one for each byte of the content.
func aTokenAByte(t *testing.T) *httptest.Server {
	return countingServer(t, func(content string) int { return 21 + len(content) })
}

// A plan of shared prefixes is sized by three preflight requests (one
// word: 21 + 8 + 6 = 35; the salt alone: 29; two salts: 29 + 9 = 38, so
// a later block's salt counts 9), and each block then holds the whole
// words that bring the running count nearest its end: a first block of
// 512 tokens, (512 − 29)/6 = 80.5 → 80 words (509 tokens, of two as near
// the fewer); a second to 1024, (1024 − 509 − 9)/6 = 84.3 → 84 (1022); a
// third to 1536, (1536 − 1022 − 9)/6 = 84.2 → 84 (1535); a second of 488
// to 1000, (1000 − 509 − 9)/6 = 80.3 → 80 (998); a tail to 1200,
// (1200 − 509 − 9)/6 = 113.7 → 114 (1202).
func TestPrefixSizing(t *testing.T) {
	srv := aTokenAByte(t)
	p := Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", Seed: 1, PrefixBlockTokens: 512}
	sz, pre, note, err := SizePrompts(context.Background(), p, 1000, 1536)
	require.NoError(t, err)
	require.Len(t, pre, 3, note)
	assert.Equal(t, []int{35, 29, 38}, []int{pre[0].Record.PromptTokens, pre[1].Record.PromptTokens, pre[2].Record.PromptTokens})
	assert.Contains(t, note, "counts 9 tokens")
	p.Sizing = sz
	p.Replay = []Request{
		{PromptTokens: 1000, MaxTokens: 1, PrefixBlocks: []int{7, 8}},
		{PromptTokens: 1536, MaxTokens: 1, PrefixBlocks: []int{7, 8, 9}},
		{PromptTokens: 1200, MaxTokens: 1, PrefixBlocks: []int{7}}, // a tail of 688
	}
	var words [][]int
	for n := 1; n <= 3; n++ {
		var w []int
		for _, f := range strings.Fields(p.Prompt(n)) {
			if f == "hello" {
				w[len(w)-1]++
			} else {
				w = append(w, 0)
			}
		}
		words = append(words, w)
	}
	assert.Equal(t, [][]int{{80, 80}, {80, 84, 84}, {80, 114}}, words)
	a, b, c := p.Prompt(1), p.Prompt(2), p.Prompt(3)
	assert.True(t, strings.HasPrefix(b, a), "block 8 of 488 tokens is a prefix of block 8 whole")
	assert.Equal(t, a[:8+80*6], c[:8+80*6], "block 7 is the same text")
	assert.NotEqual(t, a[8+80*6:8+80*6+9], c[8+80*6:8+80*6+9], "block 8 and the tail part at the salt")
	// As the fake counts: 21 + 8 + 480 + 9 + 480 = 998 for 1000 asked.
	assert.Equal(t, 998, 21+len(a))
	assert.Equal(t, 21+8+480+2*(9+504), 21+len(b), "1535 for 1536 asked")
}

// The prompt tokens a prefix cache could reuse, by hand (blocks of 512):
// the first request's 1000 share nothing; the second's block 0 (512) was
// sent, its block 2 (288) was not; the third's block 0 (512) was, and of
// its block 1 (512) the 488 the first sent: 512 + 488 = 1000. A request
// without blocks shares nothing.
func TestPrefixShare(t *testing.T) {
	reqs := []Request{
		{PromptTokens: 1000, PrefixBlocks: []int{0, 1}},
		{PromptTokens: 800, PrefixBlocks: []int{0, 2}},
		{PromptTokens: 1024, PrefixBlocks: []int{0, 1}},
		{PromptTokens: 100},
	}
	assert.Equal(t, []int{0, 512, 1000, 0}, PrefixShare(reqs, 512))
	assert.Equal(t, []int{0, 0, 0, 0}, PrefixShare(reqs, 0))
}

// Prefix groups: each request of the plan draws one of the groups, the
// same for the same seed, and carries it as its block and its group; a
// prompt no longer than the prefix is refused.
func TestPrefixGroups(t *testing.T) {
	p := Plan{URL: "http://x/v1/chat/completions", Sizing: &Sizing{}, PromptTokensEach: []int{300}, Requests: 200, Concurrency: 1,
		Seed: 3, PrefixGroups: 4, PrefixBlockTokens: 200}
	reqs, _, err := Schedule(p)
	require.NoError(t, err)
	seen := map[int]int{}
	for i, r := range reqs {
		require.Len(t, r.PrefixBlocks, 1)
		g := r.PrefixBlocks[0]
		assert.Equal(t, fmt.Sprint(g), r.Group)
		seen[g]++
		prompt := p.Prompt(i + 1)
		// A zero Sizing has the seed 0: a word a token, and salts of the seed 0.
		assert.True(t, strings.HasPrefix(prompt, synthetic(blockSalt(0, g), 200)+" "), "request %d begins with group %d's prefix", i+1, g)
	}
	assert.Len(t, seen, 4, "every group drawn: %v", seen)
	again, _, _ := Schedule(p)
	assert.Equal(t, reqs, again)
	// 200 requests of 300 tokens, of which the 200 of the prefix are
	// shared after each group's first: (200 − 4) × 200.
	shared := 0
	for _, n := range PrefixShare(reqs, 200) {
		shared += n
	}
	assert.Equal(t, 196*200, shared)

	p.PromptTokensEach = []int{200}
	_, _, err = Schedule(p)
	assert.ErrorContains(t, err, "cannot hold a shared prefix of 200")
}
