package main

import (
	"bytes"
	"fmt"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/drive"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// sentAs makes the result of request id, due at due on the run's clock
// and sent late after it, with its prompt and completion tokens and the
// cached tokens the server reported (negative: none reported).
func sentAs(id int, due, late time.Duration, prompt, completion, maxTokens, cached int) *observe.Result {
	res := &observe.Result{}
	r := &res.Record
	r.ID, r.Status, r.Sent = fmt.Sprint(id), llmmetrics.StatusOK, due+late
	r.PromptTokens, r.CompletionTokens, r.MaxTokens = prompt, completion, maxTokens
	r.Client = &llmmetrics.ClientSide{Scheduled: due, HasSchedule: true}
	if cached >= 0 {
		res.CachedTokens, res.CacheKnown = cached, true
	}
	return res
}

// A plan of a warm-up and four measured requests, the measured part
// starting at 10 s on the run's clock, sent as asked: no warning; the
// lateness p50 and p99 by nearest rank of {1, 2, 3, 40} ms: 2 and 40;
// three requests in minute 0 and one in minute 1. The prefix blocks of
// 100 tokens: request 3 shares block 0 (100) with request 2, request 4
// shares nothing; the warm-up's block 9 is shared by request 2 (100):
// 200 of 4·300 = 16.7% planned. The server counted the prompts 301, 299,
// 302 and 300, and reported cached tokens for the last three: 100 + 100 +
// 5 of 901 = 22.75%; of those planned to share (299 and 302) 200 of 601 =
// 33.28%, of the last, 5 of 300 = 1.67%.
func TestFidelity(t *testing.T) {
	plan := []drive.Request{
		{Warmup: true, PromptTokens: 300, MaxTokens: 8, PrefixBlocks: []int{9}},
		{Scheduled: 0, HasSchedule: true, PromptTokens: 300, MaxTokens: 8, PrefixBlocks: []int{0, 1}},
		{Scheduled: 30 * time.Second, HasSchedule: true, PromptTokens: 300, MaxTokens: 8, PrefixBlocks: []int{9, 2}},
		{Scheduled: 50 * time.Second, HasSchedule: true, PromptTokens: 300, MaxTokens: 8, PrefixBlocks: []int{0, 3}},
		{Scheduled: 70 * time.Second, HasSchedule: true, PromptTokens: 300, MaxTokens: 8, PrefixBlocks: []int{4}},
	}
	start := 10 * time.Second
	warm := sentAs(1, 0, 0, 300, 8, 8, 0)
	warm.Record.Warmup, warm.Record.Client = true, nil
	results := []*observe.Result{
		{Record: llmmetrics.Record{ID: "preflight-1", Preflight: true, Status: llmmetrics.StatusOK}},
		warm,
		sentAs(2, start, time.Millisecond, 301, 8, 8, -1),
		sentAs(3, start+30*time.Second, 2*time.Millisecond, 299, 8, 8, 100),
		sentAs(4, start+50*time.Second, 3*time.Millisecond, 302, 8, 8, 100),
		sentAs(5, start+70*time.Second, 40*time.Millisecond, 300, 8, 8, 5),
	}
	fd := newFidelity(plan, 100, 6, results, "")
	require.NotNil(t, fd)
	assert.Empty(t, fd.Warnings)
	assert.Equal(t, 4, fd.Asked)
	assert.Equal(t, 4, fd.Sent)
	assert.InDelta(t, 2.0, *fd.LatenessP50MS, 1e-9)
	assert.InDelta(t, 40.0, *fd.LatenessP99MS, 1e-9)
	assert.Equal(t, []minuteLoad{{0, 3, 3}, {1, 1, 1}}, fd.Minutes)
	assert.Equal(t, 0, fd.EarlyStops)
	assert.Equal(t, 2, fd.Prompt.OffP99, "|302 − 300|")
	assert.Equal(t, 0, fd.Prompt.Off)
	pr := fd.Prefix
	require.NotNil(t, pr)
	assert.InDelta(t, 100*200.0/1200, pr.PlannedPct, 1e-9)
	assert.Equal(t, 3, pr.Reported)
	assert.InDelta(t, 100*205.0/901, *pr.CachedPct, 1e-9)
	assert.InDelta(t, 100*200.0/601, *pr.SharedCachedPct, 1e-9)
	assert.InDelta(t, 100*5.0/300, *pr.UnsharedCachedPct, 1e-9)

	var b bytes.Buffer
	fd.write(&b)
	assert.Contains(t, b.String(), "requests         asked 4, sent 4")
	assert.Contains(t, b.String(), "by minute        0: 3 asked, 3 sent; 1: 1 asked, 1 sent")
	assert.Contains(t, b.String(), "planned 16.7% of the prompt tokens; the server reported 22.8% cached (3 requests), 33.3% of the requests planned to share a prefix, 1.7% of the others")
}

// The sent load is not the asked one: five requests never sent (a
// minute short by more than one), lateness p99 above 100 ms (150 ms, the
// most of 0, 10, …, 150), and outputs that stopped early (KS of {8×21}
// against {2×16}: D 1, p far below 0.01, all 16 off).
func TestFidelityWarnings(t *testing.T) {
	var plan []drive.Request
	var results []*observe.Result
	for i := range 21 {
		due := time.Duration(i) * time.Second
		plan = append(plan, drive.Request{Scheduled: due, HasSchedule: true, PromptTokens: 100, MaxTokens: 8})
		if i < 16 {
			results = append(results, sentAs(i+1, due, time.Duration(i)*10*time.Millisecond, 100, 2, 8, -1))
		}
	}
	fd := newFidelity(plan, 0, 1, results, "")
	require.NotNil(t, fd)
	assert.Nil(t, fd.Prefix)
	assert.Equal(t, 16, fd.EarlyStops)
	assert.InDelta(t, 1.0, fd.Output.KS.D, 1e-12)
	assert.Less(t, fd.Output.KS.P, 0.01)
	require.Len(t, fd.Warnings, 4, "%q", fd.Warnings)
	assert.Contains(t, fd.Warnings[0], "16 of the 21 requests asked were sent")
	assert.Contains(t, fd.Warnings[1], "lateness p99 is 150.0 ms")
	assert.Contains(t, fd.Warnings[2], "minute 0 asked 21 requests and sent 16")
	assert.Contains(t, fd.Warnings[3], "the output lengths differ")

	// Interrupted by SIGTERM, the five never sent and the short minute
	// are the signal's doing: the lateness and the lengths are still
	// warned about, and the section says why the rest were not sent.
	fd = newFidelity(plan, 0, 1, results, "SIGTERM")
	require.Len(t, fd.Warnings, 2, "%q", fd.Warnings)
	assert.Contains(t, fd.Warnings[0], "lateness p99 is 150.0 ms")
	assert.Contains(t, fd.Warnings[1], "the output lengths differ")
	var b bytes.Buffer
	fd.write(&b)
	assert.Contains(t, b.String(), "asked 21, sent 16 (the run was interrupted by SIGTERM before the rest were sent)")
}

// A fit's line keeps its figures, and says when every length is within
// the resolution of its own: a KS test sees a shift of a word there (300
// asked, 302 counted: D 1), not a misfit, and no warning follows.
func TestLengthFitLine(t *testing.T) {
	prompt := lengthFit{AskedP50: 300, SentP50: 302, Sent: 40, KS: ksTest{D: 1, P: 5.55e-10}, OffP50: 2, OffP99: 2, Resolution: 1.3}
	offPrompt := prompt
	offPrompt.Off = 3
	output := lengthFit{AskedP50: 64, SentP50: 64, Sent: 40, KS: ksTest{D: 0, P: 1}}
	for _, c := range []struct {
		f    lengthFit
		want string
	}{
		{prompt, "median 300 asked, 302 sent (40 requests, as the server counted); KS D 1.000, p 5.55e-10; each off its own by p50 2, p99 2; 0 off by more than 1.3 (a word) and 2%: all within a word or 2% of their own, no warning"},
		{offPrompt, "median 300 asked, 302 sent (40 requests, as the server counted); KS D 1.000, p 5.55e-10; each off its own by p50 2, p99 2; 3 off by more than 1.3 (a word) and 2%"},
		{output, "median 64 asked, 64 sent (40 requests, as the server counted); KS D 0.000, p 1; each off its own by p50 0, p99 0; 0 off: all within 2% of their own, no warning"},
	} {
		assert.Equal(t, c.want, c.f.String())
	}
}
