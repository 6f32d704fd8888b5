package formats

import (
	"math"
	"slices"

	"github.com/llmmetrics/llmmetrics/internal/order"
)

// This file computes statistics the way numpy does, for the dialects of
// tools that use it: np.mean, np.std (population, ddof = 0), np.median and
// np.percentile with its default method, "linear" (Hyndman–Fan type 7). The
// inputs are float64 as the tools hold them; no value is rounded to
// nanoseconds. Sums are taken in a single pass, where numpy sums pairwise:
// the two agree to about 1e-15 relative, far inside the 9 significant
// digits the dialects promise.

// A floats is a sample of float64 values held in segments, so that pooled
// per-request lists need not be copied into one.
type floats [][]float64

func (fs floats) len() int {
	n := 0
	for _, s := range fs {
		n += len(s)
	}
	return n
}

// npStats holds numpy's summary of one sample.
type npStats struct {
	n         int
	mean, std float64
	pcts      []float64 // np.percentile at the asked percentiles
}

// describe returns np.mean, np.std with the given ddof, and np.percentile
// (linear) at ps, of a non-empty, finite sample, which it neither copies
// nor modifies. It reads the sample four times: for the sum and extremes,
// the squared deviations, and twice to select the order statistics.
func describe(fs floats, ddof int, ps []float64) npStats {
	st := npStats{n: fs.len()}
	var sum float64
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, seg := range fs {
		for _, x := range seg {
			sum += x
			k := order.Key(x)
			lo, hi = min(lo, k), max(hi, k)
		}
	}
	st.mean = sum / float64(st.n)
	var ss float64
	for _, seg := range fs {
		for _, x := range seg {
			d := x - st.mean
			ss += d * d
		}
	}
	st.std = math.Sqrt(ss / float64(st.n-ddof))
	st.pcts = npPercentiles(order.Floats(fs), lo, hi, ps)
	return st
}

// npPercentiles returns np.percentile with the linear method of a float
// sample whose keys lie in [lo, hi].
func npPercentiles(s order.Sample[int64], lo, hi int64, ps []float64) []float64 {
	n := s.N
	type pos struct {
		j int
		g float64
	}
	at := make([]pos, len(ps))
	var ks []int
	for i, p := range ps {
		v := float64(n-1) * (p / 100)
		j := min(int(math.Floor(v)), n-1)
		at[i] = pos{j, v - float64(j)}
		ks = append(ks, j, min(j+1, n-1))
	}
	slices.Sort(ks)
	ks = slices.Compact(ks)
	vals := make([]int64, len(ks))
	order.Select(s, lo, hi, ks, vals)
	value := func(k int) float64 {
		i, _ := slices.BinarySearch(ks, k)
		return order.Float(vals[i])
	}
	out := make([]float64, len(ps))
	for i, a := range at {
		out[i] = lerp(value(a.j), value(min(a.j+1, n-1)), a.g)
	}
	return out
}

// lerp interpolates as numpy's percentile does: from the lower value below
// the midpoint and from the upper value above it.
func lerp(a, b, t float64) float64 {
	d := b - a
	if t >= 0.5 {
		return b - d*(1-t)
	}
	return a + d*t
}

// extremes returns the smallest and largest value of a non-empty sample.
func extremes(fs floats) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, seg := range fs {
		for _, x := range seg {
			lo, hi = min(lo, x), max(hi, x)
		}
	}
	return lo, hi
}
