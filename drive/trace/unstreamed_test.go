package trace

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A run file's requests that production made without streaming, by the
// rule of the reports (two or more counted tokens whose text came at
// once), are marked, and replayed so; the others streamed.
func TestRunUnstreamed(t *testing.T) {
	in := `{"llmmetrics_run":{"tool":"gateway"}}
{"id":"stream3","sent_ns":1000,"chunk_arrivals_ns":[10,20,30],"prompt_tokens":9,"completion_tokens":3}
{"id":"whole1chunk","sent_ns":2000,"chunk_arrivals_ns":[50],"prompt_tokens":9,"completion_tokens":5}
{"id":"whole","sent_ns":3000,"first_text_ns":40,"last_text_ns":40,"prompt_tokens":9,"completion_tokens":4}
{"id":"onetoken","sent_ns":4000,"first_text_ns":40,"last_text_ns":40,"prompt_tokens":9,"completion_tokens":1}
{"id":"spread","sent_ns":5000,"first_text_ns":40,"last_text_ns":90,"prompt_tokens":9,"completion_tokens":6}
{"id":"belowchunks","sent_ns":6000,"chunk_arrivals_ns":[10,20,30],"prompt_tokens":9,"completion_tokens":2}
{"id":"nousage","sent_ns":7000,"chunk_arrivals_ns":[10]}
`
	tr, err := ReadFrom(strings.NewReader(in), "prod.jsonl", "")
	require.NoError(t, err)
	assert.Equal(t, LLMMetrics, tr.Format)
	var marks []bool
	for _, r := range tr.Rows {
		marks = append(marks, r.Unstreamed)
	}
	// Lines 2 to 7; line 8, without usage, left out.
	assert.Equal(t, []bool{false, true, true, false, false, false}, marks)
	assert.Equal(t, 2, tr.Unstreamed)
	assert.Equal(t, 1, tr.NoUsage)

	r, err := tr.Replay(Options{})
	require.NoError(t, err)
	var sent []bool
	for _, q := range r.Requests {
		sent = append(sent, q.Unstreamed)
	}
	assert.Equal(t, marks, sent)
	assert.Equal(t, 2, r.Unstreamed)
	assert.Zero(t, r.Restreamed)

	// A window counts its own; Stream sends them all streamed, counted.
	r, err = tr.Replay(Options{From: 2500})
	require.NoError(t, err)
	assert.Equal(t, 1, r.Unstreamed)
	assert.True(t, r.Requests[0].Unstreamed, "line 4")
	r, err = tr.Replay(Options{Stream: true})
	require.NoError(t, err)
	assert.Zero(t, r.Unstreamed)
	assert.Equal(t, 2, r.Restreamed)
	for _, q := range r.Requests {
		assert.False(t, q.Unstreamed, q.Source)
	}
}

// The other formats' rows are streamed.
func TestTracesStreamed(t *testing.T) {
	for _, f := range []string{"azure.csv", "mooncake.jsonl", "burstgpt.csv", "run.jsonl"} {
		tr, err := Read("testdata/"+f, "")
		require.NoError(t, err, f)
		assert.Zero(t, tr.Unstreamed, f)
		for _, r := range tr.Rows {
			assert.False(t, r.Unstreamed, "%s:%d", f, r.Line)
		}
	}
}
