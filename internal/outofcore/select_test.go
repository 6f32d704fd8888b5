package outofcore_test

import (
	"errors"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/exact"
	"github.com/llmmetrics/llmmetrics/internal/order"
	"github.com/llmmetrics/llmmetrics/internal/outofcore"
)

// hundred is 100 % in the units of a percentile (10⁻⁶ %), as the root
// holds it.
const hundred = 100_000_000

// describe summarizes src as llmmetrics.Describe does in memory: the
// percentiles are given in units of 10⁻⁶ %.
func describe(src outofcore.Source, budget int, m llmmetrics.Method, units []uint64) (llmmetrics.Distribution, outofcore.Stats, error) {
	at := func(n, i int) (int, uint64) {
		if m == llmmetrics.NearestRank {
			return order.NearestRank(units[i], hundred, n), 0
		}
		return order.Linear(units[i], hundred, n)
	}
	mo, vals, st, err := outofcore.Quantiles(src, budget, len(units), hundred, at)
	if err != nil || mo.N == 0 {
		return llmmetrics.Distribution{}, st, err
	}
	d := llmmetrics.Distribution{N: mo.N, Method: m, Min: mo.Min, Max: mo.Max}
	d.Mean = mo.Sum.DivRound(int64(mo.N))
	d.Std = exact.Deviation(mo.Squares, mo.Sum, mo.N, d.Mean)
	for i, u := range units {
		d.Points = append(d.Points, llmmetrics.Point{P: percentile(u), Value: vals[i]})
	}
	return d, st, nil
}

// percentile returns the percentile of u units of 10⁻⁶ %.
func percentile(u uint64) llmmetrics.Percentile {
	return llmmetrics.MustPercentile(float64(u) / 1e6)
}

// seq returns the values lo, lo+1, …, hi.
func seq(lo, hi time.Duration) []time.Duration {
	var xs []time.Duration
	for x := lo; x <= hi; x++ {
		xs = append(xs, x)
	}
	return xs
}

// The edges, with the figures worked by hand.
func TestQuantilesEdges(t *testing.T) {
	const p = 1_000_000 // one percent
	ms := time.Millisecond
	for _, c := range []struct {
		name   string
		xs     []time.Duration
		budget int
		m      llmmetrics.Method
		units  []uint64
		want   []time.Duration
		mean   time.Duration
		passes int // 0: any
	}{
		// A single value is every percentile.
		{"one", []time.Duration{7}, outofcore.MinBudget, llmmetrics.Linear, []uint64{0, 50 * p, 100 * p}, []time.Duration{7, 7, 7}, 7, 1},
		// All equal: the first pass's extremes settle every rank.
		{"equal", slices.Repeat([]time.Duration{5 * ms}, 1000), outofcore.MinBudget, llmmetrics.NearestRank, []uint64{99 * p}, []time.Duration{5 * ms}, 5 * ms, 1},
		// 1…100: rank ⌈50⌉ = 50, ⌈99⌉ = 99, rank 1 at p0; mean 50.5
		// rounds away from zero. Each value below 2048 has a bin of its
		// own, so the first pass settles every rank.
		{"hundred nearest", seq(1, 100), 1 << 20, llmmetrics.NearestRank, []uint64{0, 50 * p, 99 * p, 100 * p}, []time.Duration{1, 50, 99, 100}, 51, 1},
		// Linear: h = 99·0.5 = 49.5, halfway from 50 to 51, rounds up;
		// h = 99·0.99 = 98.01: 99.01 rounds to 99.
		{"hundred linear", seq(1, 100), 1 << 20, llmmetrics.Linear, []uint64{50 * p, 99 * p}, []time.Duration{51, 99}, 51, 1},
		// Gaps of zero: rank ⌈2⌉ = 2 is 0, rank ⌈3.6⌉ = 4 is 5.
		{"zeros", []time.Duration{0, 5, 0, 0}, outofcore.MinBudget, llmmetrics.NearestRank, []uint64{50 * p, 90 * p}, []time.Duration{0, 5}, 1, 0},
		// The extremes of int64: rank ⌈2.5⌉ = 3 is 0; linear p12.5 is at
		// h = 0.5, halfway from −2^63 to −1: −2^63 + (2^63 − 1)/2 rounded
		// up is −2^62. The sum is −1, the mean −0.2 rounds to 0.
		{"int64 nearest", []time.Duration{math.MaxInt64, -1, 0, math.MinInt64, 1}, outofcore.MinBudget, llmmetrics.NearestRank, []uint64{0, 50 * p, 100 * p}, []time.Duration{math.MinInt64, 0, math.MaxInt64}, 0, 0},
		{"int64 linear", []time.Duration{math.MaxInt64, -1, 0, math.MinInt64, 1}, outofcore.MinBudget, llmmetrics.Linear, []uint64{12_500_000, 25 * p}, []time.Duration{-1 << 62, -1}, 0, 0},
		// 1…10000 in 4 KiB: ranks 5000 and 9900 after several passes.
		{"refined", seq(1, 10_000), outofcore.MinBudget, llmmetrics.NearestRank, []uint64{50 * p, 99 * p}, []time.Duration{5000, 9900}, 5001, 0},
	} {
		t.Run(c.name, func(t *testing.T) {
			d, st, err := describe(segments(c.xs), c.budget, c.m, c.units)
			if err != nil {
				t.Fatal(err)
			}
			for i, pt := range d.Points {
				if pt.Value != c.want[i] {
					t.Errorf("%s = %d, want %d", pt.P.Key(), pt.Value, c.want[i])
				}
			}
			if d.Mean != c.mean {
				t.Errorf("mean %d, want %d", d.Mean, c.mean)
			}
			if c.passes > 0 && st.Passes != c.passes {
				t.Errorf("%d passes, want %d", st.Passes, c.passes)
			}
			if c.name == "refined" && st.Passes < 3 {
				t.Errorf("%d passes in %d bytes: want refinement", st.Passes, c.budget)
			}
			same(t, d, c.xs, c.m, c.units)
		})
	}
}

// same fails unless d is what llmmetrics.Describe gives for xs.
func same(t interface {
	Helper()
	Fatalf(string, ...any)
}, d llmmetrics.Distribution, xs []time.Duration, m llmmetrics.Method, units []uint64) {
	t.Helper()
	ps := make([]llmmetrics.Percentile, len(units))
	for i, u := range units {
		ps[i] = percentile(u)
	}
	want, err := llmmetrics.Describe(xs, m, ps...)
	if errors.Is(err, llmmetrics.ErrNoSamples) && d.N == 0 {
		return
	}
	if err != nil {
		t.Fatalf("Describe: %v", err)
	}
	if d.N != want.N || d.Mean != want.Mean || d.Std != want.Std || d.Min != want.Min || d.Max != want.Max {
		t.Fatalf("N %d mean %d std %d min %d max %d, Describe: N %d mean %d std %d min %d max %d",
			d.N, d.Mean, d.Std, d.Min, d.Max, want.N, want.Mean, want.Std, want.Min, want.Max)
	}
	for i, pt := range want.Points {
		if d.Points[i].Value != pt.Value {
			t.Fatalf("%s = %d, Describe %d", pt.P.Key(), d.Points[i].Value, pt.Value)
		}
	}
}

// An empty source has no values and asks no ranks.
func TestQuantilesEmpty(t *testing.T) {
	mo, vals, st, err := outofcore.Select(segments(nil, []time.Duration{}), outofcore.MinBudget, func(int) []int {
		t.Fatal("ranks asked of an empty sample")
		return nil
	})
	if err != nil || mo.N != 0 || vals != nil || st.Passes != 1 {
		t.Errorf("got %+v %v %+v %v", mo, vals, st, err)
	}
}

// A budget too small, a source that changes between passes and one that
// fails are errors.
func TestSelectErrors(t *testing.T) {
	one := func(int) []int { return []int{0} }
	if _, _, _, err := outofcore.Select(segments(seq(1, 10)), outofcore.MinBudget-1, one); !errors.Is(err, outofcore.ErrBudget) {
		t.Errorf("small budget: %v", err)
	}
	many := func(n int) []int { return seq2ints(n) }
	if _, _, _, err := outofcore.Select(segments(seq(0, 99)), outofcore.MinBudget, many); !errors.Is(err, outofcore.ErrBudget) {
		t.Errorf("100 ranks in 4 KiB: %v", err)
	}
	calls := 0
	changing := func(yield func([]time.Duration) bool) error {
		calls++
		xs := seq(1_000_000, 1_001_000)
		if calls > 1 {
			xs[500] = 0 // a value leaves the bins of the wanted ranks
		}
		yield(xs)
		return nil
	}
	if _, _, _, err := outofcore.Select(changing, outofcore.MinBudget, func(int) []int { return []int{499} }); !errors.Is(err, outofcore.ErrChanged) {
		t.Errorf("changing source: %v", err)
	}
	short := func(yield func([]time.Duration) bool) error {
		calls++
		yield(seq(1_000_000, time.Duration(1_001_000-calls%2)))
		return nil
	}
	if _, _, _, err := outofcore.Select(short, outofcore.MinBudget, func(int) []int { return []int{0} }); !errors.Is(err, outofcore.ErrChanged) {
		t.Errorf("shrinking source: %v", err)
	}
	bad := errors.New("disk on fire")
	failing := func(yield func([]time.Duration) bool) error { yield(seq(1, 5)); return bad }
	if _, _, _, err := outofcore.Select(failing, outofcore.MinBudget, one); !errors.Is(err, bad) {
		t.Errorf("failing source: %v", err)
	}
}

// seq2ints returns 0, 1, …, n−1.
func seq2ints(n int) []int {
	ks := make([]int, n)
	for i := range ks {
		ks[i] = i
	}
	return ks
}

// Several samples read together, their segments interleaved and one of
// them empty, each get the figures Describe gives for it alone.
func TestSelectEach(t *testing.T) {
	a, b := seq(1, 5000), []time.Duration{3 * time.Second, 0, 0, time.Millisecond}
	src := func(yield func(int, []time.Duration) bool) error {
		for i := 0; i < len(a); i += 1000 {
			yield(0, a[i:i+1000])
			yield(2, nil)
			if i == 2000 {
				yield(1, b)
			}
		}
		return nil
	}
	units := []uint64{0, 50_000_000, 99_900_000, 100_000_000}
	ranks := func(_, n int) []int {
		var ks []int
		for _, u := range units {
			ks = append(ks, order.NearestRank(u, hundred, n))
		}
		return slices.Compact(ks)
	}
	mos, outs, st, err := outofcore.SelectEach(src, 3, outofcore.MinBudget*3, ranks)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d passes", st.Passes)
	for i, xs := range [][]time.Duration{a, b} {
		want, _ := llmmetrics.Describe(xs, llmmetrics.NearestRank, percentile(units[0]), percentile(units[1]), percentile(units[2]), percentile(units[3]))
		ks := ranks(0, len(xs))
		for j, pt := range want.Points {
			k := slices.Index(ks, order.NearestRank(units[j], hundred, len(xs)))
			if outs[i][k] != pt.Value {
				t.Errorf("sample %d %s: %d, want %d", i, pt.P.Key(), outs[i][k], pt.Value)
			}
		}
		if mos[i].N != want.N || mos[i].Min != want.Min || mos[i].Max != want.Max {
			t.Errorf("sample %d: moments %+v", i, mos[i])
		}
	}
	if mos[2].N != 0 || outs[2] != nil {
		t.Errorf("empty sample: %+v %v", mos[2], outs[2])
	}
}
