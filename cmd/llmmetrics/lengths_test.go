package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLengthSpec(t *testing.T) {
	for _, c := range []struct {
		in   string
		want lengthSpec
		err  bool
	}{
		{"512", lengthSpec{512, 0}, false},
		{"512±25%", lengthSpec{512, 0.25}, false},
		{"128+-50%", lengthSpec{128, 0.5}, false},
		{"128±0%", lengthSpec{}, true},
		{"128±150%", lengthSpec{}, true},
		{"128±25", lengthSpec{}, true},
		{"x±25%", lengthSpec{}, true},
	} {
		var l lengthSpec
		err := l.Set(c.in)
		if c.err {
			assert.Error(t, err, c.in)
			continue
		}
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, l, c.in)
		assert.Equal(t, c.in == "128+-50%", l.String() != c.in, c.in)
	}
	// 100 draws of 10±50%: every one of 5 … 15, seeded.
	l := lengthSpec{10, 0.5}
	xs := l.draw(100, 1, 2)
	assert.Equal(t, xs, l.draw(100, 1, 2))
	seen := map[int]bool{}
	for _, x := range xs {
		assert.True(t, x >= 5 && x <= 15, x)
		seen[x] = true
	}
	assert.Len(t, seen, 11)
}

// --prompt-tokens 64±25% and --max-tokens 8±50% give each request a
// length of its own within the spread (the fake counts 20 template tokens
// and one a word, so prompts land on their target), from the seed, and
// the header records both.
func TestLengthSpread(t *testing.T) {
	srv, _ := fakeLlama(t)
	dir := t.TempDir()
	prompts := map[string][]int{}
	for _, name := range []string{"a.jsonl", "b.jsonl"} {
		out := filepath.Join(dir, name)
		code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "40", "--concurrency", "4",
			"--prompt-tokens", "64±25%", "--max-tokens", "8±50%", "--out", out)
		require.Equal(t, 0, code, errs)
		run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
		require.NoError(t, err)
		assert.Equal(t, "64±25%", run.Header.Load["prompt_tokens"])
		assert.Equal(t, "8±50%", run.Header.Load["max_tokens"])
		byID := make([]int, 41)
		pset, mset := map[int]bool{}, map[int]bool{}
		for _, r := range run.Records {
			if r.Warmup {
				continue
			}
			assert.True(t, r.PromptTokens >= 48 && r.PromptTokens <= 80, r.PromptTokens)
			assert.True(t, r.MaxTokens >= 4 && r.MaxTokens <= 12, r.MaxTokens)
			assert.Equal(t, r.MaxTokens, r.CompletionTokens)
			pset[r.PromptTokens], mset[r.MaxTokens] = true, true
			var id int
			_, err := fmt.Sscan(r.ID, &id)
			require.NoError(t, err)
			byID[id] = r.PromptTokens
		}
		assert.Greater(t, len(pset), 10, "a spread of prompt lengths")
		assert.Greater(t, len(mset), 4, "a spread of output lengths")
		prompts[name] = byID
	}
	assert.Equal(t, prompts["a.jsonl"], prompts["b.jsonl"], "the same seed, the same lengths")
	_ = os.Remove(filepath.Join(dir, "a.jsonl"))
}

// --max-tokens 0, the default, sends no max_tokens at all (the test
// request asks 1), the help says so and what it means, and the header
// says none was sent; the help's spread examples are what the draws give.
func TestMaxTokensDefault(t *testing.T) {
	_, help, _ := runCLI(t, "", "help", "run")
	for _, want := range []string{
		"-max-tokens N[±P%]", "0, the default, sends none and leaves the length to the server's own default",
		"(128±50%: 64 to 192; +- for ± works too)", "-prompt-tokens N[±P%]", "(512±25%: 384 to 640; +- for ± works too)",
	} {
		assert.Contains(t, help, want)
	}
	for _, c := range []struct {
		spec   lengthSpec
		lo, hi int
	}{{lengthSpec{128, 0.5}, 64, 192}, {lengthSpec{512, 0.25}, 384, 640}} {
		got := c.spec.draw(2000, 1, 11)
		assert.Equal(t, c.lo, slices.Min(got), c.spec.String())
		assert.Equal(t, c.hi, slices.Max(got), c.spec.String())
	}

	fake, _ := fakeLlama(t)
	var asked, sentMax atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		if r.URL.Path == "/v1/chat/completions" {
			asked.Add(1)
			if bytes.Contains(b, []byte(`"max_tokens"`)) {
				sentMax.Add(1)
			}
		}
		r.Body = io.NopCloser(bytes.NewReader(b))
		fake.Config.Handler.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	out := filepath.Join(t.TempDir(), "run.jsonl")
	code, _, errs := runCLI(t, "", "run", "--url", srv.URL+"/v1/chat/completions", "--model", "tiny", "--requests", "3",
		"--concurrency", "1", "--prompts", promptsFile(t), "--out", out)
	require.Equal(t, 0, code, errs)
	assert.Equal(t, int64(4), asked.Load())
	assert.Equal(t, int64(1), sentMax.Load(), "only the test request, max_tokens 1")
	run, err := llmmetrics.ReadJSONL(mustOpen(t, out))
	require.NoError(t, err)
	assert.Equal(t, "none sent (the server's default)", run.Header.Load["max_tokens"])
}
