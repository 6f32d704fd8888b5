package compare

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"

	"github.com/llmmetrics/llmmetrics"
)

// levelRun makes a run of 10 requests of which good have TTFT ttft and the
// rest 1 s (past a 200 ms SLO), each 5 tokens over 80 ms of decode.
// runSeq numbers the runs levelRun makes, so that two of them are two
// runs (their record ids differ), not one run twice (sameRun).
var runSeq atomic.Int64

func levelRun(level float64, ttft time.Duration, good int, env map[string]string) LevelRun {
	seq := runSeq.Add(1)
	var recs []llmmetrics.Record
	for i := range 10 {
		t := ttft
		if i >= good {
			t = time.Second
		}
		recs = append(recs, llmmetrics.Record{ID: fmt.Sprintf("%c%d", 'a'+i, seq), Sent: time.Duration(i) * time.Second, FirstText: t, LastText: t + 80*time.Millisecond,
			CompletionTokens: 5, PromptTokens: 50})
	}
	run := &llmmetrics.Run{Records: recs}
	if env != nil {
		run.Header = &llmmetrics.RunHeader{Env: env}
	}
	return LevelRun{Kind: "concurrency", Level: level, Name: "c" + string(rune('0'+int(level))), Run: run}
}

func TestSweepAndCapacity(t *testing.T) {
	ms := time.Millisecond
	gpu := map[string]string{"gpu": "H100"}
	runs := []LevelRun{
		levelRun(4, 100*ms, 5, gpu), levelRun(4, 100*ms, 5, gpu), levelRun(4, 100*ms, 5, gpu),
		levelRun(1, 100*ms, 10, gpu), levelRun(1, 110*ms, 10, gpu), levelRun(1, 130*ms, 10, gpu),
		levelRun(2, 100*ms, 9, gpu), levelRun(2, 100*ms, 9, map[string]string{"gpu": "A100"}),
	}
	slo := llmmetrics.SLO{TTFT: 200 * ms}
	sw, err := SweepRuns(runs, llmmetrics.Options{SLO: &slo})
	require.NoError(t, err)
	require.Len(t, sw.Levels, 3)
	assert.Equal(t, []float64{1, 2, 4}, []float64{sw.Levels[0].Level, sw.Levels[1].Level, sw.Levels[2].Level})
	// Level 1: each run's TTFTs are all equal, so its p50 is 100, 110 or
	// 130 ms: median 110, MAD median(10, 0, 20) = 10.
	f, ok := sw.Levels[0].Figure("ttft p50")
	require.True(t, ok)
	assert.Equal(t, Spread[float64]{N: 3, Median: 110, MAD: 10, ScaledMAD: 10 * madScale}, f.Spread)
	// TPOT: 80 ms over 4 gaps = 20 ms; User TPS 4/0.08 s = 50 tokens/s.
	f, _ = sw.Levels[0].Figure("tpot p50")
	assert.Equal(t, 20.0, f.Spread.Median)
	f, _ = sw.Levels[0].Figure("user_tps p50")
	assert.InDelta(t, 50.0, f.Spread.Median, 1e-9)
	// Attainment: 10/10, 9/10, 5/10.
	for i, want := range []float64{1, 0.9, 0.5} {
		f, _ := sw.Levels[i].Figure("attainment")
		assert.InDelta(t, want, f.Spread.Median, 1e-12)
	}
	assert.Len(t, sw.Warnings, 1, "level 2 has 2 runs")
	assert.Contains(t, sw.Warnings[0], "concurrency 2 has 2 run(s)")
	assert.Empty(t, sw.Env, "the runs disagree on the GPU")
	assert.Equal(t, []string{"gpu"}, sw.EnvDiffers)

	// Capacity at 90 %: level 2 meets it exactly (margin 0), 4 fails: the
	// crossing is at 2. At 95 %: 1 passes (margin 0.05), 2 fails (−0.05):
	// linear between them, 1.5.
	c, err := sw.Capacity(0.9)
	require.NoError(t, err)
	assert.Equal(t, 2.0, *c.Passing)
	assert.Equal(t, 4.0, *c.Failing)
	assert.InDelta(t, 2.0, *c.Crossing, 1e-12)
	c, _ = sw.Capacity(0.95)
	assert.Equal(t, 1.0, *c.Passing)
	assert.InDelta(t, 1.5, *c.Crossing, 1e-12)
	// Every level passes at 40 %: the capacity is only bounded below.
	c, _ = sw.Capacity(0.4)
	assert.Equal(t, 4.0, *c.Passing)
	assert.Nil(t, c.Failing)
	assert.Nil(t, c.Crossing)
	assert.Contains(t, c.Reason, "not extrapolated")
	// At 100 %, level 1 (10/10) passes and level 2 (9/10) fails.
	c, _ = sw.Capacity(1)
	assert.Equal(t, 1.0, *c.Passing)

	var b strings.Builder
	require.NoError(t, sw.WriteTable(&b))
	assert.Contains(t, b.String(), "ttft p50 (ms)")
	assert.Contains(t, b.String(), "110 ±10")
	assert.Contains(t, b.String(), "the runs disagree on: gpu")

	_, err = sw.Capacity(1.5)
	assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption)
	noSLO, _ := SweepRuns(runs, llmmetrics.Options{})
	_, err = noSLO.Capacity(0.9)
	assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption)
	_, err = SweepRuns(nil, llmmetrics.Options{})
	assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption)
	mixed := append([]LevelRun{}, runs...)
	mixed[0].Kind = "rate"
	_, err = SweepRuns(mixed, llmmetrics.Options{})
	assert.ErrorIs(t, err, llmmetrics.ErrInvalidOption)
}

// A sweep's median over one repeat is that repeat's figure; capacity
// never lies outside the measured levels.
func TestSweepOneRepeat(t *testing.T) {
	r := levelRun(8, 120*time.Millisecond, 7, nil)
	slo := llmmetrics.SLO{TTFT: 200 * time.Millisecond}
	sw, err := SweepRuns([]LevelRun{r}, llmmetrics.Options{SLO: &slo})
	require.NoError(t, err)
	s, err := r.Run.Summarize(llmmetrics.Options{SLO: &slo})
	require.NoError(t, err)
	p99, _ := s.TTFT.At(llmmetrics.MustPercentile(99))
	f, _ := sw.Levels[0].Figure("ttft p99")
	assert.Equal(t, millis(p99), f.Spread.Median)
	assert.Zero(t, f.Spread.MAD)
	// The table does not print that zero as a spread.
	var b bytes.Buffer
	require.NoError(t, sw.WriteTable(&b))
	assert.Regexp(t, `ttft p50 \(ms\)\s+120 ±\?`, b.String())
	assert.NotContains(t, b.String(), "±0")
	assert.Contains(t, b.String(), "±? marks a level of one run")
	assert.Equal(t, 1, sw.EnvMissing)
	c, err := sw.Capacity(0.9)
	require.NoError(t, err)
	assert.Equal(t, 8.0, *c.Failing)
	assert.Nil(t, c.Passing)
	assert.Contains(t, c.Reason, "below it")
}

func TestLevelOf(t *testing.T) {
	kind, level, ok := LevelOf(&llmmetrics.Run{Header: &llmmetrics.RunHeader{Load: map[string]string{"loop": "closed", "concurrency": "8"}}})
	assert.True(t, ok)
	assert.Equal(t, "concurrency", kind)
	assert.Equal(t, 8.0, level)
	kind, level, ok = LevelOf(&llmmetrics.Run{Header: &llmmetrics.RunHeader{Load: map[string]string{"loop": "open", "rate_per_s": "2.5", "max_in_flight": "8"}}})
	assert.True(t, ok)
	assert.Equal(t, "rate", kind)
	assert.Equal(t, 2.5, level)
	_, _, ok = LevelOf(&llmmetrics.Run{})
	assert.False(t, ok)
}

// Whatever the attainments, the capacity's bracket and crossing lie among
// the measured levels: never extrapolated.
func TestCapacityWithinLevels(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		n := rapid.IntRange(1, 5).Draw(t, "levels")
		var runs []LevelRun
		lo, hi := math.Inf(1), math.Inf(-1)
		for i := range n {
			level := float64(rapid.IntRange(1, 64).Draw(t, fmt.Sprint("level", i)))
			good := rapid.IntRange(0, 10).Draw(t, fmt.Sprint("good", i))
			runs = append(runs, levelRun(level, 100*time.Millisecond, good, nil))
			lo, hi = min(lo, level), max(hi, level)
		}
		slo := llmmetrics.SLO{TTFT: 200 * time.Millisecond}
		sw, err := SweepRuns(runs, llmmetrics.Options{SLO: &slo})
		if err != nil {
			t.Fatal(err)
		}
		c, err := sw.Capacity(rapid.Float64Range(0.05, 1).Draw(t, "target"))
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range []*float64{c.Passing, c.Failing, c.Crossing} {
			if p != nil && (*p < lo || *p > hi) {
				t.Fatalf("%v outside [%v, %v]: %s", *p, lo, hi, c.Reason)
			}
		}
		if c.Passing != nil && c.Failing != nil && *c.Passing >= *c.Failing {
			t.Fatalf("passing %v ≥ failing %v", *c.Passing, *c.Failing)
		}
	})
}

// A level whose attainment is only a lower bound (its requests without a
// usable count unjudged against a TPOT limit) is no miss: at concurrency 2,
// every request lacks usage, so its attainment reads ≥0; the capacity
// passes concurrency 1 (all counted, 10 good of 10) and is not read past
// it, where it once said concurrency 2 failed.
func TestCapacityLowerBound(t *testing.T) {
	ms := time.Millisecond
	noUsage := withoutUsage(levelRun(2, 100*ms, 10, nil))
	slo := llmmetrics.SLO{TTFT: 200 * ms, TPOT: 50 * ms}
	sw, err := SweepRuns([]LevelRun{levelRun(1, 100*ms, 10, nil), noUsage}, llmmetrics.Options{SLO: &slo})
	require.NoError(t, err)
	c, err := sw.Capacity(0.9)
	require.NoError(t, err)
	require.NotNil(t, c.Passing)
	assert.Equal(t, 1.0, *c.Passing)
	assert.Nil(t, c.Failing, c.Reason)
	assert.Contains(t, c.Reason, "only a lower bound")
	assert.True(t, c.Margins[1].LowerBound)
	// A target's percentage reads as given (100 × 0.55 is 55.00000000000001).
	c, err = sw.Capacity(0.55)
	require.NoError(t, err)
	assert.Contains(t, c.Reason, "whether it meets 55% cannot be told")
}

// A level whose attainment is a lower bound is a miss where even the most
// it can be is below the target: at concurrency 2, no request has usage
// and 6 of 10 miss the TTFT limit, so the 4 others are unjudged and the
// attainment is between 0 and 4/10. The capacity passes concurrency 1 and
// fails at 2, with no crossing read between them (the miss's margin is
// unknown).
func TestCapacityUpperBound(t *testing.T) {
	ms := time.Millisecond
	noUsage := withoutUsage(levelRun(2, 100*ms, 4, nil))
	slo := llmmetrics.SLO{TTFT: 200 * ms, TPOT: 50 * ms}
	sw, err := SweepRuns([]LevelRun{levelRun(1, 100*ms, 10, nil), noUsage}, llmmetrics.Options{SLO: &slo})
	require.NoError(t, err)
	f, ok := sw.Levels[1].Figure("attainment")
	require.True(t, ok)
	require.NotNil(t, f.Upper)
	assert.Equal(t, [3]float64{0, 0.4, 1}, [3]float64{f.Spread.Median, *f.Upper, float64(f.LowerBound)})
	c, err := sw.Capacity(0.9)
	require.NoError(t, err)
	require.NotNil(t, c.Passing)
	require.NotNil(t, c.Failing, c.Reason)
	assert.Equal(t, [2]float64{1, 2}, [2]float64{*c.Passing, *c.Failing})
	assert.Nil(t, c.Crossing)
	assert.Contains(t, c.Reason, "fails at 2, whose attainment is at most 0.4 (at least 0")
	var js bytes.Buffer
	require.NoError(t, json.NewEncoder(&js).Encode(sw))
	assert.Contains(t, js.String(), `"lower_bound":true,"lower_bound_runs":1,"upper_bound":0.4`)
	// Rows a level lacks are absent with their reason: at 2, no output
	// token count, so no output rate or TPOT.
	assert.Contains(t, sw.Levels[1].Absent["output_tokens_per_s"], "token count")
	assert.Contains(t, js.String(), `"absent":{`)
	var text strings.Builder
	require.NoError(t, sw.WriteTable(&text))
	assert.Contains(t, text.String(), "absent: output_tokens_per_s at concurrency 2: ")
}

// withoutUsage returns r with no token count in any record, as answers
// without usage have.
func withoutUsage(r LevelRun) LevelRun {
	for i := range r.Run.Records {
		rec := &r.Run.Records[i]
		rec.CompletionTokens, rec.NoUsage = 0, true
	}
	return r
}

// A crossing read from a passing level whose attainment is a lower bound
// is a lower bound too: at concurrency 1, half the requests lack usage
// (≥0.5, at most 1), at 2 all are judged and 2 of 10 meet the TTFT limit
// (0.2); at a target of 0.4 the line between (1, 0.5) and (2, 0.2)
// crosses at 1 + 0.1/0.3 = 1.333, and the true crossing is there or above.
func TestCapacityCrossingLowerBound(t *testing.T) {
	ms := time.Millisecond
	half := levelRun(1, 100*ms, 10, nil)
	for i := range 5 {
		r := &half.Run.Records[i]
		r.CompletionTokens, r.NoUsage = 0, true
	}
	slo := llmmetrics.SLO{TTFT: 200 * ms, TPOT: 50 * ms}
	sw, err := SweepRuns([]LevelRun{half, levelRun(2, 100*ms, 2, nil)}, llmmetrics.Options{SLO: &slo})
	require.NoError(t, err)
	c, err := sw.Capacity(0.4)
	require.NoError(t, err)
	require.NotNil(t, c.Crossing, c.Reason)
	assert.InDelta(t, 4.0/3, *c.Crossing, 1e-9)
	assert.Contains(t, c.Reason, "crosses at 1.333 or above (the attainment at 1, ≥0.5, is a lower bound)")
}

// An absent line names the runs that lack the figure where only some of
// the level's runs do: at concurrency 1, c1b's records carry no send
// times and c1a's do, so the level's throughput row is absent because of
// c1b alone (it said "at concurrency 1", as if every run lacked it); at
// concurrency 2 both runs lack it, and the line names the level.
func TestSweepAbsentNamesRun(t *testing.T) {
	ms := time.Millisecond
	unsent := func(r LevelRun, name string) LevelRun {
		r = edited(r, name, func(rec *llmmetrics.Record) { rec.Sent = 0 })
		r.Run.NoSendTimes = true
		return r
	}
	sent := levelRun(1, 100*ms, 10, nil)
	sent.Name = "c1a"
	runs := []LevelRun{sent, unsent(levelRun(1, 100*ms, 10, nil), "c1b"),
		unsent(levelRun(2, 100*ms, 10, nil), "c2a"), unsent(levelRun(2, 100*ms, 10, nil), "c2b")}
	sw, err := SweepRuns(runs, llmmetrics.Options{})
	require.NoError(t, err)
	var text strings.Builder
	require.NoError(t, sw.WriteTable(&text))
	out := text.String()
	why := sw.Levels[1].Absent["throughput"]
	require.NotEmpty(t, why)
	assert.Contains(t, out, "absent: throughput at concurrency 2: "+why+"\n")
	assert.Contains(t, out, "absent: throughput at concurrency 1 in c1b: "+why+"\n")
	assert.NotContains(t, out, "absent: throughput at concurrency 1:")
	assert.NotContains(t, out, "throughput at concurrency 1, 2")
	// sweep and diff take no --window: the summary's advice to declare
	// one is left out of their reasons (they gave it, and refused it).
	assert.NotContains(t, out, "--window")
	d, err := DiffRuns([]*llmmetrics.Run{runs[1].Run}, []*llmmetrics.Run{runs[2].Run}, DiffOptions{})
	require.NoError(t, err)
	assert.NotEmpty(t, d.Skipped)
	assert.NotContains(t, strings.Join(d.Skipped, "\n"), "--window")
}

// A row the table leaves blank is never unexplained, even where no
// summary key says why: runs of one-token answers have no User TPS
// (which needs two tokens), and their level's user_tps row is "—" with
// the reason, naming the run where only one of the level's runs lacks
// it, in the text and in that run's JSON entry.
func TestSweepAbsentRowReason(t *testing.T) {
	ms := time.Millisecond
	oneToken := func(r LevelRun, name string) LevelRun {
		return edited(r, name, func(rec *llmmetrics.Record) { rec.CompletionTokens, rec.LastText = 1, rec.FirstText })
	}
	many := levelRun(1, 100*ms, 10, nil)
	many.Name = "c1a"
	runs := []LevelRun{many, oneToken(levelRun(1, 100*ms, 10, nil), "c1b"),
		oneToken(levelRun(2, 100*ms, 10, nil), "c2a"), oneToken(levelRun(2, 100*ms, 10, nil), "c2b")}
	sw, err := SweepRuns(runs, llmmetrics.Options{})
	require.NoError(t, err)
	_, ok := sw.Levels[1].Figure("user_tps p50")
	require.False(t, ok)
	why := sw.Levels[1].Absent["user_tps p50"]
	assert.Contains(t, why, "two or more tokens")
	var text strings.Builder
	require.NoError(t, sw.WriteTable(&text))
	out := text.String()
	// No level has the figure from every run, yet the row is printed,
	// blank at both levels, to carry its absent lines (it was dropped).
	assert.Regexp(t, `\n  user_tps p50 \(tokens/s\) +— +—\s*\n`, out)
	assert.Contains(t, out, "absent: user_tps p50 at concurrency 2: "+why+"\n")
	assert.Contains(t, out, "absent: user_tps p50 at concurrency 1 in c1b: "+why+"\n")
	js, err := json.Marshal(sw)
	require.NoError(t, err)
	var got struct {
		Levels []struct {
			Requests []struct {
				Name          string
				AbsentFigures map[string]string `json:"absent_figures"`
			}
		}
	}
	require.NoError(t, json.Unmarshal(js, &got))
	reqs := got.Levels[0].Requests
	require.Len(t, reqs, 2)
	assert.Equal(t, []string{"c1a", "c1b"}, []string{reqs[0].Name, reqs[1].Name})
	assert.NotContains(t, reqs[0].AbsentFigures, "user_tps p50")
	assert.Equal(t, why, reqs[1].AbsentFigures["user_tps p50"])
}

// edited returns r named name, its run a copy whose records edit changed.
func edited(r LevelRun, name string, edit func(*llmmetrics.Record)) LevelRun {
	c := *r.Run
	c.Records = slices.Clone(c.Records)
	for i := range c.Records {
		edit(&c.Records[i])
	}
	r.Run, r.Name = &c, name
	return r
}
