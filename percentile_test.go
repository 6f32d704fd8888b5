package llmmetrics

import (
	"errors"
	"fmt"
	"math/big"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pgregory.net/rapid"
)

func ms(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

func durations(vs ...float64) []time.Duration {
	out := make([]time.Duration, len(vs))
	for i, v := range vs {
		out[i] = ms(v)
	}
	return out
}

func pcts(ps ...float64) []Percentile {
	out := make([]Percentile, len(ps))
	for i, p := range ps {
		out[i] = MustPercentile(p)
	}
	return out
}

// The vectors of shared/reference/reliability.md §A5, computed there in
// exact rational arithmetic from the Hyndman–Fan formulas and cross-checked
// against R, numpy and gonum.
func TestPercentileVectors(t *testing.T) {
	s1 := durations(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)
	s2 := durations(15, 20, 35, 40, 50)
	ps := pcts(25, 50, 90, 95, 99)
	cases := []struct {
		name   string
		xs     []time.Duration
		m      Method
		expect []float64
	}{
		{"S1 nearest-rank", s1, NearestRank, []float64{3, 5, 9, 10, 10}},
		{"S1 linear (type 7)", s1, Linear, []float64{3.25, 5.5, 9.1, 9.55, 9.91}},
		{"S2 nearest-rank", s2, NearestRank, []float64{20, 35, 50, 50, 50}},
		{"S2 linear (type 7)", s2, Linear, []float64{20, 35, 46, 48, 49.6}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := percentilesOf(c.xs, c.m, ps...)
			require.NoError(t, err)
			// In milliseconds every expected value is a whole number of
			// nanoseconds, so the comparison is exact.
			assert.Equal(t, durations(c.expect...), got)
		})
	}
}

// Published nearest-rank values (Wikipedia "Percentile", as listed in
// reliability.md §A5).
func TestNearestRankPublished(t *testing.T) {
	check := func(xs []float64, p float64, want float64) {
		t.Helper()
		got, err := percentilesOf(durations(xs...), NearestRank, MustPercentile(p))
		require.NoError(t, err)
		assert.Equal(t, ms(want), got[0], "p%v of %v", p, xs)
	}
	s := []float64{15, 20, 35, 40, 50}
	check(s, 5, 15)
	check(s, 30, 20)
	check(s, 40, 20)
	check(s, 50, 35)
	check(s, 100, 50)
	a := []float64{3, 6, 7, 8, 8, 10, 13, 15, 16, 20}
	check(a, 25, 7)
	check(a, 50, 8)
	check(a, 75, 15)
	check([]float64{3, 6, 7, 8, 8, 9, 10, 13, 15, 16, 20}, 50, 9)
	// Type 7, the 40th percentile of {15,20,35,40,50} is 29 (Wikipedia/NIST, C = 1).
	got, err := percentilesOf(durations(s...), Linear, MustPercentile(40))
	require.NoError(t, err)
	assert.Equal(t, ms(29), got[0])
}

// Rank arithmetic is exact: 0.07·100 is 7.000000000000001 in float64, so a
// float ceil gives rank 8. The exact rank is 7. Likewise (25, 28%) is rank 7,
// (50, 58%) rank 29, (90, 70%) rank 63 and (3000, 33.3%) rank 999.
func TestNearestRankExact(t *testing.T) {
	for _, c := range []struct {
		n    int
		p    float64
		rank int
	}{{100, 7, 7}, {25, 28, 7}, {50, 58, 29}, {90, 70, 63}, {3000, 33.3, 999}, {1000, 99.9, 999}, {10, 0, 1}} {
		xs := make([]time.Duration, c.n)
		for i := range xs {
			xs[i] = time.Duration(c.n - i) // reversed 1..n, so value = rank
		}
		got, err := percentilesOf(xs, NearestRank, MustPercentile(c.p))
		require.NoError(t, err)
		assert.Equal(t, time.Duration(c.rank), got[0], "n=%d p=%v", c.n, c.p)
	}
}

// Seed 002: "Sort 1,000 TTFT values … the p50 is the 500th value, and the
// p99 is the 990th."
func TestSeedRanksOfThousand(t *testing.T) {
	xs := make([]time.Duration, 1000)
	for i := range xs {
		xs[(i*7919)%1000] = ms(float64(i + 1)) // a permutation of 1..1000 ms
	}
	got, err := percentilesOf(xs, NearestRank, pcts(50, 99)...)
	require.NoError(t, err)
	assert.Equal(t, durations(500, 990), got)
	// Type 7 for comparison: h = 999·0.5 = 499.5 → 500.5; h = 999·0.99 = 989.01 → 990.01.
	got, err = percentilesOf(xs, Linear, pcts(50, 99)...)
	require.NoError(t, err)
	assert.Equal(t, durations(500.5, 990.01), got)
}

func TestPercentileEdges(t *testing.T) {
	_, err := percentilesOf(nil, NearestRank, MustPercentile(50))
	assert.ErrorIs(t, err, ErrNoSamples)
	_, err = Describe([]time.Duration{}, Linear, MustPercentile(50))
	assert.ErrorIs(t, err, ErrNoSamples)
	_, err = percentilesOf(durations(1), Method(9), MustPercentile(50))
	assert.ErrorIs(t, err, ErrMethod)

	one := durations(7)
	for _, m := range []Method{NearestRank, Linear} {
		got, err := percentilesOf(one, m, pcts(0, 50, 100)...)
		require.NoError(t, err)
		assert.Equal(t, durations(7, 7, 7), got, "one sample, %v", m)
	}
	two := durations(10, 20)
	got, err := percentilesOf(two, NearestRank, pcts(0, 50, 50.000001, 100)...)
	require.NoError(t, err)
	assert.Equal(t, durations(10, 10, 20, 20), got) // ⌈0.5·2⌉ = 1; ⌈1.00000002⌉ = 2
	got, err = percentilesOf(two, Linear, pcts(0, 25, 50, 100)...)
	require.NoError(t, err)
	assert.Equal(t, durations(10, 12.5, 15, 20), got)
	ties := durations(5, 5, 5, 5)
	got, err = percentilesOf(ties, Linear, pcts(0, 33.3, 99.9)...)
	require.NoError(t, err)
	assert.Equal(t, durations(5, 5, 5), got)
}

func TestPercentileUnmarshalText(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string
	}{{"50", "p50"}, {"99.9", "p99.9"}, {"p99.99", "p99.99"}, {"0", "p0"}, {"100", "p100"}, {"100.000000", "p100"}, {"7.250", "p7.25"}} {
		p, err := parsePercentile(c.in)
		require.NoError(t, err, c.in)
		assert.Equal(t, c.want, p.Key())
	}
	for _, bad := range []string{"", "-1", "100.5", "101", "1e2", "NaN", "50.", ".5", "5,0", "1.0000001", " 50", "0x10"} {
		_, err := parsePercentile(bad)
		assert.ErrorIs(t, err, ErrPercentile, "%q", bad)
	}
	for _, bad := range []float64{-0.5, 100.01, nan(), inf()} {
		_, err := NewPercentile(bad)
		assert.ErrorIs(t, err, ErrPercentile, "%v", bad)
	}
	ps, err := ParsePercentiles("50, 90,95,99.9")
	require.NoError(t, err)
	assert.Equal(t, []float64{50, 90, 95, 99.9}, []float64{ps[0].Float(), ps[1].Float(), ps[2].Float(), ps[3].Float()})
}

func TestPercentilesDoNotMutate(t *testing.T) {
	xs := durations(9, 1, 8, 2, 7, 3)
	orig := slices.Clone(xs)
	_, err := percentilesOf(xs, Linear, pcts(10, 50, 90)...)
	require.NoError(t, err)
	_, err = Describe(xs, NearestRank, pcts(50)...)
	require.NoError(t, err)
	assert.Equal(t, orig, xs)
}

// oracle computes a percentile from a fully sorted copy with big.Rat
// arithmetic, straight from the definitions: nearest rank ⌈p·N/100⌉, and
// type 7 at h = (N−1)·p/100, rounded half up to the nanosecond.
func oracle(xs []time.Duration, m Method, p Percentile) time.Duration {
	s := slices.Clone(xs)
	slices.Sort(s)
	n := int64(len(s))
	pr := new(big.Rat).SetFrac64(p.units, hundredPercent)
	if m == NearestRank {
		r := new(big.Rat).Mul(pr, big.NewRat(n, 1))
		k := new(big.Int).Quo(r.Num(), r.Denom())
		if new(big.Rat).SetInt(k).Cmp(r) < 0 {
			k.Add(k, big.NewInt(1))
		}
		return s[max(k.Int64(), 1)-1]
	}
	h := new(big.Rat).Mul(pr, big.NewRat(n-1, 1))
	j := new(big.Int).Quo(h.Num(), h.Denom()).Int64()
	if j >= n-1 {
		return s[n-1]
	}
	frac := new(big.Rat).Sub(h, big.NewRat(j, 1))
	v := new(big.Rat).Mul(frac, big.NewRat(int64(s[j+1]-s[j]), 1))
	v.Add(v, big.NewRat(int64(s[j]), 1))
	v.Add(v, big.NewRat(1, 2)) // round half up: floor(v + ½)
	q := new(big.Int).Quo(v.Num(), v.Denom())
	if v.Sign() < 0 && new(big.Rat).SetInt(q).Cmp(v) != 0 {
		q.Sub(q, big.NewInt(1))
	}
	return time.Duration(q.Int64())
}

// Properties: every result equals the oracle; results are monotone in p and
// lie between min and max; nearest-rank returns a member of the sample; the
// input is not modified; shuffling does not change anything; duplicating
// every value leaves nearest-rank unchanged.
func TestPercentileProperties(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		// Small value ranges give many ties; large ones exercise the
		// quickselect path (more than 32 values).
		hi := rapid.SampledFrom([]int64{3, 1000, 1 << 40}).Draw(t, "hi")
		// rapid keeps slices short unless told their length; the length is
		// drawn first so that the quickselect path (over 32 values) runs.
		n := rapid.IntRange(1, 600).Draw(t, "n")
		xs := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) time.Duration {
			return time.Duration(rapid.Int64Range(-hi, hi).Draw(t, "x"))
		}), n, n).Draw(t, "xs")
		ps := rapid.SliceOfN(rapid.Custom(func(t *rapid.T) Percentile {
			return Percentile{rapid.Int64Range(0, hundredPercent).Draw(t, "p")}
		}), 1, 8).Draw(t, "ps")
		m := rapid.SampledFrom([]Method{NearestRank, Linear}).Draw(t, "m")
		orig := slices.Clone(xs)

		got, err := percentilesOf(xs, m, ps...)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(orig, xs) {
			t.Fatal("input modified")
		}
		lo, hiv := slices.Min(xs), slices.Max(xs)
		for i, p := range ps {
			if want := oracle(xs, m, p); got[i] != want {
				t.Fatalf("%v %v: got %v, oracle %v", m, p, got[i], want)
			}
			if got[i] < lo || got[i] > hiv {
				t.Fatalf("%v outside [%v, %v]", got[i], lo, hiv)
			}
			if m == NearestRank && !slices.Contains(xs, got[i]) {
				t.Fatalf("nearest-rank %v not in sample", got[i])
			}
			for j, q := range ps {
				if p.units < q.units && got[i] > got[j] {
					t.Fatalf("not monotone: %v→%v, %v→%v", p, got[i], q, got[j])
				}
			}
		}
		shuffled := slices.Clone(xs)
		rapid.Permutation(shuffled).Draw(t, "perm")
		again, _ := percentilesOf(shuffled, m, ps...)
		if !slices.Equal(got, again) {
			t.Fatal("not permutation-invariant")
		}
		if m == NearestRank {
			doubled, _ := percentilesOf(append(slices.Clone(xs), xs...), m, ps...)
			if !slices.Equal(got, doubled) {
				t.Fatal("nearest-rank changed when the sample was duplicated")
			}
		}
	})
}

func TestMethodNames(t *testing.T) {
	for _, m := range []Method{NearestRank, Linear} {
		var back Method
		require.NoError(t, back.UnmarshalText([]byte(m.String())))
		assert.Equal(t, m, back)
	}
	back := Linear
	err := back.UnmarshalText([]byte("type7"))
	assert.Equal(t, Linear, back, "a bad name leaves the method as it was")
	assert.True(t, errors.Is(err, ErrMethod))
}

// Large samples against a full sort, with many ties and with distinct
// values, and in adversarial orders (sorted, reversed, organ-pipe).
func TestSelectLarge(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	ps := pcts(0, 1, 25, 50, 90, 95, 99, 99.9, 100)
	for _, n := range []int{33, 1000, 100_000} {
		for _, shape := range []string{"random", "ties", "sorted", "reversed", "organ"} {
			xs := make([]time.Duration, n)
			for i := range xs {
				switch shape {
				case "random":
					xs[i] = time.Duration(rng.Int64N(1 << 40))
				case "ties":
					xs[i] = time.Duration(rng.IntN(4))
				case "sorted":
					xs[i] = time.Duration(i)
				case "reversed":
					xs[i] = time.Duration(n - i)
				case "organ":
					xs[i] = time.Duration(min(i, n-i))
				}
			}
			sorted := slices.Clone(xs)
			slices.Sort(sorted)
			for _, m := range []Method{NearestRank, Linear} {
				got, err := percentilesOf(xs, m, ps...)
				require.NoError(t, err)
				for i, p := range ps {
					require.Equal(t, fromSorted(sorted, m, p), got[i], "n=%d %s %v %v", n, shape, m, p)
				}
			}
		}
	}
}

// fromSorted reads a percentile off a sorted sample with the package's own
// position rule; it checks the selection, not the rule (the oracle checks
// the rule).
func fromSorted(s []time.Duration, m Method, p Percentile) time.Duration {
	lo, num := m.position(p, len(s))
	if num == 0 {
		return s[lo]
	}
	return interpolate(s[lo], s[lo+1], num)
}

// percentilesOf returns the values of xs at each percentile, by method m,
// as Describe's points give them.
func percentilesOf(xs []time.Duration, m Method, ps ...Percentile) ([]time.Duration, error) {
	d, err := Describe(xs, m, ps...)
	if err != nil {
		return nil, err
	}
	vals := make([]time.Duration, len(d.Points))
	for i, pt := range d.Points {
		vals[i] = pt.Value
	}
	return vals, nil
}

// BenchmarkPercentiles measures the selection alone on one flat sample.
func BenchmarkPercentiles(b *testing.B) {
	rng := rand.New(rand.NewPCG(3, 3))
	for _, n := range []int{1_000_000, 10_000_000} {
		xs := make([]time.Duration, n)
		for i := range xs {
			xs[i] = 15*time.Millisecond + time.Duration(rng.Int64N(int64(20*time.Millisecond)))
		}
		b.Run(fmt.Sprint("n=", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				percentiles(flat(xs), slices.Min(xs), slices.Max(xs), NearestRank, DefaultPercentiles)
			}
		})
	}
}
