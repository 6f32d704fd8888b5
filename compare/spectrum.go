package compare

import (
	"bufio"
	"fmt"
	"io"
	"math"
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// A SpectrumPoint is a value of a percentile spectrum: the smallest sample
// value at or below which at least Quantile of the samples lie (nearest
// rank; Quantile 0 is the minimum), and how many samples are at or below
// it.
type SpectrumPoint struct {
	Quantile float64
	Value    time.Duration
	Count    int
}

// spectrumTicks is the number of quantiles per halving of the distance to
// 1, as HdrHistogram's percentile distribution reports by default.
const spectrumTicks = 5

// Spectrum returns the percentile spectrum of xs, in the layout of
// HdrHistogram's percentile distribution: quantiles 1 − 2^(−k/5) for k = 0,
// 1, 2, … (0, 0.129, 0.242, …, 0.5, …, 0.9, …, 0.99, …) while a quantile
// still tells two samples apart (below 1 − 1/N), then 1 (the maximum).
// Each value is a real sample (nearest rank), so the tail is never
// interpolated. It returns ErrNoSamples for an empty xs, and does not
// modify xs.
func Spectrum(xs []time.Duration) ([]SpectrumPoint, error) {
	if len(xs) == 0 {
		return nil, llmmetrics.ErrNoSamples
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	n := len(s)
	at := func(q float64) SpectrumPoint {
		rank := max(int(math.Ceil(q*float64(n)-1e-9)), 1)
		// Count every sample equal to the value, as a cumulative count.
		v := s[rank-1]
		count, _ := slices.BinarySearch(s, v+1)
		return SpectrumPoint{Quantile: q, Value: v, Count: count}
	}
	var out []SpectrumPoint
	for k := 0; ; k++ {
		q := 1 - math.Pow(2, -float64(k)/spectrumTicks)
		if q >= 1-1/float64(n) || k > 40*spectrumTicks {
			break
		}
		out = append(out, at(q))
	}
	return append(out, at(1)), nil
}

// WriteSpectrum writes a spectrum as HdrHistogram's percentile
// distribution text, in milliseconds, which its plotter and hdrplot-style
// tools read: a header, one line per point (value, quantile, count,
// 1/(1−quantile)), and the mean, standard deviation, maximum and count of
// xs as its footer.
func WriteSpectrum(w io.Writer, xs []time.Duration) error {
	points, err := Spectrum(xs)
	if err != nil {
		return err
	}
	d, err := llmmetrics.Describe(xs, llmmetrics.NearestRank)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "%12s %14s %10s %14s\n\n", "Value", "Percentile", "TotalCount", "1/(1-Percentile)")
	for _, p := range points {
		inv := "inf"
		if p.Quantile < 1 {
			inv = fmt.Sprintf("%.2f", 1/(1-p.Quantile))
		}
		fmt.Fprintf(bw, "%12.3f %2.12f %10d %14s\n", millis(p.Value), p.Quantile, p.Count, inv)
	}
	fmt.Fprintf(bw, "#[Mean    = %12.3f, StdDeviation   = %12.3f]\n", millis(d.Mean), millis(d.Std))
	fmt.Fprintf(bw, "#[Max     = %12.3f, Total count    = %12d]\n", millis(d.Max), d.N)
	fmt.Fprintf(bw, "#[values in milliseconds; each a real sample (nearest rank)]\n")
	return bw.Flush()
}
