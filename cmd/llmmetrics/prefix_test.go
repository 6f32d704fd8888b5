package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// --prefix-groups: the plan gives each request a group; the share of
// prompt tokens planned to be shared is, by hand, the 200 tokens of every
// request after its group's first, over all the prompt tokens; sent,
// every request of a group begins with the same text, sized as the
// server counts it (fakeLlama: 20 of template, a word a token, a salt a
// word), and requests of two groups part at the first salt.
func TestPrefixGroupsRun(t *testing.T) {
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.jsonl")
	args := []string{"--model", "tiny", "--requests", "30", "--rate", "100", "--prompt-tokens", "300", "--max-tokens", "2",
		"--prefix-groups", "3", "--prefix-tokens", "200", "--seed", "5"}
	code, _, errs := runCLI(t, "", append([]string{"run", "--dry-run", "--out", planFile}, args...)...)
	require.Equal(t, 0, code, errs)
	f, err := os.Open(planFile)
	require.NoError(t, err)
	defer f.Close()
	h, reqs, err := drive.ReadPlan(f)
	require.NoError(t, err)
	require.Len(t, reqs, 30)
	groups := map[string]bool{}
	for _, q := range reqs {
		require.Len(t, q.PrefixBlocks, 1)
		assert.Equal(t, fmt.Sprint(q.PrefixBlocks[0]), q.Group)
		groups[q.Group] = true
	}
	shared := (30 - len(groups)) * 200
	assert.Equal(t, fmt.Sprintf("%.1f%% of the 9000 prompt tokens planned (%d) are in blocks sent before, in 200-token blocks", 100*float64(shared)/9000, shared), h.Load["prefix_sharing"])

	llama, _ := fakeLlama(t)
	srv, bodies := bodyRecorder(t, llama.URL)
	code, _, errs = runCLI(t, "", append([]string{"run", "--url", srv.URL + "/v1/chat/completions", "--out", filepath.Join(dir, "run.jsonl")}, args...)...)
	require.Equal(t, 0, code, errs)
	bs := bodies()
	require.Len(t, bs, 33, "three sizing requests, then thirty")
	prefix := map[string]string{} // group's first salt → its prefix
	for _, b := range bs[3:] {
		text := b["messages"].([]any)[0].(map[string]any)["content"].(string)
		words := strings.Fields(text)
		// 20 + 1 + w = 200: the prefix is its salt and 179 words; the
		// tail (100 tokens, a later salt counting 1) a salt and 99 words:
		// 20 + 180 + 100 = 300.
		require.Len(t, words, 1+179+1+99, text[:40])
		p := strings.Join(words[:180], " ")
		if old, ok := prefix[words[0]]; ok {
			assert.Equal(t, old, p)
		}
		prefix[words[0]] = p
		assert.NotContains(t, prefix, words[180], "the tail's salt is its own")
	}
	assert.Len(t, prefix, len(groups), "one prefix a group")
}
