package compare

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// A conditionCase is a condition with the verdict and the figure a
// summary gives it, by hand.
type conditionCase struct {
	cond   string
	failed bool
	value  string
}

// checkConditions checks each case's condition against s.
func checkConditions(t *testing.T, s *llmmetrics.Summary, cases []conditionCase) {
	t.Helper()
	for _, tc := range cases {
		c, err := ParseCondition(tc.cond)
		require.NoError(t, err, tc.cond)
		failed, value, err := c.Check(s)
		require.NoError(t, err, tc.cond)
		assert.Equal(t, tc.failed, failed, tc.cond)
		assert.Equal(t, tc.value, value, tc.cond)
	}
}

// Three ok requests with TTFT 100, 200 and 300 ms and one failure: by
// hand, nearest-rank p50 TTFT is 200 ms (rank 2 of 3), p99 300 ms (rank
// 3), mean 200 ms; the error rate is 1/4; with an SLO of TTFT ≤ 200 ms the
// attainment is 2/4.
func TestConditions(t *testing.T) {
	ms := time.Millisecond
	recs := []llmmetrics.Record{
		{ID: "a", Sent: 0, FirstText: 100 * ms, LastText: 500 * ms, CompletionTokens: 5},
		{ID: "b", Sent: 0, FirstText: 200 * ms, LastText: 600 * ms, CompletionTokens: 5},
		{ID: "c", Sent: 0, FirstText: 300 * ms, LastText: 700 * ms, CompletionTokens: 5},
		{ID: "d", Sent: 0, Status: llmmetrics.StatusError},
	}
	s, err := llmmetrics.Summarize(recs, llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: 200 * ms}})
	require.NoError(t, err)
	checkConditions(t, s, []conditionCase{
		{"p50(ttft)>200ms", false, "200ms"},
		{"p50(ttft)>=200ms", true, "200ms"},
		{"p99(ttft) > 250ms", true, "300ms"},
		{"mean(ttft)<150ms", false, "200ms"},
		{"max(e2e)<=700ms", true, "700ms"},
		{"min(tpot)>100ms", false, "100ms"}, // (500−100)/4 = 100 ms
		{"error_rate>0.2", true, "0.25"},
		{"attainment<0.5", false, "0.5"},
		{"attainment<=0.5", true, "0.5"},
	})
	for _, bad := range []string{"p99(ttft)", "p99(latency)>1s", "q99(ttft)>1s", "p99(ttft)>fast", "p101(ttft)>1s",
		"throughput>5", "error_rate>x", "p99(ttft>1s"} {
		_, err := ParseCondition(bad)
		assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption, bad)
	}
	// A figure the summary lacks is an error, never a pass.
	for _, missing := range []string{"p90.5(ttft)>1s", "p99.9(ttft)>1s"} {
		c, err := ParseCondition(missing)
		require.NoError(t, err)
		_, _, err = c.Check(s)
		assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption, missing)
	}
	noSLO, err := llmmetrics.Summarize(recs, llmmetrics.Options{})
	require.NoError(t, err)
	c, _ := ParseCondition("attainment<0.9")
	_, _, err = c.Check(noSLO)
	assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption)
}

// FuzzParseCondition: a gate condition either parses into a known metric
// and comparison, or is refused with llmmetrics.ErrInvalidOption; checking it against
// a summary never panics.
func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{"p99(ttft)>500ms", "mean(tpot)>=40ms", "error_rate>0.01", "attainment<0.95", "p99.9(e2e)<=1s", "p(ttft)>1s", ">", "max(itl)>"} {
		f.Add(s)
	}
	sum, err := llmmetrics.Summarize([]llmmetrics.Record{{ID: "a", FirstText: time.Second, LastText: 2 * time.Second, CompletionTokens: 3}}, llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: time.Second}})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := ParseCondition(s)
		if err != nil {
			if !errors.Is(err, llmmetrics.ErrInvalidOption) {
				t.Fatalf("%q: %v", s, err)
			}
			return
		}
		switch c.Op {
		case ">", ">=", "<", "<=":
		default:
			t.Fatalf("%q: op %q", s, c.Op)
		}
		if _, _, err := c.Check(sum); err != nil && !errors.Is(err, llmmetrics.ErrInvalidOption) {
			t.Fatalf("%q: %v", s, err)
		}
	})
}

// An open loop's TTFT and E2E from the scheduled time gate as the others
// do. Request a was due at 0 and sent at 300 ms (late by 300 ms), its
// first chunk 100 ms and its last 500 ms after the send; b was sent when
// due, first chunk at 200 ms, last at 600 ms. By hand, from the scheduled
// time: TTFT 400 and 200 ms (max 400 ms, the send-time max is 200 ms), E2E
// 800 and 600 ms (mean 700 ms). A closed loop's records carry no schedule:
// the figure is missing, an error.
func TestConditionsFromScheduled(t *testing.T) {
	ms := time.Millisecond
	due := func(at time.Duration) *llmmetrics.ClientSide {
		return &llmmetrics.ClientSide{Scheduled: at, HasSchedule: true}
	}
	open := []llmmetrics.Record{
		{ID: "a", Sent: 300 * ms, FirstText: 100 * ms, LastText: 500 * ms, CompletionTokens: 5, Client: due(0)},
		{ID: "b", Sent: 0, FirstText: 200 * ms, LastText: 600 * ms, CompletionTokens: 5, Client: due(0)},
	}
	s, err := llmmetrics.Summarize(open, llmmetrics.Options{})
	require.NoError(t, err)
	checkConditions(t, s, []conditionCase{
		{"max(ttft)>300ms", false, "200ms"},
		{"max(ttft_from_scheduled)>300ms", true, "400ms"},
		{"p50(ttft_from_scheduled)>=200ms", true, "200ms"},
		{"mean(e2e_from_scheduled)<700ms", false, "700ms"},
		{"max(e2e_from_scheduled)>=800ms", true, "800ms"},
	})
	closed, err := llmmetrics.Summarize([]llmmetrics.Record{{ID: "a", FirstText: 100 * ms, LastText: 500 * ms, CompletionTokens: 5}}, llmmetrics.Options{})
	require.NoError(t, err)
	c, err := ParseCondition("p99(ttft_from_scheduled)>1s")
	require.NoError(t, err)
	_, _, err = c.Check(closed)
	assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption)
	assert.ErrorContains(t, err, "only an open loop's ok requests carry a scheduled time")
}

// error_rate is the failed share of the measured requests: a run of 2
// preflight and 4 warm-up requests, all ok, then 6 measured requests, all
// failed, has error_rate 6/6 = 1 (it was 6/12 = 0.5, the warm-up and
// preflight in the denominator, and error_rate>0.99 passed).
func TestErrorRateMeasured(t *testing.T) {
	var recs []llmmetrics.Record
	for i := range 12 {
		r := llmmetrics.Record{ID: fmt.Sprint(i), Sent: time.Duration(i) * time.Millisecond}
		switch {
		case i < 2:
			r.Preflight, r.FirstText, r.LastText, r.CompletionTokens = true, time.Millisecond, time.Millisecond, 1
		case i < 6:
			r.Warmup, r.FirstText, r.LastText, r.CompletionTokens = true, time.Millisecond, 2*time.Millisecond, 2
		default:
			r.Status, r.Message = llmmetrics.StatusError, "HTTP 500: boom"
		}
		recs = append(recs, r)
	}
	s, err := (&llmmetrics.Run{Records: recs}).Summarize(llmmetrics.Options{})
	require.NoError(t, err)
	c, err := ParseCondition("error_rate>0.99")
	require.NoError(t, err)
	bad, value, err := c.Check(s)
	require.NoError(t, err)
	assert.True(t, bad)
	assert.Equal(t, "1", value)
}
