package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strings"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// metricNames are the metrics' names as charts print them.
var metricNames = map[string]string{"ttft": "TTFT", "tpot": "TPOT", "e2e": "E2E", "max_gap": "largest gap per request"}

func xys(pts []XY) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i].X, out[i].Y = p.X, p.Y
	}
	return out
}

// LatencyCDF draws the distribution of a latency metric ("ttft", "tpot",
// "e2e" or "max_gap") of each series as a CDF on a log time axis, one line
// a series, with its p50 and p99 (by method) marked. window describes the
// requests' window for the caption.
func LatencyCDF(metric string, series []Series, method llmmetrics.Method, window string) (Chart, error) {
	name := metricNames[metric]
	if name == "" {
		return Chart{}, fmt.Errorf("charts: unknown metric %q", metric)
	}
	caption := fmt.Sprintf("ms, log scale; ok requests; p50 and p99 marked (%s); %s", method, window)
	p := newPlot(name+": cumulative distribution", caption, name+" (ms, log scale)", "fraction of requests at or below")
	logAxis(p)
	p.Y.Min, p.Y.Max = 0, 1
	p.Legend.Left, p.Legend.Top = false, false // bottom right, under the flat tail
	drawn := 0
	for i, s := range series {
		pts := CDF(s.Values)
		if len(pts) == 0 || pts[0].X <= 0 {
			continue // a log axis cannot show 0
		}
		line, err := plotter.NewLine(xys(pts))
		if err != nil {
			return Chart{}, err
		}
		line.Color = colour(i)
		line.StepStyle = plotter.PreStep
		p.Add(line)
		d, err := llmmetrics.Describe(s.Values, method, llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(99))
		if err != nil {
			return Chart{}, err
		}
		marks := plotter.XYs{{X: millis(d.Points[0].Value), Y: 0.5}, {X: millis(d.Points[1].Value), Y: 0.99}}
		sc, err := plotter.NewScatter(marks)
		if err != nil {
			return Chart{}, err
		}
		sc.Color = colour(i)
		sc.Shape = draw.CircleGlyph{}
		sc.Radius = vg.Points(3)
		p.Add(sc)
		p.Legend.Add(fmt.Sprintf("%s (n=%d, p50 %.1f, p99 %.1f ms)", s.Name, d.N, millis(d.Points[0].Value), millis(d.Points[1].Value)), line)
		drawn++
	}
	if drawn == 0 {
		return Chart{}, fmt.Errorf("%w: no %s values above 0", ErrNoData, name)
	}
	return Chart{Name: metric + "_cdf", Title: name + " distribution", Caption: caption, Plot: p}, nil
}

// LogBins counts values in bins equally wide on a log scale over [lo,
// hi] and returns each bin's geometric centre with the fraction of the
// values in it; lo or hi of 0 or less is taken from the smallest or the
// largest positive value. Values of 0 or less, and outside [lo, hi], are
// left out (they count in no bin and in no fraction).
func LogBins(values []float64, bins int, lo, hi float64) []XY {
	minV, maxV := positiveRange(values)
	if lo <= 0 {
		lo = minV
	}
	if hi <= 0 {
		hi = maxV
	}
	n := 0
	for _, v := range values {
		if v > 0 && v >= lo && v <= hi {
			n++
		}
	}
	if n == 0 || bins < 1 {
		return nil
	}
	if hi == lo {
		return []XY{{lo, 1}}
	}
	llo, lhi := math.Log(lo), math.Log(hi)
	width := (lhi - llo) / float64(bins)
	counts := make([]int, bins)
	for _, v := range values {
		if v > 0 && v >= lo && v <= hi {
			counts[min(int((math.Log(v)-llo)/width), bins-1)]++
		}
	}
	out := make([]XY, bins)
	for i, c := range counts {
		out[i] = XY{math.Exp(llo + (float64(i)+0.5)*width), float64(c) / float64(n)}
	}
	return out
}

// positiveRange returns the smallest and largest positive values (+Inf
// and −Inf when there are none).
func positiveRange(values []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, v := range values {
		if v > 0 {
			lo, hi = min(lo, v), max(hi, v)
		}
	}
	return lo, hi
}

// GapHistogram draws the distribution of the gaps between chunks on a log
// axis: the token-basis requests' gaps (inter-token latencies), the
// chunk-basis requests' gaps (not per-token), and each request's largest
// gap, where stalls show, each as the fraction of its values per bin.
func GapHistogram(g GapData, window string) (Chart, error) {
	caption := fmt.Sprintf("ms, log bins; ok requests with two or more chunks; %s", window)
	p := newPlot("Gaps between chunks, and each request's largest", caption, "gap (ms, log scale)", "fraction per bin")
	logAxis(p)
	p.Legend.Top = true
	// One set of bins for the three, so that their bars line up.
	lo, hi := positiveRange(append(append(slices.Clone(g.Token), g.Chunk...), g.MaxGap...))
	drawn := 0
	for i, s := range []struct {
		name   string
		values []float64
		dashed bool
	}{
		{"gaps of token-basis requests (inter-token latency)", g.Token, false},
		{"gaps of chunk-basis requests (not per token)", g.Chunk, false},
		{"largest gap per request (stalls)", g.MaxGap, true},
	} {
		pts := LogBins(s.values, 30, lo, hi)
		if len(pts) < 2 {
			continue
		}
		line, err := plotter.NewLine(xys(pts))
		if err != nil {
			return Chart{}, err
		}
		line.Color = colour(i)
		if s.dashed {
			line.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		}
		p.Add(line)
		p.Legend.Add(fmt.Sprintf("%s, n=%d", s.name, len(s.values)), line)
		drawn++
	}
	if drawn == 0 {
		return Chart{}, fmt.Errorf("%w: no gaps", ErrNoData)
	}
	return Chart{Name: "gaps", Title: "Gap distribution", Caption: caption, Plot: p}, nil
}

// Decomposition draws each stack as a horizontal bar of its parts, in
// milliseconds: a request's TTFT split into queue, prefill, residual and
// client overhead, then its decode. A part a stack does not know is left
// out of it, never drawn as 0, and the caption says so.
func Decomposition(stacks []Stack, caption string) (Chart, error) {
	if len(stacks) == 0 {
		return Chart{}, fmt.Errorf("%w: no request to decompose", ErrNoData)
	}
	p := newPlot("Latency of one request, by part", caption, "ms", "")
	var order []string
	for _, s := range stacks {
		for _, part := range s.Parts {
			if !contains(order, part.Name) {
				order = append(order, part.Name)
			}
		}
	}
	var below *plotter.BarChart
	for i, name := range order {
		vals := make(plotter.Values, len(stacks))
		for k, s := range stacks {
			for _, part := range s.Parts {
				if part.Name == name {
					vals[k] = millis(part.Value)
				}
			}
		}
		bar, err := plotter.NewBarChart(vals, vg.Points(36))
		if err != nil {
			return Chart{}, err
		}
		bar.Horizontal = true
		bar.Color = colour(i)
		bar.LineStyle.Width = 0
		if below != nil {
			bar.StackOn(below)
		}
		below = bar
		p.Add(bar)
		p.Legend.Add(name, bar)
	}
	labels := make([]string, len(stacks))
	for i, s := range stacks {
		labels[i] = s.Label
	}
	p.NominalY(labels...)
	// Room above the bars for the legend.
	p.Legend.Top = true
	p.Y.Min, p.Y.Max = -0.6, float64(len(stacks))+0.6
	return Chart{Name: "decomposition", Title: "Latency decomposition", Caption: caption, Plot: p}, nil
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// errPoints is a sweep figure's points with their error bars.
type errPoints struct {
	plotter.XYs
	plotter.YErrors
}

func newErrPoints(pts []ErrPoint) errPoints {
	e := errPoints{XYs: make(plotter.XYs, len(pts)), YErrors: make(plotter.YErrors, len(pts))}
	for i, pt := range pts {
		e.XYs[i].X, e.XYs[i].Y = pt.X, pt.Y
		e.YErrors[i].Low, e.YErrors[i].High = pt.Err, pt.Err
	}
	return e
}

// SweepLatency draws a latency metric's p50 and p99 against the sweep's
// level, each the median across the level's runs with its MAD as an error
// bar.
func SweepLatency(sw *compare.Sweep, metric string) (Chart, error) {
	name := metricNames[metric]
	if name == "" {
		return Chart{}, fmt.Errorf("charts: unknown metric %q", metric)
	}
	caption := fmt.Sprintf("ms; each point the median across a level's runs of the per-run percentile, bars ±MAD; %s", sweepWindow(sw))
	p := newPlot(name+" against "+sw.Kind, caption, sweepAxis(sw), name+" (ms)")
	drawn := 0
	for i, q := range []string{"p50", "p99"} {
		pts := SweepPoints(sw, metric+" "+q)
		if len(pts) == 0 {
			continue
		}
		e := newErrPoints(pts)
		line, scatter, err := plotter.NewLinePoints(e)
		if err != nil {
			return Chart{}, err
		}
		line.Color, scatter.Color = colour(i), colour(i)
		bars, err := plotter.NewYErrorBars(e)
		if err != nil {
			return Chart{}, err
		}
		bars.Color = colour(i)
		p.Add(line, scatter, bars)
		p.Legend.Add(name+" "+q, line, scatter)
		drawn++
	}
	if drawn == 0 {
		return Chart{}, fmt.Errorf("%w: the sweep has no %s", ErrNoData, name)
	}
	return Chart{Name: "sweep_" + metric, Title: name + " by level", Caption: caption, Plot: p}, nil
}

// ThroughputLatencyCurve draws the sweep's output tokens a second against
// its p99 latency (latency "e2e p99" or "ttft p99"), a point per level,
// labelled with the level.
func ThroughputLatencyCurve(sw *compare.Sweep, latency string) (Chart, error) {
	pts := ThroughputLatency(sw, latency)
	if len(pts) == 0 {
		return Chart{}, fmt.Errorf("%w: the sweep has no %s and output rate", ErrNoData, latency)
	}
	caption := fmt.Sprintf("medians across each level's runs; labels are the %s; %s", sw.Kind, sweepWindow(sw))
	metric, q, _ := strings.Cut(latency, " ")
	p := newPlot("Throughput against latency", caption, fmt.Sprintf("%s %s (ms)", metricNames[metric], q), "output tokens/s")
	line, scatter, err := plotter.NewLinePoints(xys(pts))
	if err != nil {
		return Chart{}, err
	}
	line.Color, scatter.Color = colour(0), colour(0)
	labels := make([]string, 0, len(pts))
	for _, lv := range sw.Levels {
		_, ok1 := lv.Figure(latency)
		_, ok2 := lv.Figure("output_tokens_per_s")
		if ok1 && ok2 {
			labels = append(labels, fmt.Sprintf(" %g", lv.Level))
		}
	}
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys(pts), Labels: labels})
	if err != nil {
		return Chart{}, err
	}
	p.Add(line, scatter, lab)
	return Chart{Name: "throughput_latency", Title: "Throughput–latency curve", Caption: caption, Plot: p}, nil
}

// Attainment draws the SLO attainment against the sweep's level (median
// ± MAD), the target as a horizontal line and, where the capacity has
// them, the bracket's ends as vertical lines.
func Attainment(sw *compare.Sweep, c *compare.Capacity) (Chart, error) {
	pts := SweepPoints(sw, "attainment")
	if len(pts) == 0 {
		return Chart{}, fmt.Errorf("%w: the sweep has no attainment (no SLO)", ErrNoData)
	}
	slo := ""
	if sw.SLO != nil {
		slo = " against SLO " + sw.SLO.String()
	}
	caption := fmt.Sprintf("good / offered%s, median across each level's runs, bars ±MAD", slo)
	if c != nil {
		caption += "; " + c.Reason
	}
	p := newPlot("SLO attainment against "+sw.Kind, caption, sweepAxis(sw), "attainment (fraction)")
	p.Y.Min, p.Y.Max = 0, 1.05
	e := newErrPoints(pts)
	line, scatter, err := plotter.NewLinePoints(e)
	if err != nil {
		return Chart{}, err
	}
	bars, err := plotter.NewYErrorBars(e)
	if err != nil {
		return Chart{}, err
	}
	p.Add(line, scatter, bars)
	p.Legend.Add("attainment", line, scatter)
	if c != nil {
		target := plotter.NewFunction(func(float64) float64 { return c.Target })
		target.Color = color.RGBA{R: 0xcc, A: 0xff}
		target.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(target)
		p.Legend.Add(fmt.Sprintf("target %g", c.Target), target)
		for i, end := range []*float64{c.Passing, c.Failing} {
			if end == nil {
				continue
			}
			v, err := plotter.NewLine(plotter.XYs{{X: *end, Y: 0}, {X: *end, Y: 1.05}})
			if err != nil {
				return Chart{}, err
			}
			v.Color = colour(2 + i)
			v.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
			p.Add(v)
			p.Legend.Add([]string{"highest level meeting the target", "first level missing it"}[i], v)
		}
	}
	return Chart{Name: "attainment", Title: "SLO attainment", Caption: caption, Plot: p}, nil
}

func sweepAxis(sw *compare.Sweep) string {
	if sw.Kind == "rate" {
		return "arrival rate (requests/s)"
	}
	return "concurrency (requests in flight)"
}

func sweepWindow(sw *compare.Sweep) string {
	runs := 0
	for _, lv := range sw.Levels {
		runs += lv.Runs
	}
	return fmt.Sprintf("%d levels, %d runs, each over its own window", len(sw.Levels), runs)
}

// wrap breaks a caption into lines of at most width characters.
func wrap(s string, width int) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && len(line)+1+len(w) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// segments draws horizontal bars, one a request, coloured by outcome.
type segments struct {
	bars []Bar
}

func (s segments) Plot(c draw.Canvas, p *plot.Plot) {
	trX, trY := p.Transforms(&c)
	for i, b := range s.bars {
		x0, x1, y := trX(b.Start), trX(b.End), trY(float64(i))
		if x1-x0 < vg.Points(1) {
			x1 = x0 + vg.Points(1) // a request without text is a tick
		}
		c.StrokeLine2(draw.LineStyle{Color: outcomeColours[b.Outcome], Width: vg.Points(1.5)}, x0, y, x1, y)
	}
}

func (s segments) DataRange() (xmin, xmax, ymin, ymax float64) {
	xmin, xmax = math.Inf(1), math.Inf(-1)
	for _, b := range s.bars {
		xmin, xmax = min(xmin, b.Start), max(xmax, b.End)
	}
	return xmin, xmax, -1, float64(len(s.bars))
}

// Timeline draws a run: each request a horizontal bar from its send to its
// last text chunk (a tick when it has none), in send order, coloured by
// outcome; the requests in flight as a step line; the warm-up cut as a
// vertical line.
func Timeline(t TimelineData, caption string) (Chart, error) {
	if len(t.Bars) == 0 {
		return Chart{}, fmt.Errorf("%w: no request", ErrNoData)
	}
	p := newPlot("Timeline of the run", caption, "seconds from the first send", "request (send order); requests in flight")
	p.Legend.Top, p.Legend.Left = true, true
	p.Add(segments{t.Bars})
	seen := map[string]bool{}
	for _, b := range t.Bars {
		seen[b.Outcome] = true
	}
	for _, o := range []string{"ok", "failed", "zero-token", "warm-up", "rejected"} {
		if seen[o] {
			l, _ := plotter.NewLine(plotter.XYs{{}, {}})
			l.Color = outcomeColours[o]
			l.Width = vg.Points(3)
			p.Legend.Add(o, l)
		}
	}
	if len(t.InFlight) > 0 {
		line, err := plotter.NewLine(xys(t.InFlight))
		if err != nil {
			return Chart{}, err
		}
		line.StepStyle = plotter.PostStep
		line.Color = color.Black
		p.Add(line)
		p.Legend.Add("requests in flight (ok, send → last text)", line)
	}
	if w := t.WarmupEnd; w != nil {
		v, err := plotter.NewLine(plotter.XYs{{X: *w, Y: -1}, {X: *w, Y: float64(len(t.Bars))}})
		if err != nil {
			return Chart{}, err
		}
		v.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		v.Color = color.RGBA{R: 0x55, G: 0x55, B: 0x55, A: 0xff}
		p.Add(v)
		p.Legend.Add("end of warm-up", v)
	}
	return Chart{Name: "timeline", Title: "Timeline", Caption: caption, Plot: p}, nil
}
