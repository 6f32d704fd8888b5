package charts

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/compare"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// chartMetric returns the metric of a key, where the charts can draw it:
// a metric of llmmetrics.Metrics with a value per request.
func chartMetric(key string) (llmmetrics.Metric, bool) {
	var m llmmetrics.Metric
	err := m.UnmarshalText([]byte(key))
	return m, err == nil && m.PerRequest
}

func xys(pts []XY) plotter.XYs {
	out := make(plotter.XYs, len(pts))
	for i, p := range pts {
		out[i].X, out[i].Y = p.X, p.Y
	}
	return out
}

// LatencyCDF draws the distribution of a latency metric (by its key, of a
// metric of llmmetrics.Metrics with a value per request) of each series as a CDF on a log time axis, one line
// a series, with its p50 and p99 (by method) marked. window describes the
// requests' window for the caption. Values of 0, which a log axis cannot
// show, are left under the curve's start and counted in the caption.
func LatencyCDF(metric string, series []Series, method llmmetrics.Method, window string) (Chart, error) {
	m, ok := chartMetric(metric)
	name := m.Name
	if !ok {
		return Chart{}, fmt.Errorf("charts: unknown metric %q", metric)
	}
	caption := fmt.Sprintf("%s of the ok requests, ms on a log scale; the fraction of requests at or below each value; p50 and p99 marked (%s); %s", name, method, window)
	p := newPlot(name+" distribution", name+" (ms, log scale)", "fraction of requests at or below")
	logAxis(p)
	drawn, zeros := 0, 0
	for i, s := range series {
		all := CDF(s.Values)
		pts := all[:0:0]
		for _, pt := range all {
			if pt.X > 0 {
				pts = append(pts, pt)
			}
		}
		zeros += len(all) - len(pts)
		if len(pts) == 0 {
			continue
		}
		d, err := llmmetrics.Describe(s.Values, method, llmmetrics.MustPercentile(50), llmmetrics.MustPercentile(99))
		if err != nil {
			return Chart{}, err
		}
		var marks []XY
		for k, y := range []float64{0.5, 0.99} {
			if v := millis(d.Points[k].Value); v > 0 {
				marks = append(marks, XY{v, y})
			}
		}
		line, err := addSeries(p, i, pts, marks, plotter.PreStep)
		if err != nil {
			return Chart{}, err
		}
		p.Legend.Add(fmt.Sprintf("%s (n=%d, p50 %s, p99 %s ms)", legendName(s.Name), d.N, ms3(d.Points[0].Value), ms3(d.Points[1].Value)), line)
		drawn++
	}
	if drawn == 0 {
		return Chart{}, fmt.Errorf("%w: no %s value above 0", ErrNoData, name)
	}
	if zeros > 0 {
		caption += fmt.Sprintf("; %d values of 0 ms lie below the log axis, where each curve starts", zeros)
	}
	p.Y.Min, p.Y.Max = 0, 1
	if err := finish(p); err != nil {
		return Chart{}, err
	}
	return Chart{Name: metric + "_cdf", Title: name + " distribution", Caption: caption, Plot: p}, nil
}

// addSeries draws the i-th series of a chart: its line, in the i-th
// colour, and dots at its marks. It returns the line for the legend.
func addSeries(p *plot.Plot, i int, pts, marks []XY, step plotter.StepKind) (*plotter.Line, error) {
	line, err := plotter.NewLine(xys(pts))
	if err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCannotDraw, err)
	}
	line.Color = colour(i)
	line.Width = vg.Points(1.5)
	line.StepStyle = step
	p.Add(line)
	if len(marks) > 0 {
		sc, err := plotter.NewScatter(xys(marks))
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrCannotDraw, err)
		}
		sc.Color = colour(i)
		sc.Shape = draw.CircleGlyph{}
		sc.Radius = vg.Points(3)
		p.Add(sc)
	}
	return line, nil
}

// ms3 formats a duration in milliseconds with the precision its size
// needs: three significant figures at least.
func ms3(d time.Duration) string {
	v := millis(d)
	switch a := math.Abs(v); {
	case a >= 100 || a == 0:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// legendName shortens a series' name to what a legend line holds.
func legendName(s string) string {
	const most = 60
	if r := []rune(s); len(r) > most {
		return string(r[:most-1]) + "…"
	}
	return s
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
	caption := fmt.Sprintf("gaps between the text chunks of ok requests with two or more chunks, ms in 30 bins of equal width on a log scale, each line the fraction of its values per bin; %s", window)
	p := newPlot("Gaps between chunks", "gap (ms, log scale)", "fraction per bin")
	logAxis(p)
	// One set of bins for the three, so that their bars line up.
	all := append(append(slices.Clone(g.Token), g.Chunk...), g.MaxGap...)
	lo, hi := positiveRange(all)
	if zeros := len(all) - countPositive(all); zeros > 0 {
		caption += fmt.Sprintf("; %d gaps of 0 ms are not on the log axis", zeros)
	}
	if lo == hi {
		return Chart{}, fmt.Errorf("%w: every gap is %g ms, a histogram of one value", ErrCannotDraw, lo)
	}
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
			return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
		}
		line.Color = colour(i)
		line.Width = vg.Points(1.5)
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
	if err := finish(p); err != nil {
		return Chart{}, err
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
	p := newPlot("Latency by part", "time from the request's send (ms)", "")
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
	p.Y.Min, p.Y.Max = -0.6, float64(len(stacks))-0.4
	if err := finish(p); err != nil {
		return Chart{}, err
	}
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
	m, ok := chartMetric(metric)
	name := m.Name
	if !ok {
		return Chart{}, fmt.Errorf("charts: unknown metric %q", metric)
	}
	caption := fmt.Sprintf("%s p50 and p99 in ms against the %s; each point the median across a level's runs of the per-run percentile (never an average of percentiles), bars ±MAD; %s", name, sw.Kind, sweepWindow(sw))
	p := newPlot(name+" by "+sw.Kind, sweepAxis(sw), name+" (ms)")
	drawn := 0
	for i, q := range []string{"p50", "p99"} {
		pts := SweepPoints(sw, metric+" "+q)
		if len(pts) == 0 {
			continue
		}
		e := newErrPoints(pts)
		line, scatter, err := plotter.NewLinePoints(e)
		if err != nil {
			return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
		}
		line.Color, scatter.Color = colour(i), colour(i)
		bars, err := plotter.NewYErrorBars(e)
		if err != nil {
			return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
		}
		bars.Color = colour(i)
		p.Add(line, scatter, bars)
		p.Legend.Add(name+" "+q+" (median of runs ±MAD)", line, scatter)
		drawn++
	}
	if drawn == 0 {
		return Chart{}, fmt.Errorf("%w: the sweep has no %s", ErrNoData, name)
	}
	if err := finish(p); err != nil {
		return Chart{}, err
	}
	return Chart{Name: "sweep_" + metric, Title: name + " by level", Caption: caption, Plot: p}, nil
}

// ThroughputLatencyCurve draws the sweep's output tokens a second against
// its p99 latency (latency "e2e p99" or "ttft p99"), a point per level,
// labelled with the level; the SLO's limit on that metric as a vertical
// line, where the sweep has one; and, where c brackets the capacity, the
// band between the last level meeting the target and the first missing it,
// shaded.
func ThroughputLatencyCurve(sw *compare.Sweep, latency string, c *compare.Capacity) (Chart, error) {
	metric, q, _ := strings.Cut(latency, " ")
	m, ok := chartMetric(metric)
	name := m.Name
	if !ok {
		return Chart{}, fmt.Errorf("charts: unknown metric %q", latency)
	}
	pts, levels := throughputLatency(sw, latency)
	labels := make([]string, len(levels))
	for i, l := range levels {
		labels[i] = strconv.FormatFloat(l, 'g', -1, 64)
	}
	if len(pts) == 0 {
		return Chart{}, fmt.Errorf("%w: the sweep has no %s and output rate", ErrNoData, latency)
	}
	caption := fmt.Sprintf("output tokens/s against %s %s in ms, a point per level labelled with its %s, each the median across the level's runs; %s", name, q, sw.Kind, sweepWindow(sw))
	p := newPlot("Throughput against "+name+" "+q, fmt.Sprintf("%s %s (ms)", name, q), "output tokens/s")
	line, scatter, err := plotter.NewLinePoints(xys(pts))
	if err != nil {
		return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
	}
	line.Color, scatter.Color = colour(0), colour(0)
	line.Width = vg.Points(1.5)
	ylo, yhi := math.Inf(1), math.Inf(-1)
	for _, pt := range pts {
		ylo, yhi = min(ylo, pt.Y), max(yhi, pt.Y)
	}
	if c != nil && c.Passing != nil && c.Failing != nil {
		var x0, x1 *float64
		for i, lv := range levels {
			if lv == *c.Passing {
				x0 = &pts[i].X
			}
			if lv == *c.Failing {
				x1 = &pts[i].X
			}
		}
		if x0 != nil && x1 != nil && *x0 != *x1 {
			lo, hi := min(*x0, *x1), max(*x0, *x1)
			band, err := plotter.NewPolygon(plotter.XYs{{X: lo, Y: ylo}, {X: hi, Y: ylo}, {X: hi, Y: yhi}, {X: lo, Y: yhi}})
			if err != nil {
				return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
			}
			band.Color = color.RGBA{R: 0xff, G: 0xd8, B: 0x80, A: 0xff}
			band.LineStyle.Width = 0
			p.Add(band)
			p.Legend.Add(fmt.Sprintf("capacity bracket: %s %g meets the target %g, %g misses it", sw.Kind, *c.Passing, c.Target, *c.Failing), band)
			caption += "; the shaded band lies between the last level meeting the attainment target and the first missing it"
		}
	}
	p.Add(line, scatter)
	p.Legend.Add(fmt.Sprintf("output tokens/s at %s %s", name, q), line, scatter)
	if limit := sloLimit(sw.SLO, m); limit > 0 {
		x := millis(limit)
		v, err := plotter.NewLine(plotter.XYs{{X: x, Y: ylo}, {X: x, Y: yhi}})
		if err != nil {
			return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
		}
		v.Color = color.RGBA{R: 0xcc, A: 0xff}
		v.Dashes = []vg.Length{vg.Points(4), vg.Points(2)}
		p.Add(v)
		p.Legend.Add(fmt.Sprintf("SLO: %s ≤ %s ms, per request", name, ms3(limit)), v)
		caption += fmt.Sprintf("; the dashed line is the SLO's per-request limit on %s, against which the p99 is read", name)
	}
	lab, err := plotter.NewLabels(plotter.XYLabels{XYs: xys(pts), Labels: labels})
	if err != nil {
		return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
	}
	for i := range lab.TextStyle {
		lab.TextStyle[i].Font.Size = vg.Points(8)
		lab.TextStyle[i].Font.Variant = sans
	}
	lab.Offset = vg.Point{X: vg.Points(4), Y: vg.Points(-10)}
	p.Add(lab)
	if err := finish(p); err != nil {
		return Chart{}, err
	}
	return Chart{Name: "throughput_" + metric, Title: "Throughput against " + name + " " + q, Caption: caption, Plot: p}, nil
}

// sloLimit returns the SLO's limit on a metric, 0 when it sets none.
func sloLimit(slo *llmmetrics.SLO, m llmmetrics.Metric) time.Duration {
	if slo == nil {
		return 0
	}
	limit, _ := m.Limit(*slo)
	return limit
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
	caption := fmt.Sprintf("SLO attainment (good / offered)%s against the %s, median across each level's runs, bars ±MAD", slo, sw.Kind)
	if c != nil {
		caption += "; " + c.Reason
	}
	p := newPlot("SLO attainment by "+sw.Kind, sweepAxis(sw), "attainment (fraction)")
	e := newErrPoints(pts)
	line, scatter, err := plotter.NewLinePoints(e)
	if err != nil {
		return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
	}
	bars, err := plotter.NewYErrorBars(e)
	if err != nil {
		return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
	}
	line.Color, scatter.Color, bars.Color = colour(0), colour(0), colour(0)
	line.Width = vg.Points(1.5)
	p.Add(line, scatter, bars)
	p.Legend.Add("attainment (median of runs ±MAD)", line, scatter)
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
			v, err := plotter.NewLine(plotter.XYs{{X: *end, Y: 0}, {X: *end, Y: 1}})
			if err != nil {
				return Chart{}, fmt.Errorf("%w: %v", ErrCannotDraw, err)
			}
			v.Color = colour(2 + i)
			v.Dashes = []vg.Length{vg.Points(2), vg.Points(2)}
			p.Add(v)
			p.Legend.Add([]string{"highest level meeting the target", "first level missing it"}[i], v)
		}
	}
	if err := finish(p); err != nil {
		return Chart{}, err
	}
	p.Y.Min, p.Y.Max = 0, 1
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

// countPositive counts the values above 0.
func countPositive(values []float64) int {
	n := 0
	for _, v := range values {
		if v > 0 {
			n++
		}
	}
	return n
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
	p := newPlot("Timeline of the run", "seconds from the first send", "request (send order); in flight")
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
	if err := finish(p); err != nil {
		return Chart{}, err
	}
	return Chart{Name: "timeline", Title: "Timeline", Caption: caption, Plot: p}, nil
}
