package drive

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// loadServer answers each chat request after 30 ms for every request
// waiting for its first token at its arrival, itself included. In a
// closed loop of C the first C requests arrive one by one and see 1 … C;
// after them every arrival sees the other C − 1 still waiting, so its TTFT
// is about C·30 ms.
func loadServer(t *testing.T) *httptest.Server {
	var waiting atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := waiting.Add(1)
		time.Sleep(time.Duration(n) * 30 * time.Millisecond)
		waiting.Add(-1) // before the client can see the reply
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"b\"},\"finish_reason\":\"length\"}]}\n\n")
		fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":2}}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// With an SLO of TTFT ≤ 135 ms, concurrency 4 (at most 120 ms) meets it
// for every request; at 5 only the first 4 requests (30 … 120 ms) do, and
// the other 8 (150 ms) do not: attainment 4/12. The search doubles 1, 2,
// 4, 8 (fails), bisects 6 and 5 (both fail), stops at adjacent
// concurrencies 4 and 5, and runs each twice more.
func TestSearchCapacity(t *testing.T) {
	srv := loadServer(t)
	p := Plan{URL: srv.URL + "/v1/chat/completions", API: observe.Chat, Model: "m", MaxTokens: 2, Prompts: []string{"hi"}, Requests: 12}
	out, err := SearchCapacity(context.Background(), p, Search{Kind: "concurrency", SLO: llmmetrics.SLO{TTFT: 135 * time.Millisecond}})
	require.NoError(t, err)
	var levels []float64
	for _, pr := range out.Probes {
		levels = append(levels, pr.Level)
	}
	assert.Equal(t, []float64{1, 2, 4, 8, 6, 5, 4, 4, 5, 5}, levels)
	require.NotNil(t, out.Passing)
	require.NotNil(t, out.Failing)
	assert.Equal(t, 4.0, *out.Passing)
	assert.Equal(t, 5.0, *out.Failing)
	assert.Contains(t, out.Reason, "DistServe's framing")
	att, n := out.MedianAttainment(4)
	assert.Equal(t, 3, n)
	assert.Equal(t, 1.0, att)
	att, _ = out.MedianAttainment(5)
	assert.InDelta(t, 4.0/12, att, 1e-12)
	assert.Len(t, out.Results(), 10*12, "every request of every probe")

	// A ceiling that passes: the capacity is at least it, never beyond.
	out, err = SearchCapacity(context.Background(), p, Search{Kind: "concurrency", Max: 3, Repeats: 1, SLO: llmmetrics.SLO{TTFT: 135 * time.Millisecond}})
	require.NoError(t, err)
	assert.Equal(t, 3.0, *out.Passing)
	assert.Nil(t, out.Failing)
	assert.Contains(t, out.Reason, "not extrapolated")
}

func TestSearchErrors(t *testing.T) {
	p := Plan{URL: "http://127.0.0.1:1/v1/chat/completions", Prompts: []string{"x"}, Requests: 1}
	slo := llmmetrics.SLO{TTFT: time.Second}
	for _, s := range []Search{
		{Kind: "qps", SLO: slo},
		{Kind: "rate"},
		{Kind: "rate", SLO: slo, Target: 1.5},
		{Kind: "concurrency", SLO: slo, From: 1.5},
		{Kind: "rate", SLO: slo, From: 4, Max: 2},
	} {
		_, err := SearchCapacity(context.Background(), p, s)
		assert.Error(t, err, "%+v", s)
	}
}
