package compare

import (
	"fmt"
	"math"
	"slices"

	"github.com/llmmetrics/llmmetrics"
)

// madScale is 1/Φ⁻¹(3/4), the factor that makes the MAD of a normal sample
// estimate its standard deviation.
const madScale = 1.482602218505602

// A Spread is median ± MAD of one figure over repeated runs: the p99 TTFT of
// each of five runs, say. It is not a percentile of pooled requests: the
// median of per-run p99s and the p99 of all requests are different figures.
type Spread[T ~int64 | ~float64] struct {
	N      int // number of runs; fewer than about five gives a weak spread
	Median T   // the conventional median: the mean of the middle two when N is even
	MAD    T   // raw median absolute deviation: median(|x − Median|)
	// ScaledMAD is 1.4826·MAD, the scale R's mad() reports by default. It is
	// a separate figure from MAD and is named so.
	ScaledMAD T
}

// MedianMAD returns the median and the median absolute deviation of one
// figure over repeated runs. T is time.Duration for latencies (results are
// rounded to the nanosecond) or float64 for rates. It returns ErrNoSamples
// for no runs and ErrNonFinite for a NaN or infinite value. It does not
// modify xs.
func MedianMAD[T ~int64 | ~float64](xs []T) (Spread[T], error) {
	if len(xs) == 0 {
		return Spread[T]{}, llmmetrics.ErrNoSamples
	}
	v := make([]float64, len(xs))
	for i, x := range xs {
		f := float64(x)
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return Spread[T]{}, fmt.Errorf("%w: run %d", llmmetrics.ErrNonFinite, i)
		}
		v[i] = f
	}
	med := median(v)
	for i := range v {
		v[i] = math.Abs(v[i] - med)
	}
	mad := median(v)
	half := 0.5
	isInt := T(half) == 0
	conv := func(f float64) T {
		if isInt {
			return T(math.Round(f))
		}
		return T(f)
	}
	return Spread[T]{N: len(xs), Median: conv(med), MAD: conv(mad), ScaledMAD: conv(madScale * mad)}, nil
}

// median sorts v and returns its conventional median.
func median(v []float64) float64 {
	slices.Sort(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return v[n/2-1] + (v[n/2]-v[n/2-1])/2
}
