package compare

import (
	"cmp"
	"math"
	"slices"

	"gonum.org/v1/gonum/stat/distuv"

	"github.com/llmmetrics/llmmetrics"
)

// A RankTest is the result of a two-sided Mann–Whitney U test of whether
// two samples come from one distribution (equivalently, whether a value of
// one is as likely to be above a value of the other as below).
type RankTest struct {
	NA, NB int
	U      float64 // U of sample A: pairs (a, b) with a > b, plus half the ties
	P      float64 // two-sided p-value
	Exact  bool    // P from the exact distribution of U, not the normal approximation
}

// exactLimit bounds the samples whose test is exact: both at most this
// long.
const exactLimit = 20

// MannWhitney tests two samples. With both samples of at most 20 values,
// P is exact: the distribution of A's rank sum over every way of choosing
// which of the pooled values are A's, ties given their average rank (the
// normal approximation is poor there: with 3 runs a side and tied values
// it can claim p < 0.05 where no split is that rare). Otherwise P comes
// from the normal approximation with the tie correction and a continuity
// correction of ½, its tail from gonum's distuv.Normal. It returns
// ErrNoSamples when either sample is empty. It does not modify a or b.
func MannWhitney[T ~int64 | ~float64](a, b []T) (RankTest, error) {
	na, nb := len(a), len(b)
	if na == 0 || nb == 0 {
		return RankTest{}, llmmetrics.ErrNoSamples
	}
	type v struct {
		x     float64
		inA   bool
		rank2 int // twice the rank: average ranks are whole or half
	}
	all := make([]v, 0, na+nb)
	for _, x := range a {
		all = append(all, v{x: float64(x), inA: true})
	}
	for _, x := range b {
		all = append(all, v{x: float64(x)})
	}
	slices.SortFunc(all, func(p, q v) int { return cmp.Compare(p.x, q.x) })
	// Ranks, ties given their average rank; Σ(t³ − t) for the correction.
	var tieSum float64
	for i := 0; i < len(all); {
		j := i
		for j < len(all) && all[j].x == all[i].x {
			j++
		}
		for k := i; k < j; k++ {
			all[k].rank2 = i + j + 1 // twice the average of ranks i+1 … j
		}
		t := float64(j - i)
		tieSum += t*t*t - t
		i = j
	}
	var ra2 int
	ranks2 := make([]int, len(all))
	for i, x := range all {
		ranks2[i] = x.rank2
		if x.inA {
			ra2 += x.rank2
		}
	}
	u := float64(ra2)/2 - float64(na*(na+1))/2
	rt := RankTest{NA: na, NB: nb, U: u}
	if na <= exactLimit && nb <= exactLimit {
		rt.P, rt.Exact = exactP(ranks2, na, ra2), true
		return rt, nil
	}
	n := float64(na + nb)
	mean := float64(na*nb) / 2
	variance := float64(na*nb) / 12 * ((n + 1) - tieSum/(n*(n-1)))
	z := (math.Abs(u-mean) - 0.5) / math.Sqrt(variance)
	if !(variance > 0) || !(z > 0) {
		rt.P = 1 // every value equal, or U at its mean
		return rt, nil
	}
	rt.P = min(1, 2*distuv.UnitNormal.Survival(z))
	return rt, nil
}

// exactP returns the two-sided p-value of A's doubled rank sum r among the
// pooled doubled ranks: over the (n choose k) equally likely choices of
// which k values are A's, 2·min(P(R ≤ r), P(R ≥ r)), at most 1. The
// counts are built one value at a time: ways[j][s] is the number of
// choices of j of the values so far with doubled rank sum s. They are
// exact in float64 for the sizes it is used at ((40 choose 20) < 2⁵³).
func exactP(ranks2 []int, k, r int) float64 {
	maxSum := 0
	for _, x := range ranks2 {
		maxSum += x
	}
	ways := make([][]float64, k+1)
	for j := range ways {
		ways[j] = make([]float64, maxSum+1)
	}
	ways[0][0] = 1
	for _, x := range ranks2 {
		for j := k; j >= 1; j-- {
			for s := maxSum; s >= x; s-- {
				ways[j][s] += ways[j-1][s-x]
			}
		}
	}
	var total, le, ge float64
	for s, c := range ways[k] {
		total += c
		if s <= r {
			le += c
		}
		if s >= r {
			ge += c
		}
	}
	return min(1, 2*min(le, ge)/total)
}
