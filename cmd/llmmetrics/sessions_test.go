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

// Bad values of the session flags are refused in one line, exit 2,
// before anything is sent; a flag without its twin is a mistake of the
// command line, told with run's usage as any flag out of place.
func TestSessionFlagsRefused(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
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
	for _, args := range [][]string{{"--turns", "3"}, {"--sessions", "2"}} {
		code, _, errs := runCLI(t, "", append([]string{"run", "--url", "http://127.0.0.1:1/v1/chat/completions", "--prompt-tokens", "10"}, args...)...)
		assert.Equal(t, 2, code, args)
		assert.True(t, strings.HasPrefix(errs, "llmmetrics: run: give --sessions and --turns together (--think-time with them)\nusage: "), "%v: %s", args, errs)
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
// (in ms) and their median prompt length; a turn whose measured requests
// all failed keeps its row, its figures absent; warm-up is left out;
// records without turns give no table.
func TestByTurn(t *testing.T) {
	ms := func(n int) llmmetrics.Record {
		return llmmetrics.Record{Chunks: []time.Duration{time.Duration(n) * time.Millisecond}, CompletionTokens: 1}
	}
	var recs []llmmetrics.Record
	// Turn 1: TTFTs 10, 20, 30 ms (p50 = 20, the 2nd of 3; p90 = 30, the
	// ⌈2.7⌉ = 3rd); prompts 40, 41, 42 (p50 41). Turn 2: 5 ms alone, and a
	// failure counted as measured but left out of the figures. Turn 3:
	// two cancelled requests, and a warm-up one left out.
	for i, n := range []int{30, 10, 20} {
		r := ms(n)
		r.PromptTokens, r.Client = 40+i, &llmmetrics.ClientSide{Session: "s", Turn: 1}
		recs = append(recs, r)
	}
	r := ms(5)
	r.PromptTokens, r.Client = 90, &llmmetrics.ClientSide{Session: "s", Turn: 2}
	recs = append(recs, r, llmmetrics.Record{Status: llmmetrics.StatusError, Client: &llmmetrics.ClientSide{Turn: 2}})
	w := ms(1)
	w.Warmup, w.Client = true, &llmmetrics.ClientSide{Session: "w1", Turn: 3}
	for range 2 {
		recs = append(recs, llmmetrics.Record{Status: llmmetrics.StatusCancelled, Client: &llmmetrics.ClientSide{Turn: 3}})
	}
	recs = append(recs, w)
	f := func(x float64) *float64 { return &x }
	n := func(x int) *int { return &x }
	assert.Equal(t, []turnRow{
		{Turn: 1, Measured: 3, N: 3, TTFTp50MS: f(20), TTFTp90MS: f(30), PromptTokensP50: n(41)},
		{Turn: 2, Measured: 2, N: 1, TTFTp50MS: f(5), TTFTp90MS: f(5), PromptTokensP50: n(90)},
		{Turn: 3, Measured: 2, Absent: noOKTurn},
	}, byTurn(recs))
	assert.Nil(t, byTurn([]llmmetrics.Record{ms(3)}))
}
