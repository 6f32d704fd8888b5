package outofcore

import (
	"slices"
	"time"

	"github.com/llmmetrics/llmmetrics/internal/exact"
	"github.com/llmmetrics/llmmetrics/internal/order"
)

// Quantiles reads src, as Select does, for the moments of its values and
// nq quantiles of them: quantile i is at the position at(n, i) returns
// in the sample of n values, as for order.Quantiles: the order statistic
// of index k (from 0), or with r > 0 the value r/of of the way from it to
// the next, rounded as order.Interpolate rounds. Each order statistic is
// selected once, however many positions need it.
func Quantiles(src Source, budget int, nq int, of uint64, at func(n, i int) (k int, r uint64)) (exact.Moments, []time.Duration, Stats, error) {
	var ks []int
	ranks := func(n int) []int {
		for i := range nq {
			k, r := at(n, i)
			ks = append(ks, k)
			if r != 0 {
				ks = append(ks, k+1)
			}
		}
		slices.Sort(ks)
		ks = slices.Compact(ks)
		return ks
	}
	mo, vals, st, err := Select(src, budget, ranks)
	if err != nil || mo.N == 0 {
		return mo, nil, st, err
	}
	value := func(k int) time.Duration { i, _ := slices.BinarySearch(ks, k); return vals[i] }
	out := make([]time.Duration, nq)
	for i := range out {
		k, r := at(mo.N, i)
		if r == 0 {
			out[i] = value(k)
		} else {
			out[i] = order.Interpolate(value(k), value(k+1), r, of)
		}
	}
	return mo, out, st, nil
}
