package order

import (
	"math/bits"
	"slices"
)

// Quantiles by rank. A quantile q is held exactly as the fraction num/of
// (a percentile p with six decimal places is p·10⁶ of 10⁸), and its rank
// in a sample is computed in integer arithmetic, so that no binary
// rounding reaches it: p7 of 100 values is rank 7.

// NearestRank returns the index (from 0) of the order statistic at q =
// num/of in n sorted values by the nearest rank (Hyndman–Fan type 1):
// rank ⌈q·n⌉, at least 1, less one. It needs num ≤ of.
func NearestRank(num, of uint64, n int) int {
	hi, lo := bits.Mul64(num, uint64(n))
	k, r := bits.Div64(hi, lo, of)
	if r != 0 {
		k++
	}
	return max(int(k), 1) - 1
}

// Linear returns the position h = q·(n − 1) (from 0) of q = num/of in n
// sorted values (Hyndman–Fan type 7): its whole part k and the fraction
// r/of of the way from index k to k + 1. It needs num ≤ of and n ≥ 1.
func Linear(num, of uint64, n int) (k int, r uint64) {
	hi, lo := bits.Mul64(num, uint64(n-1))
	q, r := bits.Div64(hi, lo, of)
	return int(q), r
}

// Interpolate returns a + r/of·(b − a), rounded to the nearest integer,
// halves up. It needs a ≤ b and r < of.
func Interpolate[T ~int64](a, b T, r, of uint64) T {
	if r == 0 {
		return a
	}
	hi, lo := bits.Mul64(uint64(b-a), r)
	q, rem := bits.Div64(hi, lo, of)
	if rem >= of-rem {
		q++
	}
	return a + T(q)
}

// Quantiles returns n values of a non-empty sample whose values lie in
// [lo, hi]: value i is at the position at(i) returns, the order statistic
// of index k (from 0), or with r > 0 the value r/of of the way from it to
// the next (see Interpolate). Each order statistic is selected once
// (Select), however many positions need it.
func Quantiles[T ~int64](s Sample[T], lo, hi T, n int, of uint64, at func(i int) (k int, r uint64)) []T {
	ks := make([]int, 0, 2*n)
	for i := range n {
		k, r := at(i)
		ks = append(ks, k)
		if r != 0 {
			ks = append(ks, k+1)
		}
	}
	slices.Sort(ks)
	ks = slices.Compact(ks)
	vals := make([]T, len(ks))
	Select(s, lo, hi, ks, vals)
	value := func(k int) T { i, _ := slices.BinarySearch(ks, k); return vals[i] }
	out := make([]T, n)
	for i := range out {
		k, r := at(i)
		if r == 0 {
			out[i] = value(k)
		} else {
			out[i] = Interpolate(value(k), value(k+1), r, of)
		}
	}
	return out
}
