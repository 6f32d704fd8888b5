package charts

import (
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
)

// SpectrumNines is how far right a spectrum reaches, in nines: 4 is the
// 99.99th percentile.
const SpectrumNines = 4

// Nines returns where percentile p (in [0, 100)) lies on a nines axis,
// −log₁₀(1 − p/100): 0 at p0, 1 at p90, 2 at p99, 3 at p99.9.
func Nines(p float64) float64 {
	if p == 0 {
		return 0 // not −0
	}
	return -math.Log10(1 - p/100)
}

// SpectrumPoints returns the spectrum of xs by method: the value in
// milliseconds (Y) at percentiles spaced evenly on the nines axis (X, in
// nines) from p0 to p99.99, 40 a nine. It does not modify xs and returns
// nil when xs is empty.
func SpectrumPoints(xs []time.Duration, method llmmetrics.Method) []XY {
	if len(xs) == 0 {
		return nil
	}
	const perNine = 40
	var ps []llmmetrics.Percentile
	var at []float64
	for i := 0; i <= SpectrumNines*perNine; i++ {
		x := float64(i) / perNine
		p, err := llmmetrics.NewPercentile(math.Round(100*(1-math.Pow(10, -x))*1e6) / 1e6)
		if err != nil {
			continue
		}
		ps = append(ps, p)
		at = append(at, x)
	}
	d, err := llmmetrics.Describe(xs, method, ps...)
	if err != nil {
		return nil
	}
	out := make([]XY, len(d.Points))
	for i, pt := range d.Points {
		out[i] = XY{at[i], millis(pt.Value)}
	}
	return out
}

// ninesTicks labels a nines axis at p0, p50, p90, p99, p99.9 and p99.99,
// with unlabelled ticks at the other tens of the first nine.
type ninesTicks struct{}

func (ninesTicks) Ticks(lo, hi float64) []plot.Tick {
	var out []plot.Tick
	for k := 0; k <= SpectrumNines; k++ {
		x := float64(k)
		if x < lo || x > hi {
			continue
		}
		out = append(out, plot.Tick{Value: x, Label: strconv.FormatFloat(100*(1-math.Pow(10, -x)), 'f', -1, 64)})
	}
	for p := 10.0; p < 90; p += 10 {
		if x := Nines(p); x >= lo && x <= hi {
			t := plot.Tick{Value: x}
			if p == 50 {
				t.Label = "50"
			}
			out = append(out, t)
		}
	}
	return out
}

// Spectrum draws the percentile spectrum of a latency metric (by its key,
// as LatencyCDF): its value against the percentile on a nines
// axis from p0 to p99.99, as HdrHistogram and vegeta plot it, one line a
// series, with a marker at each of the report's percentiles ps. Past the
// (1 − 1/N)th percentile a series of N values shows only its largest ones.
func Spectrum(metric string, series []Series, method llmmetrics.Method, ps []llmmetrics.Percentile, window string) (Chart, error) {
	m, ok := chartMetric(metric)
	name := m.Name
	if !ok {
		return Chart{}, fmt.Errorf("charts: unknown metric %q", metric)
	}
	caption := fmt.Sprintf("%s of the ok requests in ms against the percentile, on a nines scale (90, 99, 99.9… equally spaced); percentiles %s; markers at the report's percentiles; past p(100 − 100/N) a run of N requests shows its largest value; %s", name, method, window)
	p := newPlot(name+" percentile spectrum", "percentile (nines scale)", name+" (ms)")
	p.X.Tick.Marker = ninesTicks{}
	drawn := 0
	for i, s := range series {
		pts := SpectrumPoints(s.Values, method)
		if len(pts) == 0 {
			continue
		}
		var marks []XY
		var asked []llmmetrics.Percentile
		for _, q := range ps {
			if x := Nines(q.Float()); x <= SpectrumNines {
				asked = append(asked, q)
			}
		}
		if d, err := llmmetrics.Describe(s.Values, method, asked...); err == nil {
			for _, pt := range d.Points {
				marks = append(marks, XY{Nines(pt.P.Float()), millis(pt.Value)})
			}
		}
		line, err := addSeries(p, i, pts, marks, plotter.NoStep)
		if err != nil {
			return Chart{}, err
		}
		p.Legend.Add(fmt.Sprintf("%s (n=%d)", legendName(s.Name), len(s.Values)), line)
		drawn++
	}
	if drawn == 0 {
		return Chart{}, fmt.Errorf("%w: no %s value", ErrNoData, name)
	}
	p.X.Min, p.X.Max = 0, SpectrumNines
	p.Y.Min = min(0, p.Y.Min) // latency from 0, as HdrHistogram draws it
	if err := finish(p); err != nil {
		return Chart{}, err
	}
	return Chart{Name: metric + "_spectrum", Title: name + " percentile spectrum", Caption: caption, Plot: p}, nil
}
