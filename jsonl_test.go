package llmmetrics

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A cancelled or timed-out request got no usage: its counts are unknown
// and left out of its line, never written as 0 (issue #21, point 13), and
// the line reads back as the same record. Files written before, with
// zeros, read as they did.
func TestUnknownCountsLeftOut(t *testing.T) {
	recs := []Record{
		{ID: "c", Status: StatusCancelled, Message: "the grace period ended", Sent: time.Second, Chunks: []time.Duration{5}, MaxTokens: 8},
		{ID: "t", Status: StatusTimeout, Message: "past the request timeout", Sent: 2 * time.Second, MaxTokens: 8},
		{ID: "e", Status: StatusError, Message: "HTTP 500: boom", PromptTokens: 12, CompletionTokens: 3}, // a count that came is kept
	}
	var b bytes.Buffer
	require.NoError(t, WriteJSONL(&b, recs))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	for _, l := range lines[:2] {
		assert.NotContains(t, l, "prompt_tokens", l)
		assert.NotContains(t, l, "completion_tokens", l)
	}
	assert.Contains(t, lines[2], `"prompt_tokens":12,"completion_tokens":3`)
	run, err := ReadJSONL(&b)
	require.NoError(t, err)
	assert.Equal(t, recs, run.Records, "read back as written")

	old := `{"id":"c","status":"cancelled","message":"x","sent_ns":5,"prompt_tokens":0,"completion_tokens":0,"max_tokens":8}` + "\n" +
		`{"id":"1","sent_ns":0,"first_text_ns":5,"last_text_ns":9,"prompt_tokens":7,"completion_tokens":2}` + "\n"
	run, err = ReadJSONL(strings.NewReader(old))
	require.NoError(t, err)
	s, err := run.Summarize(Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, s.Requests.Cancelled)
	assert.Equal(t, 1, s.Requests.OK)
}

// Preflight records (a load generator's test or sizing requests) are
// counted apart from the warm-up, each record in one category: 1 ok + 1
// failed + 1 warm-up + 2 preflight = 5 offered (issue #21, point 9: they
// were "+ 3 warm-up"). A preflight line reads back as warm-up too.
func TestPreflightCounted(t *testing.T) {
	file := `{"id":"preflight-1","sent_ns":0,"first_text_ns":5,"last_text_ns":5,"completion_tokens":1,"warmup":true,"preflight":true}` + "\n" +
		`{"id":"preflight-2","sent_ns":1,"first_text_ns":5,"last_text_ns":5,"completion_tokens":1,"preflight":true}` + "\n" +
		`{"id":"1","sent_ns":2,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2,"warmup":true}` + "\n" +
		`{"id":"2","sent_ns":3,"first_text_ns":5,"last_text_ns":9,"completion_tokens":2}` + "\n" +
		`{"id":"3","status":"error","message":"HTTP 500: boom","sent_ns":4}` + "\n"
	run, err := ReadJSONL(strings.NewReader(file))
	require.NoError(t, err)
	for _, r := range run.Records[:2] {
		assert.True(t, r.Preflight && r.Warmup, r.ID)
	}
	s, err := run.Summarize(Options{})
	require.NoError(t, err)
	a := s.Requests
	assert.Equal(t, Accounting{Offered: 5, OK: 1, Failed: 1, Warmup: 1, Preflight: 2, Errors: 1}, a)
	var table bytes.Buffer
	require.NoError(t, s.WriteTable(&table))
	assert.Contains(t, table.String(), "requests: 5 offered = 1 ok + 0 zero-token + 1 failed + 0 rejected + 1 warm-up + 2 preflight (not measured)\n")
	b, err := s.MarshalJSON()
	require.NoError(t, err)
	assert.Contains(t, string(b), `"warmup":1,"errors":1,"timeouts":0,"cancelled":0,"preflight":2}`)

	var out bytes.Buffer
	require.NoError(t, WriteJSONL(&out, run.Records))
	assert.Equal(t, 2, strings.Count(out.String(), `"warmup":true,"preflight":true`))
	back, err := ReadJSONL(&out)
	require.NoError(t, err)
	assert.Equal(t, run.Records, back.Records)
}

// A run that measured nothing (its preflight request failed and stopped
// it) has no latency table: one line says why, and the absent figures say
// that nothing was measured rather than advising a declared window.
func TestNothingMeasured(t *testing.T) {
	file := `{"id":"preflight-1","status":"error","message":"connection refused","sent_ns":0,"warmup":true,"preflight":true}` + "\n"
	run, err := ReadJSONL(strings.NewReader(file))
	require.NoError(t, err)
	s, err := run.Summarize(Options{SLO: &SLO{TTFT: time.Second}})
	require.NoError(t, err)
	var table bytes.Buffer
	require.NoError(t, s.WriteTable(&table))
	text := table.String()
	assert.Contains(t, text, "requests: 1 offered = 0 ok + 0 zero-token + 0 failed + 0 rejected + 1 preflight (not measured)\n")
	assert.Contains(t, text, "\nlatencies: none, no request was measured: every record is preflight, warm-up or rejected\n")
	assert.NotContains(t, text, "metric (ms)")
	assert.NotContains(t, text, "percentiles:")
	assert.NotContains(t, text, "declare one")
	assert.Equal(t, "no request was measured: every record is preflight, warm-up or rejected", s.Absent["throughput"])
	assert.Equal(t, "every request was warm-up or preflight: none was judged", s.Absent["goodput"])
}
