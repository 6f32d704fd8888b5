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

// tpotRun summarizes 5 ok requests of 5 tokens whose TPOTs are 10, 20,
// 30, 40 and 50 ms (last − first chunk = 4 × TPOT), and uncounted more
// whose server sent no usage: their TPOT is unknown.
func tpotRun(t *testing.T, uncounted int) *llmmetrics.Summary {
	t.Helper()
	var recs []llmmetrics.Record
	for i := range 5 {
		tpot := time.Duration(10*(i+1)) * time.Millisecond
		recs = append(recs, llmmetrics.Record{ID: fmt.Sprint(i), Sent: time.Duration(i) * time.Second,
			Chunks: []time.Duration{100 * time.Millisecond, 100*time.Millisecond + 4*tpot}, CompletionTokens: 5})
	}
	for i := range uncounted {
		recs = append(recs, llmmetrics.Record{ID: fmt.Sprint("u", i), Sent: time.Duration(5+i) * time.Second,
			Chunks: []time.Duration{100 * time.Millisecond, 200 * time.Millisecond}, NoUsage: true})
	}
	s, err := llmmetrics.Summarize(recs, llmmetrics.Options{})
	require.NoError(t, err)
	return s
}

// A condition on a TPOT statistic of a run some of whose ok requests have
// no usable token count is judged only where every value their unknown
// TPOTs could take (any from 0 up, or none) decides it; otherwise it
// cannot be judged, naming how many requests are unknown.
func TestConditionTPOTUncounted(t *testing.T) {
	s := tpotRun(t, 2)
	require.Equal(t, 2, s.Requests.Uncounted.Total())
	// Known: 5 TPOTs, min 10 ms, max 50 ms, mean 30 ms, nearest-rank p50
	// (rank ⌈2.5⌉ = 3) 30 ms, p99 (rank 5) 50 ms.
	checkAll(t, s, "2 ok requests have no usable token count, so their TPOT is unknown", []checkCase{
		// A percentile: the 2 unknown values may sit on either side of any
		// limit, so none is decided.
		{"p99(tpot)>40ms", false, false, ""},
		{"p99(tpot)>60ms", false, false, ""}, // 50 ms of the known; ∞ were the unknown huge
		{"p50(tpot)>20ms", false, false, ""},
		{"p50(tpot)<100ms", false, false, ""},
		// The max is at least the known max, 50 ms.
		{"max(tpot)>40ms", true, true, "≥50ms"},
		{"max(tpot)<=40ms", true, false, "≥50ms"},
		{"max(tpot)>60ms", false, false, ""},
		// The min is at most the known min, 10 ms (down to 0).
		{"min(tpot)<20ms", true, true, "≤10ms"},
		{"min(tpot)>5ms", false, false, ""},
		// The mean is at least the known sum over every request, the
		// unknown at 0: 150 ms / 7 = 21.428571 ms.
		{"mean(tpot)>20ms", true, true, "≥21.428571ms"},
		{"mean(tpot)<20ms", true, false, "≥21.428571ms"},
		{"mean(tpot)>25ms", false, false, ""},
		// No TPOT is below 0: a limit at 0 is decided whatever.
		{"p99(tpot)>=0s", true, true, "≥0s"},
	})

	// The reason says the figure of the known requests and the range.
	c, _ := ParseCondition("p99(tpot)>40ms")
	_, _, err := c.Check(s)
	assert.EqualError(t, err, `condition "p99(tpot)>40ms" cannot be judged: 2 ok requests have no usable token count, so their TPOT is unknown: `+
		`p99(tpot) of the other 5 is 50ms, and of all of them may be anything, on either side of the limit`)
	c, _ = ParseCondition("mean(tpot)>25ms")
	_, _, err = c.Check(s)
	assert.ErrorContains(t, err, "mean(tpot) of the other 5 is 30ms, and of all of them may be anything from 21.428571ms up, on either side of the limit")

	// Every request counted: judged on its figure, as ever; and a
	// condition on another metric is not touched by unknown counts.
	checkAll(t, tpotRun(t, 0), "", []checkCase{
		{"p99(tpot)>40ms", true, true, "50ms"},
		{"p99(tpot)>60ms", true, false, "50ms"},
	})
	checkAll(t, s, "", []checkCase{{"max(e2e)>10s", true, false, "300ms"}}) // 100 ms + 4 × 50 ms
}

// A checkCase is a condition and what Check says of it: decided, whether
// it failed with the value it read, or not, an AbsentError.
type checkCase struct {
	cond    string
	decided bool
	failed  bool
	value   string
}

// checkAll checks each case's condition on s; an undecided one's error
// holds absent.
func checkAll(t *testing.T, s *llmmetrics.Summary, absent string, cases []checkCase) {
	t.Helper()
	for _, tc := range cases {
		c, err := ParseCondition(tc.cond)
		require.NoError(t, err)
		failed, value, err := c.Check(s)
		if !tc.decided {
			var ae *AbsentError
			require.True(t, errors.As(err, &ae), "%s: %v", tc.cond, err)
			assert.Contains(t, err.Error(), absent, tc.cond)
			continue
		}
		require.NoError(t, err, tc.cond)
		assert.Equal(t, tc.failed, failed, tc.cond)
		assert.Equal(t, tc.value, value, tc.cond)
	}
}
