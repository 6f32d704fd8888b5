package order

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// Key orders floats as < does, across signs, zeros, subnormals and
// infinities, and Float inverts it.
func TestKey(t *testing.T) {
	fs := []float64{math.Inf(-1), -math.MaxFloat64, -1e300, -2, -1, -1e-310, math.Copysign(0, -1), 0, 1e-310, 1e-300, 0.5, 1, 2, 1e300, math.MaxFloat64, math.Inf(1)}
	for i := range fs {
		if got := Float(Key(fs[i])); math.Float64bits(got) != math.Float64bits(fs[i]) {
			t.Errorf("Float(Key(%v)) = %v", fs[i], got)
		}
		if i > 0 && Key(fs[i-1]) >= Key(fs[i]) {
			t.Errorf("Key(%v) ≥ Key(%v)", fs[i-1], fs[i])
		}
	}
}

// Select over float keys, flat and as gaps, agrees with sorting.
func TestSelectFloatKeys(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	xs := make([]float64, 50_000)
	keys := make([]int64, len(xs))
	for i := range xs {
		xs[i] = (rng.Float64() - 0.3) * math.Pow(10, float64(rng.IntN(12)-6))
		keys[i] = Key(xs[i])
	}
	sorted := slices.Clone(xs)
	slices.Sort(sorted)
	ks := []int{0, 1, 499, 25_000, 49_998, 49_999}
	out := make([]int64, len(ks))
	Select(Flat(keys), slices.Min(keys), slices.Max(keys), ks, out)
	for i, k := range ks {
		if Float(out[i]) != sorted[k] {
			t.Errorf("rank %d: %v, want %v", k, Float(out[i]), sorted[k])
		}
	}
	// Gaps of running sums are the values themselves.
	ints := make([]int64, 3001)
	for i := 1; i < len(ints); i++ {
		ints[i] = ints[i-1] + rng.Int64N(1000) - 200
	}
	gaps := Sample[int64]{Segs: [][]int64{ints[:1500], ints[1499:]}, Gaps: true, N: 3000}
	all := gaps.AppendTo(nil)
	sortedGaps := slices.Sorted(slices.Values(all))
	out = make([]int64, 3)
	Select(gaps, slices.Min(all), slices.Max(all), []int{0, 1500, 2999}, out)
	if out[0] != sortedGaps[0] || out[1] != sortedGaps[1500] || out[2] != sortedGaps[2999] {
		t.Errorf("gaps: %v", out)
	}
}
