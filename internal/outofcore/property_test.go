package outofcore_test

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"pgregory.net/rapid"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/outofcore"
)

// For any sample, cut into any segments, any percentiles by either method
// and any budget (down to the smallest, which forces passes of
// refinement), the figures are those llmmetrics.Describe gives in memory,
// and the bytes held stay within the budget.
func TestQuantilesProperty(t *testing.T) {
	refined, big := 0, 0
	defer func() { t.Logf("%d samples of over 500 values, %d refined by a third pass", big, refined) }()
	rapid.Check(t, func(t *rapid.T) {
		xs := rapid.SliceOfN(value(), 0, 100).Draw(t, "xs")
		xs = append(xs, bulk(t)...)
		rand.New(rand.NewPCG(uint64(len(xs)), 1)).Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
		units := rapid.SliceOfNDistinct(rapid.Uint64Range(0, hundred), 1, 8, rapid.ID).Draw(t, "units")
		m := llmmetrics.Method(rapid.IntRange(0, 1).Draw(t, "method"))
		budget := outofcore.MinBudget<<rapid.IntRange(0, 8).Draw(t, "doublings") + rapid.IntRange(0, 4096).Draw(t, "more")
		var segs [][]time.Duration
		for rest := xs; len(rest) > 0; {
			k := rapid.IntRange(0, len(rest)).Draw(t, "cut")
			segs, rest = append(segs, rest[:k]), rest[k:]
		}
		d, st, err := describe(segments(segs...), budget, m, units)
		if err != nil {
			t.Fatal(err)
		}
		same(t, d, xs, m, units)
		if st.Passes > 2 {
			refined++
		}
		if len(xs) > 500 {
			big++
		}
		if st.Held > budget {
			t.Fatalf("held %d bytes of a budget of %d", st.Held, budget)
		}
	})
}

// value draws a latency: from a narrow band, so that many share a bin,
// from a wide one, or from anywhere within ±2^62. (Beyond, Describe's
// deviations about the mean, x − mean, can overflow int64 where the sums
// of Select's first pass do not: the two then differ in Std, for spans
// of more than 146 years.)
func value() *rapid.Generator[time.Duration] {
	return rapid.Custom(func(t *rapid.T) time.Duration {
		switch rapid.IntRange(0, 3).Draw(t, "kind") {
		case 0:
			return time.Duration(rapid.Int64Range(20_000_000, 20_000_100).Draw(t, "narrow"))
		case 1:
			return time.Duration(rapid.Int64Range(0, int64(time.Minute)).Draw(t, "wide"))
		case 2:
			return time.Duration(rapid.SampledFrom([]int64{0, 1, math.MaxInt64 / 2, math.MinInt64 / 2}).Draw(t, "edge"))
		}
		return time.Duration(rapid.Int64Range(math.MinInt64/2, math.MaxInt64/2).Draw(t, "any"))
	})
}

// bulk draws up to 20,000 values from a random generator of a drawn seed,
// in a band of drawn width (1 ns to 2^40 ns, log-uniform) above a drawn floor, so that
// the bins of the wanted ranks hold more than small budgets keep.
func bulk(t *rapid.T) []time.Duration {
	n := rapid.IntRange(0, 20_000).Draw(t, "n")
	rng := rand.New(rand.NewPCG(rapid.Uint64().Draw(t, "seed"), 2))
	floor := time.Duration(rapid.Int64Range(-1<<40, 1<<40).Draw(t, "floor"))
	width := rapid.Int64Range(1, 1<<rapid.IntRange(0, 40).Draw(t, "width bits")).Draw(t, "width")
	xs := make([]time.Duration, n)
	for i := range xs {
		xs[i] = floor + time.Duration(rng.Int64N(width))
	}
	return xs
}
