package drive

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeLoad stands for a server whose TTFT depends only on the load: a
// probe of 12 requests at concurrency C ≤ 4 has every TTFT 30·C ms; above
// 4, the first four requests 120 ms and the other eight 150 ms. It makes
// the records on a fake clock, so no verdict depends on the machine's
// speed.
func fakeLoad(_ context.Context, p Plan) (*Outcome, error) {
	out := &Outcome{}
	c := p.Concurrency
	for i := range p.Requests {
		ttft := time.Duration(30*min(c, 4)) * time.Millisecond
		if c > 4 && i >= 4 {
			ttft = 150 * time.Millisecond
		}
		sent := time.Duration(i) * time.Second
		out.Results = append(out.Results, &observe.Result{Record: llmmetrics.Record{
			ID: fmt.Sprint(i + 1), Sent: sent, Chunks: []time.Duration{ttft, ttft + time.Millisecond}, CompletionTokens: 2, PromptTokens: 3,
		}, UsageKnown: true})
	}
	return out, nil
}

// With an SLO of TTFT ≤ 135 ms, concurrency 4 meets it for every request;
// at 5 only the first 4 requests do (attainment 4/12). The search doubles
// 1, 2, 4, 8 (fails), bisects 6 and 5 (both fail), stops at adjacent
// concurrencies 4 and 5, and runs each twice more.
func TestSearchCapacity(t *testing.T) {
	slo := llmmetrics.SLO{TTFT: 135 * time.Millisecond}
	p := Plan{URL: "http://127.0.0.1:1/v1/chat/completions", API: observe.Chat, Model: "m", MaxTokens: 2, Prompts: []string{"hi"}, Requests: 12}
	out, err := SearchCapacity(context.Background(), p, Search{Kind: "concurrency", SLO: slo, Run: fakeLoad})
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
	out, err = SearchCapacity(context.Background(), p, Search{Kind: "concurrency", Max: 3, Repeats: 1, SLO: slo, Run: fakeLoad})
	require.NoError(t, err)
	assert.Equal(t, 3.0, *out.Passing)
	assert.Nil(t, out.Failing)
	assert.Contains(t, out.Reason, "not extrapolated")
}

// The search runs its probes through Run against a real server: a fake
// that answers at once, so every level meets a generous SLO.
func TestSearchRunsProbes(t *testing.T) {
	f := newFake(t, constant(0), 0)
	p := plan(f.URL)
	p.Requests = 3
	out, err := SearchCapacity(context.Background(), p, Search{Kind: "concurrency", Max: 2, Repeats: 1, SLO: llmmetrics.SLO{TTFT: time.Minute}})
	require.NoError(t, err)
	assert.Equal(t, 2.0, *out.Passing)
	assert.Len(t, out.Results(), 6)
	assert.Equal(t, int64(6), f.served.Load())
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

// A probe whose attainment is only a lower bound (answers without usage,
// unjudged against a TPOT limit) stops the search with the reason rather
// than reading it as a miss: "attainment 0: misses the target" of a
// server that sends no usage was no verdict.
func TestSearchLowerBound(t *testing.T) {
	noUsage := func(ctx context.Context, p Plan) (*Outcome, error) {
		out, err := fakeLoad(ctx, p)
		for _, r := range out.Results {
			r.Record.CompletionTokens, r.Record.NoUsage, r.UsageKnown = 0, true, false
		}
		return out, err
	}
	p := Plan{URL: "http://h/v1/chat/completions", Requests: 12}
	slo := llmmetrics.SLO{TTFT: time.Second, TPOT: 50 * time.Millisecond}
	_, err := SearchCapacity(context.Background(), p, Search{Kind: "concurrency", SLO: slo, Run: noUsage})
	require.Error(t, err)
	assert.Contains(t, err.Error(), "its attainment, between 0 and 1, may meet the target 0.9 or not: 12 ok requests")
}

// A probe whose attainment is a lower bound is a miss where even every
// unjudged request good would miss: at concurrency 5 and up, fakeLoad's
// first 4 requests (TTFT 120 ms) meet a TTFT limit of 135 ms and the 8
// others (150 ms) do not; without usage those 4 are unjudged, so the
// attainment is between 0 and 4/12, below 0.9 either way. The search goes
// as TestSearchCapacity's does.
func TestSearchUpperBound(t *testing.T) {
	noUsageAbove4 := func(ctx context.Context, p Plan) (*Outcome, error) {
		out, err := fakeLoad(ctx, p)
		if p.Concurrency > 4 {
			for _, r := range out.Results {
				r.Record.CompletionTokens, r.Record.NoUsage, r.UsageKnown = 0, true, false
			}
		}
		return out, err
	}
	slo := llmmetrics.SLO{TTFT: 135 * time.Millisecond, TPOT: 50 * time.Millisecond}
	p := Plan{URL: "http://h/v1/chat/completions", Requests: 12}
	out, err := SearchCapacity(context.Background(), p, Search{Kind: "concurrency", SLO: slo, Run: noUsageAbove4})
	require.NoError(t, err)
	require.NotNil(t, out.Passing)
	require.NotNil(t, out.Failing)
	assert.Equal(t, [2]float64{4, 5}, [2]float64{*out.Passing, *out.Failing})
	for _, pr := range out.Probes {
		want := 1.0 // all judged and good, at 4 and below
		if pr.Level > 4 {
			want = 4.0 / 12 // 4 unjudged of 12, were they good
		}
		assert.Equal(t, want, pr.Upper, "level %g", pr.Level)
	}
}
