package charts

import (
	"bytes"
	"encoding/xml"
	"image"
	_ "image/png"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
	"github.com/llmmetrics/llmmetrics/internal/doccheck"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every exported function and method has a doc comment and an Example.
func TestEveryFunctionHasExample(t *testing.T) { doccheck.Test(t, ".") }

const ms = time.Millisecond

func TestCDF(t *testing.T) {
	in := []time.Duration{30 * ms, 10 * ms, 20 * ms}
	assert.Equal(t, []XY{{10, 1.0 / 3}, {20, 2.0 / 3}, {30, 1}}, CDF(in))
	assert.Equal(t, 30*ms, in[0], "the input is not modified")
	assert.Empty(t, CDF(nil))
}

// Two bins between 1 and 100 on a log scale: [1, 10) and [10, 100]; 1 and
// 3 fall in the first, 100 in the last; centres √10 and √1000.
func TestLogBins(t *testing.T) {
	got := LogBins([]float64{1, 3, 100, 0, -5}, 2, 0, 0)
	require.Len(t, got, 2)
	assert.InDelta(t, math.Sqrt(10), got[0].X, 1e-9)
	assert.InDelta(t, 2.0/3, got[0].Y, 1e-12)
	assert.InDelta(t, math.Sqrt(1000), got[1].X, 1e-9)
	assert.InDelta(t, 1.0/3, got[1].Y, 1e-12)
	assert.Equal(t, []XY{{7, 1}}, LogBins([]float64{7, 7}, 4, 0, 0))
	assert.Nil(t, LogBins(nil, 4, 0, 0))
	// A given range, [1, 200] in 2 bins split at √200 ≈ 14.1: 3 in the
	// first, 150 in the second; 500 is outside and counts nowhere.
	got = LogBins([]float64{3, 150, 500}, 2, 1, 200)
	assert.InDelta(t, 0.5, got[0].Y, 1e-12)
	assert.InDelta(t, 0.5, got[1].Y, 1e-12)
}

func rec(id string, sent time.Duration, chunks ...time.Duration) llmmetrics.Record {
	return llmmetrics.Record{ID: id, Sent: sent, Chunks: chunks, CompletionTokens: len(chunks)}
}

func TestSamplesAndGaps(t *testing.T) {
	recs := []llmmetrics.Record{
		rec("a", 0, 100*ms, 120*ms, 150*ms), // one token a chunk: gaps 20, 30; max 30
		rec("b", 0, 50*ms, 90*ms),           // made chunk-basis below: gap 40
		{ID: "c", Status: llmmetrics.StatusError},
		{ID: "w", Warmup: true, Chunks: []time.Duration{ms, 2 * ms}, CompletionTokens: 2},
	}
	recs[1].CompletionTokens = 5 // 5 tokens in 2 chunks
	assert.Equal(t, []time.Duration{100 * ms, 50 * ms}, Samples(recs, "ttft"))
	assert.Equal(t, []time.Duration{150 * ms, 90 * ms}, Samples(recs, "e2e"))
	assert.Equal(t, []time.Duration{25 * ms, 10 * ms}, Samples(recs, "tpot")) // 50/2, 40/4
	assert.Nil(t, Samples(recs, "latency"))
	g := Gaps(recs)
	assert.Equal(t, []float64{20, 30}, g.Token)
	assert.Equal(t, []float64{40}, g.Chunk)
	assert.Equal(t, []float64{30, 40}, g.MaxGap)
}

// Three requests sent at 10, 11 and 13 s: a lasts 3 s, b fails without
// text, c lasts 1 s. In flight from the first send: 1 over [0, 3), 0 over
// [3, 3)… then 1 over [3, 4).
func TestTimelineOf(t *testing.T) {
	s := time.Second
	recs := []llmmetrics.Record{
		rec("c", 13*s, 500*ms, s),
		rec("a", 10*s, s, 3*s),
		{ID: "b", Sent: 11 * s, Status: llmmetrics.StatusError},
	}
	cut := 11 * s
	tl := TimelineOf(recs, &cut)
	assert.Equal(t, []Bar{
		{ID: "a", Start: 0, End: 3, Outcome: "warm-up"},
		{ID: "b", Start: 1, End: 1, Outcome: "failed"},
		{ID: "c", Start: 3, End: 4, Outcome: "ok"},
	}, tl.Bars)
	// a ends at 3 as c begins: never two in flight.
	assert.Equal(t, []XY{{0, 1}, {3, 1}, {4, 0}}, tl.InFlight)
	require.NotNil(t, tl.WarmupEnd)
	assert.Equal(t, 1.0, *tl.WarmupEnd)
	assert.Empty(t, TimelineOf(nil, nil).Bars)
}

// sweep builds a sweep of two concurrency levels, two runs each, with an
// SLO every request of level 1 meets and half of level 2's do.
func sweep(t *testing.T) (*compare.Sweep, *compare.Capacity) {
	var runs []compare.LevelRun
	for _, lv := range []struct {
		level float64
		ttft  []time.Duration
	}{{1, []time.Duration{100 * ms, 110 * ms}}, {2, []time.Duration{100 * ms, 300 * ms}}} {
		for k := range 2 {
			var recs []llmmetrics.Record
			for i := range 4 {
				ttft := lv.ttft[i%2]
				if k == 1 {
					ttft += 10 * ms
				}
				recs = append(recs, llmmetrics.Record{ID: string(rune('a' + i)), Sent: time.Duration(i) * time.Second,
					FirstText: ttft, LastText: ttft + 90*ms, CompletionTokens: 10})
			}
			runs = append(runs, compare.LevelRun{Kind: "concurrency", Level: lv.level, Name: "r", Run: &llmmetrics.Run{Records: recs}})
		}
	}
	slo := llmmetrics.SLO{TTFT: 250 * ms}
	sw, err := compare.SweepRuns(runs, llmmetrics.Options{SLO: &slo})
	require.NoError(t, err)
	c, err := sw.Capacity(0.9)
	require.NoError(t, err)
	return sw, c
}

func TestSweepData(t *testing.T) {
	sw, _ := sweep(t)
	// Level 1: per-run nearest-rank p50 TTFT 100 and 110 ms → median 105,
	// MAD 5. Level 2: 100 and 110 → 105 ± 5 too; p99 300 and 310 → 305.
	assert.Equal(t, []ErrPoint{{1, 105, 5}, {2, 105, 5}}, SweepPoints(sw, "ttft p50"))
	assert.Equal(t, []ErrPoint{{1, 115, 5}, {2, 305, 5}}, SweepPoints(sw, "ttft p99"))
	assert.Equal(t, []ErrPoint{{1, 1, 0}, {2, 0.5, 0}}, SweepPoints(sw, "attainment"))
	tl := ThroughputLatency(sw, "ttft p99")
	require.Len(t, tl, 2)
	assert.Equal(t, 115.0, tl[0].X)
	assert.Empty(t, SweepPoints(sw, "nothing"))
}

// allCharts draws one of each chart.
func allCharts(t *testing.T) []Chart {
	recs := []llmmetrics.Record{rec("a", 0, 100*ms, 120*ms, 150*ms), rec("b", 200*ms, 50*ms, 90*ms), rec("c", 300*ms, 70*ms, 75*ms, 200*ms)}
	var out []Chart
	add := func(c Chart, err error) {
		t.Helper()
		require.NoError(t, err)
		out = append(out, c)
	}
	add(LatencyCDF("ttft", []Series{{"run", Samples(recs, "ttft")}, {"other", []time.Duration{60 * ms, 80 * ms}}}, llmmetrics.NearestRank, "window 0.5 s"))
	add(GapHistogram(Gaps(recs), "window 0.5 s"))
	add(Timeline(TimelineOf(recs, nil), "3 requests"))
	add(Decomposition([]Stack{{"request a", []Part{{"queue", 5 * ms}, {"prefill", 40 * ms}, {"client overhead", 15 * ms}, {"decode", 200 * ms}}},
		{"median request", []Part{{"prefill", 30 * ms}, {"decode", 100 * ms}}}}, "llama.cpp: queue unknown"))
	sw, c := sweep(t)
	add(SweepLatency(sw, "ttft"))
	add(ThroughputLatencyCurve(sw, "ttft p99", c))
	add(Attainment(sw, c))
	return out
}

// Every chart renders as SVG that parses as XML with an svg root, and as
// a PNG of the chart size at 96 dots an inch.
func TestRender(t *testing.T) {
	for _, c := range allCharts(t) {
		svg, err := c.Render("svg")
		require.NoError(t, err, c.Name)
		var root struct {
			XMLName xml.Name
		}
		require.NoError(t, xml.Unmarshal(svg, &root), c.Name)
		assert.Equal(t, "svg", root.XMLName.Local, c.Name)
		png, err := c.Render("png")
		require.NoError(t, err)
		cfg, format, err := image.DecodeConfig(bytes.NewReader(png))
		require.NoError(t, err, c.Name)
		assert.Equal(t, "png", format)
		assert.Equal(t, int(Width.Dots(DPI)+0.5), cfg.Width, c.Name)
		assert.GreaterOrEqual(t, cfg.Height, int(Height.Dots(DPI)), c.Name, "the plot, and the legend under it")
	}
	_, err := allCharts(t)[0].Render("gif")
	assert.Error(t, err)
}

func TestNoData(t *testing.T) {
	_, err := LatencyCDF("ttft", nil, llmmetrics.NearestRank, "")
	assert.ErrorIs(t, err, ErrNoData)
	_, err = GapHistogram(GapData{}, "")
	assert.ErrorIs(t, err, ErrNoData)
	_, err = Timeline(TimelineData{}, "")
	assert.ErrorIs(t, err, ErrNoData)
	_, err = Decomposition(nil, "")
	assert.ErrorIs(t, err, ErrNoData)
	_, err = LatencyCDF("latency", nil, llmmetrics.NearestRank, "")
	assert.Error(t, err)
}

// The page holds every chart inline, escapes the text, and fetches
// nothing: no script, no link, no image source.
func TestWriteHTML(t *testing.T) {
	var b strings.Builder
	require.NoError(t, WriteHTML(&b, Page{Title: "run <1>", Sections: []Section{{Heading: "Report", Text: "a <b> table", Charts: allCharts(t)}}}))
	html := b.String()
	assert.Equal(t, 7, strings.Count(html, "<svg"))
	assert.NotContains(t, html, "<?xml")
	assert.Contains(t, html, "run &lt;1&gt;")
	assert.Contains(t, html, "a &lt;b&gt; table")
	for _, bad := range []string{"<script", "<link", "src=\"", "@import", "url(http", "url(/", "url(."} {
		assert.NotContains(t, html, bad)
	}
	// No font travels: the charts name a standard family.
	assert.NotContains(t, html, "@font-face")
	assert.Contains(t, html, fontFamily)
}

// The throughput curve of a sweep whose level 1 meets the target and
// level 2 misses it: the band between their p99 TTFTs (115 and 305 ms,
// TestSweepData) is shaded, and the SLO's 250 ms limit drawn.
func TestThroughputLatencyMarks(t *testing.T) {
	sw, c := sweep(t)
	ch, err := ThroughputLatencyCurve(sw, "ttft p99", c)
	require.NoError(t, err)
	svg, err := ch.Render("svg")
	require.NoError(t, err)
	for _, want := range []string{"capacity bracket: concurrency 1 meets the target 0.9, 2 misses it", "SLO: TTFT ≤ 250 ms, per request"} {
		assert.Contains(t, string(svg), want)
	}
	assert.Equal(t, 115.0, ch.Plot.X.Min)
	assert.Equal(t, 305.0, ch.Plot.X.Max)
	// Without an SLO, neither.
	sw.SLO = nil
	ch, err = ThroughputLatencyCurve(sw, "ttft p99", nil)
	require.NoError(t, err)
	svg, _ = ch.Render("svg")
	assert.NotContains(t, string(svg), "SLO:")
	assert.NotContains(t, string(svg), "capacity bracket")
}

// A level whose runs counted only part of their answers shows its output
// rate as a lower bound on the sweep page, as the sweep's table does.
func TestSweepPageLowerBound(t *testing.T) {
	sw := &compare.Sweep{Kind: "rate", Levels: []compare.SweepLevel{{
		Level: 1, Runs: 1,
		Figures: []compare.SweepFigure{
			{Name: "output_tokens_per_s", Unit: "tokens/s", Spread: compare.Spread[float64]{Median: 120, N: 1}, LowerBound: 1},
			{Name: "requests_per_s", Unit: "requests/s", Spread: compare.Spread[float64]{Median: 2, N: 1}},
		},
	}}}
	page := SweepPage("bounds", sw, nil, nil, nil, nil)
	var cells, notes []string
	for _, sec := range page.Sections {
		for _, tb := range sec.Tables {
			for _, row := range tb.Rows {
				for _, c := range row {
					cells, notes = append(cells, c.Text), append(notes, c.Note)
				}
			}
		}
	}
	if slices.Contains(notes, "±0") || !slices.Contains(notes, "±?") {
		t.Errorf("a level of one run has an unknown spread (±?), not ±0: %q", notes)
	}
	if !slices.Contains(cells, "≥120") {
		t.Errorf("the output rate's cell is not marked ≥120: %q", cells)
	}
	if !slices.Contains(cells, "2") || slices.Contains(cells, "≥2") {
		t.Errorf("the request rate's cell should read 2, unmarked: %q", cells)
	}
}

// A prompt rate over 1 of 2 ok requests (100 tokens over 1 s) is shown
// as a lower bound, as the output rate is.
func TestThroughputPromptLowerBound(t *testing.T) {
	a, b := rec("a", 0, 100*time.Millisecond, 140*time.Millisecond), rec("b", 0, 100*time.Millisecond, 140*time.Millisecond)
	a.PromptTokens = 100
	s, err := llmmetrics.Summarize([]llmmetrics.Record{a, b}, llmmetrics.Options{Window: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	rows := throughputSection(s, nil).Tables[0].Rows
	want := []Cell{{Text: "prompt tokens (never add to output; a lower bound: 1 of 2 ok requests counted)"}, {Text: "≥100.000"}, {Text: "≥100"}}
	assert.Contains(t, rows, want)
}
