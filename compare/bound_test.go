package compare

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// usageRun is 20 ok requests over a declared second, each with two chunks;
// the first counted of them report 5 output tokens, the others no usage.
func usageRun(t *testing.T, counted int) *llmmetrics.Summary {
	t.Helper()
	recs := make([]llmmetrics.Record, 20)
	for i := range recs {
		recs[i] = llmmetrics.Record{ID: fmt.Sprint(i), Chunks: []time.Duration{100 * time.Millisecond, 140 * time.Millisecond}, NoUsage: i >= counted}
		if i < counted {
			recs[i].CompletionTokens = 5
		}
	}
	s, err := llmmetrics.Summarize(recs, llmmetrics.Options{Window: time.Second})
	require.NoError(t, err)
	return s
}

// A condition on an output rate no answer has a count for cannot be
// judged: it is an AbsentError, never a crossing of "(it is 0)".
func TestGateOutputRateAbsent(t *testing.T) {
	s := usageRun(t, 0)
	c, err := ParseCondition("output_tokens_per_s<100")
	require.NoError(t, err)
	_, _, err = c.Check(s)
	var ae *AbsentError
	require.True(t, errors.As(err, &ae), "%v", err)
	assert.Contains(t, err.Error(), "cannot be judged: no ok request has an output token count")
}

// An output rate over 10 of 20 answers (10 × 5 tokens over 1 s = 50 /s)
// is a lower bound: the true rate is 50 or more. It decides a condition
// only where every rate from 50 up would.
func TestGateOutputRateLowerBound(t *testing.T) {
	checkAll(t, usageRun(t, 10), "lower bound", []checkCase{
		{"output_tokens_per_s<40", true, false, "≥50"}, // ≥ 50 is never below 40
		{"output_tokens_per_s<100", false, false, ""},
		{"output_tokens_per_s>40", true, true, "≥50"}, // ≥ 50 is above 40
		{"output_tokens_per_s>=100", false, false, ""},
	})
}

// A diff of two runs without counts leaves the output rate out, with the
// reason, rather than comparing two zeros.
func TestDiffOutputRateAbsent(t *testing.T) {
	f, _ := runFigureNamed("output_tokens_per_s")
	_, why := f.values([]*llmmetrics.Summary{usageRun(t, 0), usageRun(t, 0)})
	assert.Equal(t, "no ok request has an output token count (20 with no usage)", why)
}

// usageRecords is usageRun's run, unsummarized: 20 ok requests, the first
// counted of them with 5 output tokens, the others with no usage.
func usageRecords(counted int) *llmmetrics.Run {
	recs := make([]llmmetrics.Record, 20)
	for i := range recs {
		recs[i] = llmmetrics.Record{ID: fmt.Sprint(i), Chunks: []time.Duration{100 * time.Millisecond, 140 * time.Millisecond}, NoUsage: i >= counted}
		if i < counted {
			recs[i].CompletionTokens = 5
		}
	}
	return &llmmetrics.Run{Records: recs}
}

// A diff and a sweep count the runs whose output rate is a lower bound,
// and mark it. Over a declared second, A's runs count every answer
// (20 × 5 = 100 /s each); B's count 10 and 16 of 20 (50 and 80 /s):
// median 65, MAD 15, 15/65 = 23 % of it.
func TestDiffSweepLowerBoundCounts(t *testing.T) {
	opt := llmmetrics.Options{Window: time.Second}
	a := []*llmmetrics.Run{usageRecords(20), usageRecords(20)}
	b := []*llmmetrics.Run{usageRecords(10), usageRecords(16)}
	d, err := DiffRuns(a, b, DiffOptions{Summary: opt})
	require.NoError(t, err)
	for _, r := range d.Rows {
		if r.Name != "output_tokens_per_s" {
			assert.False(t, r.LowerBound(), r.Name)
			continue
		}
		assert.True(t, r.LowerBound())
		assert.Equal(t, 0, r.LowerA)
		assert.Equal(t, 2, r.LowerB)
		assert.Equal(t, 100.0, r.A.Median)
		assert.Equal(t, 65.0, r.B.Median)
	}
	var table strings.Builder
	require.NoError(t, d.WriteTable(&table))
	assert.Regexp(t, `output_tokens_per_s \(tokens/s\)\s+100 ± 0%\s+≥65 ± 23%`, table.String())
	assert.Contains(t, table.String(), "in 0 of A's 2 runs and 2 of B's 2; the change of a lower bound is not a change of the rate\n")

	// Each side against itself: A has no bound, B's is marked on both.
	self, err := DiffRuns(a, a, DiffOptions{Summary: opt})
	require.NoError(t, err)
	for _, r := range self.Rows {
		assert.False(t, r.LowerBound(), r.Name)
	}
	self, err = DiffRuns(b, b, DiffOptions{Summary: opt})
	require.NoError(t, err)
	table.Reset()
	require.NoError(t, self.WriteTable(&table))
	assert.Regexp(t, `output_tokens_per_s \(tokens/s\)\s+≥65 ± 23%\s+≥65 ± 23%`, table.String())

	var runs []LevelRun
	for _, r := range a {
		runs = append(runs, LevelRun{Kind: "concurrency", Level: 1, Name: "a", Run: r})
	}
	for _, r := range b {
		runs = append(runs, LevelRun{Kind: "concurrency", Level: 2, Name: "b", Run: r})
	}
	sw, err := SweepRuns(runs, opt)
	require.NoError(t, err)
	one, _ := sw.Levels[0].Figure("output_tokens_per_s")
	two, _ := sw.Levels[1].Figure("output_tokens_per_s")
	assert.Equal(t, 0, one.LowerBound)
	assert.Equal(t, 2, two.LowerBound)
	assert.Equal(t, 65.0, two.Spread.Median)
	rps, _ := sw.Levels[1].Figure("requests_per_s")
	assert.Equal(t, 0, rps.LowerBound)
	table.Reset()
	require.NoError(t, sw.WriteTable(&table))
	assert.Regexp(t, `output_tokens_per_s \(tokens/s\)\s+100 ±0\s+≥65 ±15`, table.String())
	assert.Contains(t, table.String(), "at concurrency 2 (2 of 2 runs); the change of a lower bound is not a change of the rate\n")
}

// The gate's message on an undecided lower bound reads as a sentence:
// 10 × 5 tokens over 1 s = 50 /s counted, of 20 ok requests.
func TestGateLowerBoundMessage(t *testing.T) {
	c, err := ParseCondition("output_tokens_per_s<100")
	require.NoError(t, err)
	_, _, err = c.Check(usageRun(t, 10))
	require.Error(t, err)
	assert.Equal(t, `condition "output_tokens_per_s<100" cannot be judged: ≥50 is a lower bound (it counts the output tokens of 10 of the 20 ok requests; the others have no token count)`, err.Error())
}

// A prompt rate over 10 of 20 ok requests (10 × 65 tokens over 1 s =
// 650 /s) is a lower bound, judged as the output rate's is.
func TestGatePromptRateLowerBound(t *testing.T) {
	recs := make([]llmmetrics.Record, 20)
	for i := range recs {
		recs[i] = llmmetrics.Record{ID: fmt.Sprint(i), Chunks: []time.Duration{100 * time.Millisecond, 140 * time.Millisecond}, CompletionTokens: 5}
		if i < 10 {
			recs[i].PromptTokens = 65
		}
	}
	s, err := llmmetrics.Summarize(recs, llmmetrics.Options{Window: time.Second})
	require.NoError(t, err)
	checkAll(t, s, "cannot be judged: ≥650 is a lower bound (it counts the prompt tokens of 10 of the 20 ok requests; the others have no prompt token count)", []checkCase{
		{"prompt_tokens_per_s<5000", false, false, ""},   // ≥ 650 may be below 5000 or not
		{"prompt_tokens_per_s<600", true, false, "≥650"}, // ≥ 650 is never below 600
		{"prompt_tokens_per_s>600", true, true, "≥650"},
		{"prompt_tokens_per_s>=5000", false, false, ""},
	})
}

// An attainment against a TPOT limit over answers without usage counts
// them unjudged, not good: of usageRun(t, 10) with a TTFT limit of 1 s and
// a TPOT limit of 50 ms, the 10 counted answers (TPOT (140−100)/4 = 10 ms)
// are good and the 10 others unjudged: 10/20 = 0.5, a lower bound, which
// decides "attainment<0.4" (met) but not "attainment<0.9" (cannot be
// judged), where it once read 20/20 and passed.
func TestGateAttainmentLowerBound(t *testing.T) {
	recs := make([]llmmetrics.Record, 20)
	for i := range recs {
		recs[i] = llmmetrics.Record{ID: fmt.Sprint(i), Chunks: []time.Duration{100 * time.Millisecond, 140 * time.Millisecond}, NoUsage: i >= 10}
		if i < 10 {
			recs[i].CompletionTokens = 5
		}
	}
	s, err := llmmetrics.Summarize(recs, llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: time.Second, TPOT: 50 * time.Millisecond}})
	require.NoError(t, err)
	require.Equal(t, [2]int{10, 10}, [2]int{s.Goodput.Good, s.Goodput.Unjudged})
	c, err := ParseCondition("attainment<0.4")
	require.NoError(t, err)
	failed, value, err := c.Check(s)
	require.NoError(t, err)
	assert.False(t, failed)
	assert.Equal(t, "≥0.5", value)
	c, err = ParseCondition("attainment<0.9")
	require.NoError(t, err)
	_, _, err = c.Check(s)
	var ae *AbsentError
	require.True(t, errors.As(err, &ae), "%v", err)
	assert.Contains(t, err.Error(), "10 ok requests met every limit but TPOT")
}

// An attainment that is a lower bound is at most what it would be were
// every unjudged request good, and a condition that both ends decide is
// decided: of 20 answers, 10 counted (TPOT (140−100)/4 = 10 ms) and 10
// without usage, 4 of each with a TTFT of 2 s (over the 1 s limit), 6 are
// good, 6 unjudged and 8 failed: between 6/20 = 0.3 and 12/20 = 0.6.
func TestGateAttainmentUpperBound(t *testing.T) {
	recs := make([]llmmetrics.Record, 20)
	for i := range recs {
		first := 100 * time.Millisecond
		if i%10 < 4 {
			first = 2 * time.Second
		}
		recs[i] = llmmetrics.Record{ID: fmt.Sprint(i), Chunks: []time.Duration{first, first + 40*time.Millisecond}, NoUsage: i >= 10}
		if i < 10 {
			recs[i].CompletionTokens = 5
		}
	}
	s, err := llmmetrics.Summarize(recs, llmmetrics.Options{SLO: &llmmetrics.SLO{TTFT: time.Second, TPOT: 50 * time.Millisecond}})
	require.NoError(t, err)
	require.Equal(t, [3]int{6, 6, 20}, [3]int{s.Goodput.Good, s.Goodput.Unjudged, s.Goodput.Offered})
	for _, tc := range []struct {
		cond    string
		failed  bool
		value   string // "" for cannot be judged
		message string
	}{
		{cond: "attainment<0.7", failed: true, value: "0.3 to 0.6"},   // both ends below
		{cond: "attainment<=0.6", failed: true, value: "0.3 to 0.6"},  // the most it can be is 0.6
		{cond: "attainment<0.6", message: "≥0.3 is a lower bound"},    // 0.6 itself would meet it
		{cond: "attainment<0.5", message: "≥0.3 is a lower bound"},    // between the ends
		{cond: "attainment<0.25", failed: false, value: "≥0.3"},       // the bound meets it
		{cond: "attainment>0.65", failed: false, value: "0.3 to 0.6"}, // both ends at or below
		{cond: "attainment>0.5", message: "≥0.3 is a lower bound"},    // between the ends
		{cond: "attainment>0.2", failed: true, value: "≥0.3"},         // the bound crosses it
	} {
		c, err := ParseCondition(tc.cond)
		require.NoError(t, err)
		failed, value, err := c.Check(s)
		if tc.value == "" {
			var ae *AbsentError
			require.True(t, errors.As(err, &ae), "%s: %v", tc.cond, err)
			assert.Contains(t, err.Error(), tc.message, tc.cond)
			continue
		}
		require.NoError(t, err, tc.cond)
		assert.Equal(t, tc.failed, failed, tc.cond)
		assert.Equal(t, tc.value, value, tc.cond)
	}
}

// A row some of whose values are lower bounds is significant only where
// its direction is sure: one side's bound above the other side's exact
// value (the true figure is higher still), never where both sides are
// bounds or the bound is the lower.
func TestDiffRowDecided(t *testing.T) {
	for _, c := range []struct {
		lowerA, lowerB int
		a, b           float64
		want           bool
	}{
		{0, 0, 10, 5, true},
		{0, 2, 10, 15, true},   // B ≥ 15 > 10
		{0, 2, 10, 6.5, false}, // B ≥ 6.5: above or below 10
		{2, 0, 15, 10, true},   // A ≥ 15 > 10
		{2, 0, 6.5, 10, false},
		{1, 1, 10, 20, false},
	} {
		r := DiffRow{LowerA: c.lowerA, LowerB: c.lowerB, A: Spread[float64]{Median: c.a}, B: Spread[float64]{Median: c.b}, Test: RankTest{P: 0.01}}
		if got := r.finish(0.05).Significant; got != c.want {
			t.Errorf("lower %d/%d, %v → %v: significant %v, want %v", c.lowerA, c.lowerB, c.a, c.b, got, c.want)
		}
	}
}

// A condition on a distribution the run lacks says why it lacks it, as
// the report does: answers whose text came at once have no TTFT.
func TestGateAbsentReason(t *testing.T) {
	recs := []llmmetrics.Record{
		{ID: "a", Chunks: []time.Duration{100 * time.Millisecond}, CompletionTokens: 5},
		{ID: "b", Chunks: []time.Duration{120 * time.Millisecond}, CompletionTokens: 7},
	}
	s, err := llmmetrics.Summarize(recs, llmmetrics.Options{})
	require.NoError(t, err)
	require.Nil(t, s.TTFT)
	c, err := ParseCondition("p99(ttft)>50ms")
	require.NoError(t, err)
	_, _, err = c.Check(s)
	require.Error(t, err)
	assert.Equal(t, `condition "p99(ttft)>50ms" cannot be judged: the run has no ttft distribution: every ok request's text came at once (not streamed), so it has no time to first token or per token`, err.Error())
}

// A run a comparison cannot summarize is named in its error, which keeps
// its sentinel and says the package's prefix once, whoever adds it.
func TestRunErrorNamesTheRun(t *testing.T) {
	good := &llmmetrics.Run{Records: []llmmetrics.Record{{ID: "a", FirstText: time.Millisecond, LastText: 2 * time.Millisecond, CompletionTokens: 2}}}
	bad := &llmmetrics.Run{Records: []llmmetrics.Record{{ID: "a", FirstText: -time.Millisecond, CompletionTokens: 2}}}
	_, err := DiffRuns([]*llmmetrics.Run{good}, []*llmmetrics.Run{good, bad}, DiffOptions{})
	require.Error(t, err)
	assert.ErrorIs(t, err, llmmetrics.ErrNegativeDuration)
	assert.True(t, strings.HasPrefix(err.Error(), "B run 2: "), err.Error())
	assert.Equal(t, 0, strings.Count(err.Error(), "llmmetrics: "), err.Error())
}

// A lower bound significantly above the other side's exact values gives a
// sure direction, and its change is a bound on the figure's: B's four
// runs count 16 of 20 answers (≥80 /s) against A's exact 10 of 10 counted
// from 10-answer runs (5 tokens each: 50 /s), so B is at least 60 % above
// A ("≥+60.00%", p = 0.029, the least four runs against four give).
func TestDiffLowerBoundSure(t *testing.T) {
	opt := llmmetrics.Options{Window: time.Second}
	ten := func() *llmmetrics.Run { r := usageRecords(20); r.Records = r.Records[:10]; return r }
	a := []*llmmetrics.Run{ten(), ten(), ten(), ten()}
	b := []*llmmetrics.Run{usageRecords(16), usageRecords(16), usageRecords(16), usageRecords(16)}
	d, err := DiffRuns(a, b, DiffOptions{Summary: opt})
	require.NoError(t, err)
	var table strings.Builder
	require.NoError(t, d.WriteTable(&table))
	assert.Regexp(t, `output_tokens_per_s \(tokens/s\)\s+50 ± 0%\s+≥80 ± 0%\s+≥\+60\.00% \(p=0\.029 n=4\)`, table.String())
	assert.Contains(t, table.String(), "its direction is sure, and the change is a bound on the figure's (≥)\n")
}
