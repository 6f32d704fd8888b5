package charts

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gonum.org/v1/plot"
	"pgregory.net/rapid"
)

// smallRecords draws 1 to 8 records made to hit the degenerate cases:
// durations from a few values (so that many are equal), 0 and 1 ms among
// them; zero to four chunks; failures, zero-token and one-token requests,
// warm-ups; and, at times, every send at 0 (a file without send times).
func smallRecords(t *rapid.T) []llmmetrics.Record {
	n := rapid.IntRange(1, 8).Draw(t, "n")
	durations := rapid.SampledFrom([]time.Duration{0, time.Millisecond, time.Millisecond, 2 * time.Millisecond, 40 * time.Millisecond,
		40 * time.Millisecond, 2200 * time.Microsecond, 2400 * time.Microsecond, time.Second, 90 * time.Second})
	noSends := rapid.Bool().Draw(t, "noSends")
	recs := make([]llmmetrics.Record, n)
	for i := range recs {
		r := &recs[i]
		r.ID = fmt.Sprint("r", i)
		if !noSends {
			r.Sent = durations.Draw(t, "sent") * time.Duration(i)
		}
		switch rapid.IntRange(0, 9).Draw(t, "status") {
		case 0:
			r.Status, r.Message = llmmetrics.StatusError, "boom"
			continue
		case 1:
			r.Status = llmmetrics.StatusTimeout
			continue
		case 2:
			r.Warmup = true
		}
		chunks := rapid.IntRange(0, 4).Draw(t, "chunks")
		at := durations.Draw(t, "ttft")
		for range chunks {
			r.Chunks = append(r.Chunks, at)
			at += durations.Draw(t, "gap")
		}
		r.CompletionTokens = chunks * rapid.IntRange(0, 2).Draw(t, "tokensPerChunk")
		if chunks == 0 && rapid.Bool().Draw(t, "zeroChunksButText") {
			r.FirstText, r.LastText = at, at+durations.Draw(t, "decode")
			r.CompletionTokens = rapid.IntRange(0, 3).Draw(t, "tokens")
		}
		r.PromptTokens = rapid.IntRange(0, 3).Draw(t, "prompt")
	}
	return recs
}

// drawAll draws every chart the command draws from recs: a report's (its
// CDFs, spectra, gaps and timeline), a diff's (recs against their first
// half), a sweep's (recs split into levels), and a decomposition. Each
// chart is drawn, or refused with ErrNoData or ErrCannotDraw; what is
// drawn renders as SVG (and, with png, as PNG).
func drawAll(t fataler, recs []llmmetrics.Record, png bool) {
	var cs []Chart
	keep := func(c Chart, err error) {
		if err != nil {
			if !errors.Is(err, ErrNoData) && !errors.Is(err, ErrCannotDraw) {
				t.Fatalf("%s: an error that is neither ErrNoData nor ErrCannotDraw: %v", c.Name, err)
			}
			return
		}
		cs = append(cs, c)
	}
	half := recs[:(len(recs)+1)/2]
	for _, m := range []string{"ttft", "tpot", "e2e", "max_gap"} {
		series := []Series{{"a", Samples(recs, m)}, {"b", Samples(half, m)}}
		keep(LatencyCDF(m, series, llmmetrics.NearestRank, "w"))
		keep(Spectrum(m, series, llmmetrics.Linear, llmmetrics.DefaultPercentiles, "w"))
	}
	keep(GapHistogram(Gaps(recs), "w"))
	cut := recs[len(recs)/2].Sent
	keep(Timeline(TimelineOf(recs, &cut), "c"))
	keep(Timeline(TimelineOf(recs, nil), "c"))
	var stacks []Stack
	for _, r := range recs {
		if e2e, err := r.E2E(); err == nil {
			stacks = append(stacks, Stack{Label: r.ID, Parts: []Part{{"prefill", r.FirstText}, {"decode", e2e - r.FirstText}}})
		}
	}
	keep(Decomposition(stacks, "c"))
	var runs []compare.LevelRun
	for i := range recs {
		runs = append(runs, compare.LevelRun{Kind: "concurrency", Level: float64(1 + i%3), Name: "r", Run: &llmmetrics.Run{Records: recs[i : i+1]}})
	}
	slo := llmmetrics.SLO{TTFT: 40 * time.Millisecond, E2E: time.Second}
	if sw, err := compare.SweepRuns(runs, llmmetrics.Options{SLO: &slo, Lenient: true}); err == nil {
		c, _ := sw.Capacity(0.9)
		keep(SweepLatency(sw, "ttft"))
		keep(SweepLatency(sw, "tpot"))
		keep(ThroughputLatencyCurve(sw, "ttft p99", c))
		keep(ThroughputLatencyCurve(sw, "e2e p99", c))
		keep(Attainment(sw, c))
	}
	for _, c := range cs {
		svg, err := c.Render("svg")
		require.NoError(t, err, c.Name)
		require.True(t, bytes.Contains(svg, []byte("</svg>")), c.Name)
		if png {
			_, err := c.Render("png")
			require.NoError(t, err, c.Name)
		}
	}
	if s, err := llmmetrics.Summarize(recs, llmmetrics.Options{Lenient: true}); err == nil {
		var b strings.Builder
		require.NoError(t, WriteHTML(&b, ReportPage("t", s, cs, nil)))
	}
}

// Every chart, from any small or degenerate set of records, is drawn or
// refused with its reason: never a panic.
func TestChartsNeverPanic(t *testing.T) {
	fewerChecksUnderRace(t)
	rapid.Check(t, func(t *rapid.T) {
		drawAll(t, smallRecords(t), rapid.IntRange(0, 19).Draw(t, "png") == 0)
	})
}

// The cases of the issue, each drawn: one record with one chunk, two
// records with equal TPOT, a 1 ms TTFT alone (whose range, widened by 1
// on each side, reached 0 on the log axis).
func TestDegenerateCharts(t *testing.T) {
	ms := time.Millisecond
	for name, recs := range map[string][]llmmetrics.Record{
		"one record one chunk": {{ID: "a", Chunks: []time.Duration{5 * ms}, CompletionTokens: 1}},
		"equal TPOT":           {{ID: "a", Chunks: []time.Duration{5 * ms, 7 * ms}, CompletionTokens: 2}, {ID: "b", Sent: ms, Chunks: []time.Duration{5 * ms, 7 * ms}, CompletionTokens: 2}},
		"1 ms":                 {{ID: "a", Chunks: []time.Duration{ms}, CompletionTokens: 1}},
		"all failed":           {{ID: "a", Status: llmmetrics.StatusError}, {ID: "b", Status: llmmetrics.StatusTimeout}},
		"zero gaps":            {{ID: "a", Chunks: []time.Duration{ms, ms, ms}, CompletionTokens: 3}},
	} {
		t.Run(name, func(t *testing.T) { drawAll(t, recs, !raceEnabled) })
	}
	// One TTFT of 1 ms is drawn, on a log axis around it.
	c, err := LatencyCDF("ttft", []Series{{"a", []time.Duration{ms}}}, llmmetrics.NearestRank, "w")
	require.NoError(t, err)
	assert.Equal(t, 0.8, c.Plot.X.Min)
	assert.Equal(t, 1.25, c.Plot.X.Max)
	// Every gap 0 ms: no log axis for them, and the reason says so.
	_, err = GapHistogram(GapData{Token: []float64{0, 0}}, "w")
	assert.ErrorIs(t, err, ErrNoData)
	_, err = GapHistogram(GapData{Token: []float64{3, 3}}, "w")
	assert.ErrorIs(t, err, ErrCannotDraw)
	assert.ErrorContains(t, err, "every gap is 3 ms")
}

// FuzzCharts reads bytes as a run's JSONL and draws every chart of it.
func FuzzCharts(f *testing.F) {
	f.Add([]byte(`{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[1000000],"completion_tokens":1}`))
	f.Add([]byte(`{"id":"a","status":"ok","sent_ns":0,"chunk_arrivals_ns":[5000000,7000000],"completion_tokens":2}
{"id":"b","status":"ok","sent_ns":0,"chunk_arrivals_ns":[5000000,7000000],"completion_tokens":2}`))
	f.Add([]byte(`{"id":"a","status":"error","sent_ns":0}`))
	f.Add([]byte(`{"id":"a","status":"ok","sent_ns":3,"chunk_arrivals_ns":[0,0,0],"completion_tokens":3}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		run, _, err := llmmetrics.ReadOptions{Lenient: true}.Read(bytes.NewReader(data))
		if run == nil || len(run.Records) == 0 || err != nil && !errors.Is(err, llmmetrics.ErrRejected) {
			return
		}
		if len(run.Records) > 64 {
			run.Records = run.Records[:64]
		}
		drawAll(t, run.Records, false)
	})
}

// fataler is what drawAll needs of a *testing.T or a *rapid.T.
type fataler interface {
	require.TestingT
	Fatalf(format string, args ...any)
}

// Every axis range gets at least three labelled ticks, inside the range
// and all different: 1-2-5 steps, more decimals on a narrow range, on a
// linear and on a log axis.
func TestTicksLabelled(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		lo := rapid.Float64Range(1e-4, 1e6).Draw(t, "lo")
		hi := lo * (1 + rapid.Float64Range(1e-4, 1e4).Draw(t, "ratio"))
		for name, ticker := range map[string]interface {
			Ticks(lo, hi float64) []plot.Tick
		}{"linear": linearTicks{}, "log": logTicks{}} {
			seen := map[string]bool{}
			for _, tk := range ticker.Ticks(lo, hi) {
				if tk.Label == "" {
					continue
				}
				if tk.Value < lo*(1-1e-9) || tk.Value > hi*(1+1e-9) {
					t.Fatalf("%s [%g, %g]: tick %g outside", name, lo, hi, tk.Value)
				}
				if seen[tk.Label] {
					t.Fatalf("%s [%g, %g]: label %q twice", name, lo, hi, tk.Label)
				}
				seen[tk.Label] = true
			}
			if len(seen) < 3 || len(seen) > 10 {
				t.Fatalf("%s [%g, %g]: %d labels", name, lo, hi, len(seen))
			}
		}
	})
}

// The issue's axes: TTFT 45–62 ms had one label ("50"), TPOT 2.2–2.4 ms
// none.
func TestTicksOfTheIssue(t *testing.T) {
	labels := func(ts []plot.Tick) []string {
		var out []string
		for _, tk := range ts {
			if tk.Label != "" {
				out = append(out, tk.Label)
			}
		}
		return out
	}
	assert.Equal(t, []string{"2.2", "2.3", "2.4"}, labels(logTicks{}.Ticks(2.2, 2.4)))
	assert.Equal(t, []string{"45", "50", "55", "60"}, labels(logTicks{}.Ticks(45, 62)))
	assert.Equal(t, []string{"5", "10", "20", "50", "100"}, labels(logTicks{}.Ticks(4, 130)))
	assert.Equal(t, []string{"0.0", "0.5", "1.0"}, labels(linearTicks{}.Ticks(0, 1)))
}

// fewerChecksUnderRace runs a drawing property test on 10 cases rather
// than rapid's 100 under the race detector, which makes gonum/plot's
// drawing ten times slower and has no goroutines here to watch.
func fewerChecksUnderRace(t *testing.T) {
	if !raceEnabled {
		return
	}
	f := flag.Lookup("rapid.checks")
	old := f.Value.String()
	require.NoError(t, f.Value.Set("10"))
	t.Cleanup(func() { f.Value.Set(old) })
}
