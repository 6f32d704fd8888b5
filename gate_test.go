package llmmetrics

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Three ok requests with TTFT 100, 200 and 300 ms and one failure: by
// hand, nearest-rank p50 TTFT is 200 ms (rank 2 of 3), p99 300 ms (rank
// 3), mean 200 ms; the error rate is 1/4; with an SLO of TTFT ≤ 200 ms the
// attainment is 2/4.
func TestConditions(t *testing.T) {
	ms := time.Millisecond
	recs := []Record{
		{ID: "a", Sent: 0, FirstText: 100 * ms, LastText: 500 * ms, CompletionTokens: 5},
		{ID: "b", Sent: 0, FirstText: 200 * ms, LastText: 600 * ms, CompletionTokens: 5},
		{ID: "c", Sent: 0, FirstText: 300 * ms, LastText: 700 * ms, CompletionTokens: 5},
		{ID: "d", Sent: 0, Status: StatusError},
	}
	s, err := Summarize(recs, Options{SLO: &SLO{TTFT: 200 * ms}})
	require.NoError(t, err)
	for _, tc := range []struct {
		cond   string
		failed bool
		value  string
	}{
		{"p50(ttft)>200ms", false, "200ms"},
		{"p50(ttft)>=200ms", true, "200ms"},
		{"p99(ttft) > 250ms", true, "300ms"},
		{"mean(ttft)<150ms", false, "200ms"},
		{"max(e2e)<=700ms", true, "700ms"},
		{"min(tpot)>100ms", false, "100ms"}, // (500−100)/4 = 100 ms
		{"error_rate>0.2", true, "0.25"},
		{"attainment<0.5", false, "0.5"},
		{"attainment<=0.5", true, "0.5"},
	} {
		c, err := ParseCondition(tc.cond)
		require.NoError(t, err, tc.cond)
		failed, value, err := c.Check(s)
		require.NoError(t, err, tc.cond)
		assert.Equal(t, tc.failed, failed, tc.cond)
		assert.Equal(t, tc.value, value, tc.cond)
	}
	for _, bad := range []string{"p99(ttft)", "p99(latency)>1s", "q99(ttft)>1s", "p99(ttft)>fast", "p101(ttft)>1s",
		"throughput>5", "error_rate>x", "p99(ttft>1s"} {
		_, err := ParseCondition(bad)
		assert.ErrorIs(t, err, ErrInvalidOption, bad)
	}
	// A figure the summary lacks is an error, never a pass.
	for _, missing := range []string{"p90.5(ttft)>1s", "p99.9(ttft)>1s"} {
		c, err := ParseCondition(missing)
		require.NoError(t, err)
		_, _, err = c.Check(s)
		assert.ErrorIs(t, err, ErrInvalidOption, missing)
	}
	noSLO, err := Summarize(recs, Options{})
	require.NoError(t, err)
	c, _ := ParseCondition("attainment<0.9")
	_, _, err = c.Check(noSLO)
	assert.ErrorIs(t, err, ErrInvalidOption)
}
