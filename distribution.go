package llmmetrics

import (
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
)

// A Distribution summarizes one sample of latencies: its size, mean,
// population standard deviation, extremes and percentiles, with the method
// that computed them. The zero Distribution (N = 0) means no data; the
// functions of this package never return one with a nil error.
type Distribution struct {
	N      int
	Method Method
	Mean   time.Duration // Σx/N, rounded to the nearest nanosecond
	Std    time.Duration // population standard deviation √(Σ(x−mean)²/N), as numpy.std
	Min    time.Duration
	Max    time.Duration
	Points []Point // one per requested percentile, in the order asked
}

// A Point is the value of a distribution at one percentile. For NearestRank
// over per-request metrics, ID names a request that holds the value (the
// first in input order, when several do).
type Point struct {
	P     Percentile
	Value time.Duration
	ID    string
}

// At returns the value at percentile p, if the distribution has it.
func (d Distribution) At(p Percentile) (time.Duration, bool) {
	for _, pt := range d.Points {
		if pt.P == p {
			return pt.Value, true
		}
	}
	return 0, false
}

// Describe summarizes xs: N, mean, population standard deviation, min, max
// and the percentiles ps by method m. The caller's slice is not modified. It
// returns ErrNoSamples for an empty xs.
func Describe(xs []time.Duration, m Method, ps ...Percentile) (Distribution, error) {
	if err := m.valid(); err != nil {
		return Distribution{}, err
	}
	if len(xs) == 0 {
		return Distribution{}, ErrNoSamples
	}
	var mo moments
	for _, x := range xs {
		mo.add(x)
	}
	return describeSample(flat(xs), mo, m, ps), nil
}

// moments accumulates the count, extremes and exact sum of a sample, and,
// where the pass that gathered it summed them (squared), the exact sum of
// the squares of its values.
type moments struct {
	n        int
	min, max time.Duration
	sum      exact.Sum128
	squares  exact.Sum192
	squared  bool
}

func (mo *moments) add(x time.Duration) {
	mo.addMany(1, x, x, x)
}

// merge adds another sample's moments to mo.
func (mo *moments) merge(o *moments) {
	if o.n == 0 {
		return
	}
	mo.addMany(o.n, o.min, o.max, 0)
	mo.sum.AddSum(o.sum)
	mo.squares.AddSum(o.squares)
}

// addMany adds n values with the given extremes and sum.
func (mo *moments) addMany(n int, lo, hi, sum time.Duration) {
	if mo.n == 0 {
		mo.min, mo.max = lo, hi
	}
	mo.n += n
	mo.min = min(mo.min, lo)
	mo.max = max(mo.max, hi)
	mo.sum.Add(int64(sum))
}

// describeSample summarizes a non-empty sample whose moments are mo.
func describeSample(s sample, mo moments, m Method, ps []Percentile) Distribution {
	d := Distribution{N: s.N, Method: m, Min: mo.min, Max: mo.max}
	d.Mean = mo.sum.DivRound(int64(s.N))
	var vals []time.Duration
	switch {
	case mo.squared:
		d.Std = exact.Deviation(mo.squares, mo.sum, mo.n, d.Mean)
		vals = percentiles(s, d.Min, d.Max, m, ps)
	case s.N >= parallelMin:
		// A large sample's deviations are summed on another core while its
		// percentiles are selected.
		std := make(chan time.Duration)
		go func() { std <- popStd(s, d.Mean) }()
		vals = percentiles(s, d.Min, d.Max, m, ps)
		d.Std = <-std
	default:
		d.Std = popStd(s, d.Mean)
		vals = percentiles(s, d.Min, d.Max, m, ps)
	}
	d.Points = make([]Point, len(ps))
	for i, p := range ps {
		d.Points[i] = Point{P: p, Value: vals[i]}
	}
	return d
}

// parallelMin is the size of a sample from which its passes are shared
// among the cores.
const parallelMin = 1 << 16

// The standard deviation is √(Σ(x − mean)²/N) about the exact integer
// mean, with the sum of squares exact (192 bits hold any sum of squares of
// time differences), rounded to a float64 once, and the root rounded to
// the nanosecond. Exact sums do not depend on the order of the values, so
// they may be taken on several cores, or fused into a pass that reads the
// values for another reason.

// popStd returns the population standard deviation of the sample about
// mean, in a pass of its own.
func popStd(s sample, mean time.Duration) time.Duration {
	var sq exact.Sum192
	s.Each(func(seg []time.Duration) { sq.AddSquaresAbout(seg, mean, s.Gaps) })
	return exact.RootMean(sq.Big(), s.N)
}
