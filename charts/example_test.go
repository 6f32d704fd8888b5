package charts_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/charts"
	"github.com/llmmetrics/llmmetrics/compare"
)

const ms = time.Millisecond

// run is three requests with chunk arrivals, one token each.
func run() []llmmetrics.Record {
	return []llmmetrics.Record{
		{ID: "a", Sent: 0, Chunks: []time.Duration{100 * ms, 120 * ms, 150 * ms}, CompletionTokens: 3},
		{ID: "b", Sent: 200 * ms, Chunks: []time.Duration{50 * ms, 90 * ms}, CompletionTokens: 2},
		{ID: "c", Sent: 300 * ms, Chunks: []time.Duration{70 * ms, 75 * ms, 200 * ms}, CompletionTokens: 3},
	}
}

// sweep is two concurrency levels of two runs each.
func sweep() (*compare.Sweep, *compare.Capacity) {
	var runs []compare.LevelRun
	for _, level := range []float64{1, 8} {
		for k := range 2 {
			var recs []llmmetrics.Record
			for i := range 4 {
				ttft := time.Duration(level*40+float64(10*k)) * ms
				recs = append(recs, llmmetrics.Record{ID: fmt.Sprint(i), Sent: time.Duration(i) * time.Second, FirstText: ttft,
					LastText: ttft + 90*ms, CompletionTokens: 10})
			}
			runs = append(runs, compare.LevelRun{Kind: "concurrency", Level: level, Name: "r", Run: &llmmetrics.Run{Records: recs}})
		}
	}
	slo := llmmetrics.SLO{TTFT: 200 * ms}
	sw, _ := compare.SweepRuns(runs, llmmetrics.Options{SLO: &slo})
	c, _ := sw.Capacity(0.9)
	return sw, c
}

func ExampleCDF() {
	fmt.Println(charts.CDF([]time.Duration{30 * ms, 10 * ms}))
	// Output: [{10 0.5} {30 1}]
}

func ExampleSamples() {
	fmt.Println(charts.Samples(run(), "ttft"))
	// Output: [100ms 50ms 70ms]
}

func ExampleGaps() {
	g := charts.Gaps(run())
	fmt.Println(g.Token, g.MaxGap)
	// Output: [20 30 40 5 125] [30 40 125]
}

func ExampleTimelineOf() {
	t := charts.TimelineOf(run(), nil)
	fmt.Println(t.Bars[2], t.InFlight)
	// Output: {c 0.3 0.5 ok} [{0 1} {0.15 0} {0.2 1} {0.29 0} {0.3 1} {0.5 0}]
}

func ExampleSweepPoints() {
	sw, _ := sweep()
	fmt.Println(charts.SweepPoints(sw, "ttft p50"))
	// Output: [{1 45 5} {8 325 5}]
}

// Level 1's runs: 40 tokens over 3.13 and 3.14 s (first send → last
// text), 12.78 and 12.74 tokens/s, median 12.76.
func ExampleThroughputLatency() {
	sw, _ := sweep()
	for _, p := range charts.ThroughputLatency(sw, "ttft p99") {
		fmt.Printf("p99 TTFT %g ms: %.3g tokens/s\n", p.X, p.Y)
	}
	// Output:
	// p99 TTFT 45 ms: 12.8 tokens/s
	// p99 TTFT 325 ms: 11.7 tokens/s
}

func ExampleLogBins() {
	fmt.Printf("%.4g\n", charts.LogBins([]float64{1, 3, 100}, 2, 0, 0))
	// Output: [{3.162 0.6667} {31.62 0.3333}]
}

func ExampleLatencyCDF() {
	c, _ := charts.LatencyCDF("ttft", []charts.Series{{Name: "run", Values: charts.Samples(run(), "ttft")}}, llmmetrics.NearestRank, "window 0.5 s")
	fmt.Println(c.Name, "-", c.Caption)
	// Output: ttft_cdf - TTFT of the ok requests, ms on a log scale; the fraction of requests at or below each value; p50 and p99 marked (nearest-rank); window 0.5 s
}

func ExampleGapHistogram() {
	c, _ := charts.GapHistogram(charts.Gaps(run()), "window 0.5 s")
	fmt.Println(c.Name, "-", c.Caption)
	// Output: gaps - gaps between the text chunks of ok requests with two or more chunks, ms in 30 bins of equal width on a log scale, each line the fraction of its values per bin; window 0.5 s
}

func ExampleDecomposition() {
	c, err := charts.Decomposition([]charts.Stack{{Label: "request a", Parts: []charts.Part{{Name: "prefill", Value: 40 * ms}, {Name: "decode", Value: 200 * ms}}}},
		"llama.cpp reports the prefill alone: queue and residual unknown")
	fmt.Println(c.Name, err)
	// Output: decomposition <nil>
}

func ExampleSweepLatency() {
	sw, _ := sweep()
	c, _ := charts.SweepLatency(sw, "ttft")
	fmt.Println(c.Title)
	// Output: TTFT by level
}

func ExampleThroughputLatencyCurve() {
	sw, capacity := sweep()
	c, _ := charts.ThroughputLatencyCurve(sw, "ttft p99", capacity)
	fmt.Println(c.Name)
	// Output: throughput_ttft
}

func ExampleAttainment() {
	sw, capacity := sweep()
	c, _ := charts.Attainment(sw, capacity)
	fmt.Println(c.Caption)
	// Output: SLO attainment (good / offered) against SLO ttft=200ms (inclusive ≤) against the concurrency, median across each level's runs, bars ±MAD; 90% attainment holds up to concurrency 1 and fails at 8; linear between them, it crosses at 1.7
}

// The spectrum at p0, p90 and p99: the values of three requests by
// nearest rank are 50, 70 and 100 ms (ranks ⌈0.9·3⌉ = 3 and ⌈0.99·3⌉ = 3).
func ExampleSpectrumPoints() {
	pts := charts.SpectrumPoints(charts.Samples(run(), "ttft"), llmmetrics.NearestRank)
	fmt.Println(pts[0], pts[40], pts[80])
	// Output: {0 50} {1 100} {2 100}
}

func ExampleNines() {
	fmt.Printf("%.0f %.0f %.0f\n", charts.Nines(0), charts.Nines(90), charts.Nines(99))
	// Output: 0 1 2
}

func ExampleSpectrum() {
	c, _ := charts.Spectrum("ttft", []charts.Series{{Name: "run", Values: charts.Samples(run(), "ttft")}}, llmmetrics.NearestRank,
		llmmetrics.DefaultPercentiles, "window 0.5 s")
	fmt.Println(c.Name, c.Title)
	// Output: ttft_spectrum TTFT percentile spectrum
}

func ExampleTimeline() {
	c, _ := charts.Timeline(charts.TimelineOf(run(), nil), "3 requests")
	fmt.Println(c.Name)
	// Output: timeline
}

func ExampleChart_Render() {
	c, _ := charts.Timeline(charts.TimelineOf(run(), nil), "3 requests")
	svg, _ := c.Render("svg")
	fmt.Println(strings.Contains(string(svg), "<svg"))
	// Output: true
}

func ExampleChart_WriteFiles() {
	dir, _ := os.MkdirTemp("", "charts")
	defer os.RemoveAll(dir)
	c, _ := charts.Timeline(charts.TimelineOf(run(), nil), "3 requests")
	paths, _ := c.WriteFiles(dir)
	for _, p := range paths {
		fmt.Println(filepath.Base(p))
	}
	// Output:
	// timeline.svg
	// timeline.png
}

func ExampleWriteHTML() {
	c, _ := charts.Timeline(charts.TimelineOf(run(), nil), "3 requests")
	var b strings.Builder
	charts.WriteHTML(&b, charts.Page{Title: "A run", Sections: []charts.Section{{Heading: "Timeline", Charts: []charts.Chart{c}}}})
	fmt.Println(strings.Count(b.String(), "<svg"), strings.Contains(b.String(), "<script"))
	// Output: 1 false
}

func ExampleReportPage() {
	s, _ := llmmetrics.Summarize(run(), llmmetrics.Options{})
	page := charts.ReportPage("A run", s, nil, []string{"gap distribution: not drawn, no gaps"})
	for _, sec := range page.Sections {
		fmt.Println(sec.Heading, len(sec.Tables))
	}
	// Output:
	// Run and environment 1
	// Workload 1
	// Latency 1
	// Throughput 1
	// Goodput 0
	// Server side 0
	// Notes 0
	// Set aside 0
}

func ExampleSweepPage() {
	sw, capacity := sweep()
	page := charts.SweepPage("A sweep", sw, capacity, nil, nil, nil)
	t := page.Sections[0].Tables[0]
	fmt.Println(t.Head)
	for _, row := range t.Rows[:3] {
		fmt.Println(row)
	}
	// Output:
	// [figure concurrency 1 concurrency 8]
	// [{runs } {2 } {2 }]
	// [{ttft p50 (ms) } {45 ±5} {325 ±5}]
	// [{ttft p95 (ms) } {45 ±5} {325 ±5}]
}
