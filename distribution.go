package llmmetrics

import (
	"math"
	"math/bits"
	"slices"
	"time"
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
	return describeInPlace(slices.Clone(xs), m, ps), nil
}

// describeInPlace summarizes a non-empty sample, which it reorders.
func describeInPlace(xs []time.Duration, m Method, ps []Percentile) Distribution {
	d := Distribution{N: len(xs), Method: m, Min: xs[0], Max: xs[0]}
	var s sum128
	for _, x := range xs {
		d.Min = min(d.Min, x)
		d.Max = max(d.Max, x)
		s.add(int64(x))
	}
	d.Mean = s.divRound(int64(len(xs)))
	d.Std = popStd(xs, d.Mean)
	vals := percentilesInPlace(xs, m, ps)
	d.Points = make([]Point, len(ps))
	for i, p := range ps {
		d.Points[i] = Point{P: p, Value: vals[i]}
	}
	return d
}

// popStd returns the population standard deviation of xs about mean. The
// deviations are summed in float64 from the exact integer mean (two-pass).
func popStd(xs []time.Duration, mean time.Duration) time.Duration {
	var ss, c float64 // Neumaier-compensated sum of squares
	for _, x := range xs {
		dv := float64(x - mean)
		v := dv * dv
		t := ss + v
		if math.Abs(ss) >= math.Abs(v) {
			c += (ss - t) + v
		} else {
			c += (v - t) + ss
		}
		ss = t
	}
	return time.Duration(math.Round(math.Sqrt((ss + c) / float64(len(xs)))))
}

// sum128 is an exact signed 128-bit sum of int64 values, so that means of
// large samples of nanoseconds neither overflow nor round.
type sum128 struct{ hi, lo uint64 }

func (s *sum128) add(v int64) {
	var carry uint64
	s.lo, carry = bits.Add64(s.lo, uint64(v), 0)
	ext := uint64(0)
	if v < 0 {
		ext = math.MaxUint64
	}
	s.hi, _ = bits.Add64(s.hi, ext, carry)
}

// divRound returns s/n rounded to the nearest integer, halves away from zero,
// for n > 0. The quotient must fit in an int64, which it does for a mean.
func (s sum128) divRound(n int64) time.Duration {
	neg := int64(s.hi) < 0
	hi, lo := s.hi, s.lo
	if neg { // negate the 128-bit value
		lo, hi = ^lo+1, ^hi
		if lo == 0 {
			hi++
		}
	}
	// The quotient of a mean fits in 64 bits, so only the remainder of the
	// high word matters.
	q0, r := bits.Div64(hi%uint64(n), lo, uint64(n))
	if r >= uint64(n)-r {
		q0++
	}
	if neg {
		return -time.Duration(q0)
	}
	return time.Duration(q0)
}
