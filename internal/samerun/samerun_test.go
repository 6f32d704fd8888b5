package samerun

import (
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// A JSONL record keeps its chunks' arrivals and may leave FirstText and
// LastText zero; its CSV row keeps TTFT and E2E alone: one request (a run
// and its CSV were taken for two runs). A warm-up record is left out, as
// convert --measured leaves it out; a record a nanosecond later is
// another run's.
func TestRecordsAcrossFormats(t *testing.T) {
	ms := time.Millisecond
	jsonl := []llmmetrics.Record{
		{ID: "w", Warmup: true, Chunks: []time.Duration{5 * ms}, CompletionTokens: 1},
		{ID: "1", Sent: 3 * ms, Chunks: []time.Duration{10 * ms, 30 * ms}, CompletionTokens: 2, PromptTokens: 7},
	}
	csv := []llmmetrics.Record{{ID: "1", Sent: 3 * ms, FirstText: 10 * ms, LastText: 30 * ms, CompletionTokens: 2, PromptTokens: 7}}
	if !Records(jsonl, csv) {
		t.Error("a run and its CSV rows are not one run")
	}
	later := []llmmetrics.Record{{ID: "1", Sent: 3 * ms, FirstText: 10 * ms, LastText: 30*ms + 1, CompletionTokens: 2, PromptTokens: 7}}
	if Records(jsonl, later) {
		t.Error("records a nanosecond apart are one run")
	}
	if Records(nil, nil) || Records(jsonl[:1], csv[:0]) {
		t.Error("no measured record is one run")
	}
}
