package llmmetrics

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/decimal"
	"github.com/llmmetrics/llmmetrics/internal/order"
)

// Method is a percentile estimator. Its zero value is NearestRank.
type Method uint8

const (
	// NearestRank returns the sample value at rank ⌈p·N/100⌉ of the sorted
	// sample (rank 1 at p = 0): Hyndman–Fan type 1, the inverse of the
	// empirical distribution function. The rank is computed in exact integer
	// arithmetic, so p = 7 with N = 100 is rank 7. The result is always a
	// value of the sample: for per-request metrics, a real request.
	NearestRank Method = iota
	// Linear interpolates between the order statistics around the position
	// h = (N − 1)·p/100 (from 0): Hyndman–Fan type 7, the default of numpy,
	// R and Excel PERCENTILE.INC, and what vLLM's benchmark reports. The
	// position and the interpolation are exact; the result is rounded to the
	// nearest nanosecond.
	Linear
)

var methodNames = [...]string{"nearest-rank", "linear"}

// String returns "nearest-rank" or "linear".
func (m Method) String() string { return nameOf(methodNames[:], m, "Method") }

// UnmarshalText sets m to the method named text, as String writes it.
func (m *Method) UnmarshalText(text []byte) error {
	for i, n := range methodNames {
		if n == string(text) {
			*m = Method(i)
			return nil
		}
	}
	return fmt.Errorf("%w: %q (want nearest-rank or linear)", ErrMethod, text)
}

func (m Method) valid() error {
	if int(m) >= len(methodNames) {
		return fmt.Errorf("%w: %d", ErrMethod, uint8(m))
	}
	return nil
}

// percentScale is the number of Percentile units in one percent: a
// percentile is held exactly to six decimal places.
const (
	percentDecimals = 6
	percentScale    = 1_000_000
	hundredPercent  = 100 * percentScale
)

// A Percentile is a percentile p in [0, 100], held exactly as a decimal with
// up to six places, so that ranks are computed without rounding error.
type Percentile struct{ units int64 } // p × 10⁶

// The defaults of Options.
var (
	// DefaultPercentiles are the percentiles a Summary reports unless told
	// otherwise: p50, p90, p95 and p99.
	DefaultPercentiles = []Percentile{{50 * percentScale}, {90 * percentScale}, {95 * percentScale}, {99 * percentScale}}

	// LessonsWarmup is the specification's illustrative warm-up rule
	// (WarmupSpec.Auto): windows of 10 requests, medians within 2 %, three
	// times in a row.
	LessonsWarmup = WarmupRule{Window: 10, Tolerance: 0.02, Windows: 3}
)

// NewPercentile returns the percentile p. The float is read as the shortest
// decimal that represents it (7 is 7, 99.9 is 99.9), so no binary rounding
// reaches the rank. It returns ErrPercentile for p outside [0, 100], NaN, or
// more than six decimal places.
func NewPercentile(p float64) (Percentile, error) {
	if math.IsNaN(p) || math.IsInf(p, 0) {
		return Percentile{}, fmt.Errorf("%w: %v", ErrPercentile, p)
	}
	return parsePercentile(strconv.FormatFloat(p, 'f', -1, 64))
}

// MustPercentile is like NewPercentile but panics on a bad value. It is meant
// for constants in programs and tests.
func MustPercentile(p float64) Percentile {
	q, err := NewPercentile(p)
	if err != nil {
		panic(err)
	}
	return q
}

// UnmarshalText sets p to the decimal percentile text, such as "99" or
// "99.9", with an optional leading "p". It returns ErrPercentile for
// anything else, and leaves p as it was.
func (p *Percentile) UnmarshalText(text []byte) error {
	q, err := parsePercentile(string(text))
	if err == nil {
		*p = q
	}
	return err
}

func parsePercentile(s string) (Percentile, error) {
	units, ok := decimal.Fixed(strings.TrimPrefix(s, "p"), 3, percentDecimals)
	if !ok || units > hundredPercent {
		return Percentile{}, fmt.Errorf("%w: %q (want a decimal in [0, 100] with at most %d places)", ErrPercentile, s, percentDecimals)
	}
	return Percentile{units}, nil
}

// ParsePercentiles parses a comma-separated list such as "50,90,95,99". A
// percentile given twice, however written ("50" and "50.0"), is an error
// wrapping ErrPercentile: it would be reported twice under one key.
func ParsePercentiles(list string) ([]Percentile, error) {
	var ps []Percentile
	for _, f := range strings.Split(list, ",") {
		p, err := parsePercentile(strings.TrimSpace(f))
		if err != nil {
			return nil, err
		}
		if slices.Contains(ps, p) {
			return nil, fmt.Errorf("%w: %s given twice (as %q)", ErrPercentile, p.Key(), strings.TrimSpace(f))
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// Float returns p as a float64 (99.9 for p99.9).
func (p Percentile) Float() float64 { return float64(p.units) / percentScale }

// String returns p in its shortest decimal form, such as "99.9".
func (p Percentile) String() string { return decimal.FormatFixed(p.units, percentDecimals) }

// Key returns the report key of p: "p50", "p99.9".
func (p Percentile) Key() string { return "p" + p.String() }

// position returns where percentile p falls in a sorted sample of n values
// under method m: the index lo (from 0) and, for Linear, the fraction
// num/hundredPercent of the way to index lo+1. n must be positive.
func (m Method) position(p Percentile, n int) (lo int, num uint64) {
	if m == NearestRank {
		return order.NearestRank(uint64(p.units), hundredPercent, n), 0
	}
	return order.Linear(uint64(p.units), hundredPercent, n)
}

// A sample holds the values a distribution is taken over without copying
// them (see order.Sample). The pooled chunk gaps of a run are a sample of
// gaps over the records' chunk arrivals, so that the hundreds of millions of
// gaps of a large run are never written out.
type sample = order.Sample[time.Duration]

func flat(xs []time.Duration) sample { return order.Flat(xs) }

// percentiles computes the percentiles of a non-empty sample whose values
// lie in [lo, hi].
func percentiles(s sample, lo, hi time.Duration, m Method, ps []Percentile) []time.Duration {
	return order.Quantiles(s, lo, hi, len(ps), hundredPercent, func(i int) (int, uint64) { return m.position(ps[i], s.N) })
}
