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

func npMean(fs floats) float64 {
	var s float64
	for _, seg := range fs {
		for _, x := range seg {
			s += x
		}
	}
	return s / float64(fs.len())
}

func npStd(fs floats, ddof int) float64 {
	m := npMean(fs)
	var s float64
	for _, seg := range fs {
		for _, x := range seg {
			d := x - m
			s += d * d
		}
	}
	return math.Sqrt(s / float64(fs.len()-ddof))
}

// npPercentiles returns np.percentile(xs, ps) with the linear method. The
// sample must be non-empty and finite; it is not modified.
func npPercentiles(fs floats, ps []float64) []float64 {
	n := fs.len()
	keys := make([]int64, 0, n)
	lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
	for _, seg := range fs {
		for _, x := range seg {
			k := order.Key(x)
			keys = append(keys, k)
			lo, hi = min(lo, k), max(hi, k)
		}
	}
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
	order.Select(order.Flat(keys), lo, hi, ks, vals)
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
