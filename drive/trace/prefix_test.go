package trace

import (
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// promptBlocks cuts a prompt made with a zero Sizing (a word a token) into
// its blocks as the test reads it: a block begins at each field that is
// not "hello" (its salt) and holds the words after it.
func promptBlocks(prompt string) (salts []string, words []int) {
	for _, f := range strings.Fields(prompt) {
		if f == "hello" {
			words[len(words)-1]++
			continue
		}
		salts, words = append(salts, f), append(words, 0)
	}
	return salts, words
}

// checkPrefixText checks a replay's prompts against its rows: each prompt
// holds ceil(prompt/B) of its blocks (B its block size), every one of B
// tokens (words, with a zero Sizing) but the last, which holds
// prompt − B·(k−1), or a tail of its own where the blocks do not cover the
// prompt; and two prompts hold the same text in a place exactly where
// their rows' hash_ids agree there, the same salt where the ids agree and
// a different one where they differ.
func checkPrefixText(t *testing.T, name string, r *Replay) {
	p := drive.Plan{Replay: r.Requests, PrefixBlockTokens: r.BlockTokens, Sizing: &drive.Sizing{}}
	b := r.BlockTokens
	require.Positive(t, b, name)
	type made struct {
		ids    []int
		salts  []string
		words  []int
		prompt string
	}
	var all []made
	for i, q := range r.Requests {
		prompt := p.Prompt(i + 1)
		salts, words := promptBlocks(prompt)
		k := min(len(q.PrefixBlocks), (q.PromptTokens+b-1)/b)
		var want []int // the block lengths by hand
		left := q.PromptTokens
		for range k {
			want = append(want, min(b, left))
			left -= min(b, left)
		}
		if left > 0 {
			want = append(want, left) // the tail
		}
		require.Equal(t, want, words, "%s: %s: the words of each block", name, q.Source)
		all = append(all, made{q.PrefixBlocks[:k], salts[:k], words[:k], prompt})
	}
	agree, differ := 0, 0
	for i := range all {
		for j := range i {
			x, y := all[i], all[j]
			for m := range min(len(x.ids), len(y.ids)) {
				same := x.ids[m] == y.ids[m]
				if same {
					agree++
				} else {
					differ++
				}
				if same != (x.salts[m] == y.salts[m]) {
					t.Fatalf("%s: block %d of rows %d and %d: ids %d and %d, salts %s and %s", name, m, i, j, x.ids[m], y.ids[m], x.salts[m], y.salts[m])
				}
			}
			// The prompts' common text ends within the first block they
			// do not share: its salt, eight hex digits, parts them.
			shared := 0
			for shared < min(len(x.ids), len(y.ids)) && x.ids[shared] == y.ids[shared] && x.words[shared] == y.words[shared] {
				shared++
			}
			want := 0 // the bytes of the shared blocks: their salts and words, a space between two
			if shared > 0 {
				want = 8*shared + 6*sumWords(x.words[:shared]) + (shared - 1)
			}
			common := commonPrefix(x.prompt, y.prompt)
			partial := shared < min(len(x.ids), len(y.ids)) && x.ids[shared] == y.ids[shared] // one text a prefix of the other
			if common < want || !partial && common >= want+1+8 {
				t.Fatalf("%s: rows %d and %d share %d blocks, %d bytes, but their prompts' first %d bytes", name, i, j, shared, want, common)
			}
		}
	}
	assert.Positive(t, agree, "%s: some blocks agree", name)
	assert.Positive(t, differ, "%s: some blocks differ", name)
}

func sumWords(w []int) (n int) {
	for _, x := range w {
		n += x
	}
	return n
}

func commonPrefix(a, b string) int {
	n := 0
	for n < len(a) && n < len(b) && a[n] == b[n] {
		n++
	}
	return n
}

// Mooncake's hash_ids become prompts whose blocks are the same text
// exactly where the ids agree, at the trace's 512 tokens a block and
// with the lengths and the blocks scaled by 0.1 (51 tokens a block); a
// capped prompt keeps the blocks that fit.
func TestPrefixText(t *testing.T) {
	tr, err := Read("testdata/mooncake.jsonl", "")
	require.NoError(t, err)
	for _, o := range []Options{{}, {ScaleTokens: 0.1}, {MaxPrompt: 1000}} {
		r, err := tr.Replay(o)
		require.NoError(t, err)
		checkPrefixText(t, "testdata", r)
	}
	r, err := tr.Replay(Options{ScaleTokens: 0.1})
	require.NoError(t, err)
	assert.Equal(t, 51, r.BlockTokens, "512 × 0.1 = 51.2, rounded")

	path := realTraces + "kvcache-ai__Mooncake__conversation_trace.jsonl"
	if real, err := Read(path, ""); err == nil {
		for _, o := range []Options{{Rows: 120}, {Rows: 120, From: 20 * 60e9, ScaleTokens: 0.1, MaxPrompt: 1800}} {
			r, err := real.Replay(o)
			require.NoError(t, err)
			checkPrefixText(t, "conversation_trace", r)
		}
	} else {
		t.Logf("the real Mooncake trace is absent: %v", err)
	}
}
