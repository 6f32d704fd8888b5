package main

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Bad session flags are refused in one line, exit 2, before anything is
// sent.
func TestSessionFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--turns", "3"}, "give --sessions and --turns together"},
		{[]string{"--sessions", "2"}, "give --sessions and --turns together"},
		{[]string{"--sessions", "0", "--turns", "2"}, "--sessions 0 --turns 2: want positive numbers"},
		{[]string{"--sessions", "2", "--turns", "-1"}, "--turns -1: must not be negative"},
		{[]string{"--sessions", "2", "--turns", "2", "--think-time", "-1s"}, "--think-time -1s: must not be negative"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"run", "--url", "http://127.0.0.1:1/v1/chat/completions", "--prompt-tokens", "10"}, c.args...)
		code := run(args, nil, &stdout, &stderr)
		assert.Equal(t, 2, code, c.args)
		assert.Equal(t, 1, strings.Count(stderr.String(), "\n"), "%v: %s", c.args, stderr.String())
		assert.Contains(t, stderr.String(), c.want, c.args)
	}
}

// help run and docs/run.md document the session flags.
func TestHelpRunSessionFlags(t *testing.T) {
	code, stdout, _ := runCLI(t, "", "help", "run")
	require.Equal(t, 0, code)
	doc, err := os.ReadFile("../../docs/run.md")
	require.NoError(t, err)
	for _, fl := range []string{"sessions", "turns", "think-time"} {
		assert.Contains(t, stdout, "-"+fl, fl)
		assert.Contains(t, string(doc), "--"+fl, fl)
	}
}

// The TTFT by turn: per turn, the ok records' nearest-rank p50 and p90
// and their median prompt length; records without turns give no table.
func TestByTurn(t *testing.T) {
	ms := func(n int) llmmetrics.Record {
		return llmmetrics.Record{Chunks: []time.Duration{time.Duration(n) * time.Millisecond}, CompletionTokens: 1}
	}
	var recs []llmmetrics.Record
	// Turn 1: TTFTs 10, 20, 30 ms (p50 = 20, the 2nd of 3; p90 = 30, the
	// ⌈2.7⌉ = 3rd); prompts 40, 41, 42 (p50 41). Turn 2: 5 ms alone, and a
	// failure left out.
	for i, n := range []int{30, 10, 20} {
		r := ms(n)
		r.PromptTokens, r.Client = 40+i, &llmmetrics.ClientSide{Session: "s", Turn: 1}
		recs = append(recs, r)
	}
	r := ms(5)
	r.PromptTokens, r.Client = 90, &llmmetrics.ClientSide{Session: "s", Turn: 2}
	recs = append(recs, r, llmmetrics.Record{Status: llmmetrics.StatusError, Client: &llmmetrics.ClientSide{Turn: 2}})
	assert.Equal(t, []turnRow{
		{Turn: 1, N: 3, TTFTp50: 20 * time.Millisecond, TTFTp90: 30 * time.Millisecond, PromptTokensP50: 41},
		{Turn: 2, N: 1, TTFTp50: 5 * time.Millisecond, TTFTp90: 5 * time.Millisecond, PromptTokensP50: 90},
	}, byTurn(recs))
	assert.Nil(t, byTurn([]llmmetrics.Record{ms(3)}))
}
