package llmmetrics

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Requests a load generator stopped at its run's end, without their
// outcome (GuideLLM's incomplete ones), are counted apart: neither ok nor
// failed, never a sample, not judged by an SLO; their sends are among the
// arrivals.
func TestSummarizeUnfinished(t *testing.T) {
	recs := []Record{
		{ID: "r1", Sent: 0, Chunks: durations(100, 140, 180), CompletionTokens: 3},
		{ID: "r2", Sent: ms(10), Chunks: durations(50, 90), CompletionTokens: 2},
		{ID: "r3", Sent: ms(20), Status: StatusError, Message: "HTTP 500: boom"},
		{ID: "r4", Sent: ms(30), Status: StatusCancelled, Unfinished: true, Message: "TimeoutError: The request timed out before completing."},
		{ID: "r5", Sent: ms(40), Status: StatusCancelled, Unfinished: true},
	}
	assert.Equal(t, CategoryWarmup, recs[3].Category())
	s, err := Summarize(recs, Options{SLO: &SLO{TTFT: ms(1000)}})
	require.NoError(t, err)
	a := s.Requests
	// 5 offered = 2 ok + 1 failed + 2 unfinished.
	assert.Equal(t, Accounting{Offered: 5, OK: 2, Failed: 1, Errors: 1, Unfinished: 2}, a)
	assert.Equal(t, a.Offered, a.OK+a.ZeroToken+a.Failed+a.Rejected+a.Warmup+a.Preflight+a.Unfinished)
	// r1 and r2 meet TTFT ≤ 1 s (100 and 50 ms), r3 failed: 2 good of the
	// 3 judged; r4 and r5 are not judged.
	require.NotNil(t, s.Goodput)
	assert.Equal(t, 2, s.Goodput.Good)
	assert.Equal(t, 3, s.Goodput.Offered)
	assert.InDelta(t, 2.0/3, s.Goodput.Attainment, 1e-15)
	// Window: first send 0 → last text max(180, 10 + 90) = 180 ms; two ok
	// requests, 5 output tokens.
	require.NotNil(t, s.Throughput)
	assert.Equal(t, ms(180), s.Throughput.Window.Length)
	assert.Equal(t, 2, s.Throughput.Requests)
	assert.Equal(t, int64(5), s.Throughput.OutputTokens)
	// Arrivals: sends at 0, 10, 20, 30, 40 ms, the unfinished included: 4
	// gaps of 10 ms.
	require.NotNil(t, s.Workload)
	require.NotNil(t, s.Workload.Arrivals)
	assert.Equal(t, 4, s.Workload.Arrivals.Gaps)
	assert.Equal(t, ms(10), s.Workload.Arrivals.Mean)

	var b bytes.Buffer
	require.NoError(t, s.WriteTable(&b))
	assert.Contains(t, b.String(), "requests: 5 offered = 2 ok + 0 zero-token + 1 failed + 0 rejected + 2 unfinished at the run's end (not measured, not failed)\n")
	assert.Contains(t, b.String(), "failed: 1 error, 0 timeout, 0 cancelled;")
	assert.Contains(t, b.String(), "attainment  2 good / 3 offered = 66.67% (failed, zero-token and rejected requests stay in the denominator; the 2 unfinished at the run's end are not judged)\n")
	out, err := json.Marshal(s)
	require.NoError(t, err)
	assert.Contains(t, string(out), `"cancelled":0,"unfinished":2`)
}

// Every request unfinished: nothing is measured or judged, and the
// reasons say so.
func TestSummarizeAllUnfinished(t *testing.T) {
	recs := []Record{{ID: "r1", Status: StatusCancelled, Unfinished: true}}
	s, err := Summarize(recs, Options{SLO: &SLO{TTFT: ms(1000)}})
	require.NoError(t, err)
	assert.Nil(t, s.Goodput)
	assert.Equal(t, "every request was warm-up, preflight or unfinished at the run's end: none was judged", s.Absent["goodput"])
	assert.Equal(t, "no request was measured: every record is preflight, warm-up, unfinished at the run's end or rejected", s.Absent["ttft"])
	assert.Equal(t, s.Absent["ttft"], s.Absent["throughput"])
}

// The throughput line counts the ok requests and says how many the output
// rate leaves out, and why: of uncountedRun's four ok requests, r1 alone
// has a usable count.
func TestThroughputLineLeftOut(t *testing.T) {
	s, err := Summarize(uncountedRun(), Options{})
	require.NoError(t, err)
	var b bytes.Buffer
	require.NoError(t, s.WriteTable(&b))
	assert.Contains(t, b.String(), "counting 4 ok requests; the output rate counts 1 of them, 3 left out (1 no usage, 1 usage of zero, 1 count below the chunks):\n")

	// One reason alone is named without its count; none, not at all.
	assert.Equal(t, "; the output rate counts 86 of them, 3 left out (count below the chunks)", Uncounted{BelowChunks: 3}.leftOut(89))
	assert.Equal(t, "", Uncounted{}.leftOut(89))
}
