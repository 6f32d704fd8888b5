// Package charts draws llmmetrics' figures: latency CDFs and percentile
// spectra, the gap distribution with its stalls, the TTFT decomposition, a
// sweep's latency, throughput–latency and attainment curves, A against B
// for a diff, and a run's timeline; as SVG or PNG, with gonum.org/v1/plot,
// and as one self-contained HTML report of sections, tables and inline SVG
// that needs no network, no script and no font file (ReportPage,
// WriteHTML).
//
// Each chart is built in two steps: a data function computes the points
// (CDF, SpectrumPoints, GapData, TimelineOf, SweepPoints…), which tests
// check against hand arithmetic, and a drawing function turns them into a
// Chart. A chart has a short title and a caption that states its units,
// the percentile method and the window it covers; the caption is printed
// under the figure, not in it. Legends are drawn under the plot, and
// every axis has at least three labelled ticks.
//
// A drawing function never panics: data it cannot draw (a log axis over
// values of 0 or less, nothing to draw) gives ErrCannotDraw or ErrNoData
// with the reason, for the page's notes, and a range of one value is drawn
// around it.
//
// The drawing library is gonum.org/v1/plot: the companion of the gonum
// numerics the project is built on, pure Go (no cgo), with SVG and PNG
// back ends. go-echarts was weighed and set aside because its charts are
// drawn by JavaScript, and the page must read without it; svgo alone would
// mean writing axes, ticks and legends by hand.
//
// It is a module of its own, so that importers of llmmetrics do not carry
// the plotting library. docs/pictures.md describes the charts for users.
package charts
