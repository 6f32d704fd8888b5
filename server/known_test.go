package server

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// llamaWindow is a llama.cpp window: an output-token counter, and no
// finished-request counter.
func llamaWindow(tokens float64) *Window {
	return &Window{Elapsed: 10 * time.Second, Counters: map[string]Counter{
		"llamacpp:tokens_predicted": {Name: "llamacpp:tokens_predicted_total", Delta: tokens, PerSecond: tokens / 10, Series: 1},
	}}
}

// answers is 20 ok answers of 640 tokens each, the first counted of them
// with usage, the others without.
func answers(counted int) []llmmetrics.Record {
	recs := make([]llmmetrics.Record, 20)
	for i := range recs {
		recs[i] = llmmetrics.Record{ID: fmt.Sprint(i), FirstText: time.Millisecond, LastText: time.Second, NoUsage: i >= counted}
		if i < counted {
			recs[i].CompletionTokens = 640
		}
	}
	return recs
}

// Answers without usage are left out of the client's tokens, never 0:
// against 12,800 server tokens the check cannot tell, and says so,
// instead of "they DISAGREE" (12,800 against 0).
func TestKnownOutputUncounted(t *testing.T) {
	k, err := CheckKnownOutput(llamaWindow(12800), answers(0))
	require.NoError(t, err)
	assert.Equal(t, 20, k.Uncounted)
	assert.False(t, k.Agree)
	assert.Contains(t, k.Unknown, "20 of the client's 20 answers carry no token count")
	assert.Empty(t, k.Causes)
	var b bytes.Buffer
	require.NoError(t, (&Report{Window: llamaWindow(12800), Known: &k}).WriteTable(&b))
	assert.Contains(t, b.String(), "client completion tokens 0 over the 0 of 20 answers with a count: cannot be checked")
	assert.NotContains(t, b.String(), "DISAGREE")

	// Half counted, 6,400 known: the server's 12,800 may hold the rest.
	k, err = CheckKnownOutput(llamaWindow(12800), answers(10))
	require.NoError(t, err)
	assert.Equal(t, int64(6400), k.ClientTokens)
	assert.NotEmpty(t, k.Unknown)
	// The server counted fewer than the known 6,400: they disagree
	// whatever the others hold.
	k, err = CheckKnownOutput(llamaWindow(6000), answers(10))
	require.NoError(t, err)
	assert.Empty(t, k.Unknown)
	assert.False(t, k.Agree)
}

// llama.cpp exports no finished-request counter: a disagreement names no
// count of finished requests it cannot support ("the server finished 0
// requests").
func TestKnownOutputNoFinishedCounter(t *testing.T) {
	k, err := CheckKnownOutput(llamaWindow(12000), answers(20))
	require.NoError(t, err)
	assert.False(t, k.Agree)
	for _, c := range k.Causes {
		assert.NotContains(t, c, "the server finished")
	}
	// vLLM's request_success does: a count that differs is a cause.
	w := llamaWindow(12000)
	w.Finished = map[string]float64{"stop": 19}
	k, err = CheckKnownOutput(w, answers(20))
	require.NoError(t, err)
	assert.Contains(t, k.Causes, "the server finished 19 requests in the window, the client sent 20")
}
