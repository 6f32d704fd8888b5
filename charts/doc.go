// Package charts draws llmmetrics' figures: latency CDFs, the gap
// distribution with its stalls, the TTFT decomposition, a sweep's latency,
// throughput–latency and attainment curves, and a run's timeline; as SVG or
// PNG, with gonum.org/v1/plot, and as one self-contained HTML page of
// tables and inline SVG that needs no network and no JavaScript.
//
// Each chart is built in two steps: a data function computes the points
// (CDF, GapData, TimelineOf, SweepPoints…), which tests check against hand
// arithmetic, and a drawing function turns them into a Chart. Every chart
// carries a caption that states its units, the percentile method and the
// window it covers.
//
// The drawing library is gonum.org/v1/plot: the companion of the gonum
// numerics the project is built on, pure Go (no cgo), with SVG and PNG
// back ends. go-echarts was weighed and set aside because its charts are
// drawn by JavaScript, and the page must read without it; svgo alone would
// mean writing axes, ticks and legends by hand.
//
// It is a module of its own, so that importers of llmmetrics do not carry
// the plotting library.
package charts
