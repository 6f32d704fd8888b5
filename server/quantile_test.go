package server

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// promCase is one histogram_quantile evaluation over classic buckets from
// Prometheus' promql/promqltest/testdata/histograms.test: the cumulative
// bucket counts the test loads (per step; the evaluation time or rate
// multiplies them all by one factor), the quantile, and the value the test
// expects. want is NaN where PromQL returns NaN or ±Inf; err is then the
// error this package returns instead.
type promCase struct {
	name    string
	bounds  []float64
	buckets []float64 // cumulative, +Inf last
	q       float64
	want    float64
	err     error
}

var (
	posBounds  = []float64{0.1, 0.2, 1}
	posBuckets = []float64{5, 7, 11, 12}
	negBounds  = []float64{-0.2, -0.1, 0.3}
	negBuckets = []float64{1, 2, 2, 3}
	h2Bounds   = []float64{0, 2, 4, 6}
	h2Buckets  = []float64{0, 1, 2, 3, 3}
	h3pBounds  = []float64{0, 0.1, 0.2, 1}
	h3pBuckets = []float64{0, 5, 7, 11, 11}
	h3nBounds  = []float64{-0.25, -0.2, -0.1, 0.3}
	h3nBuckets = []float64{0, 1, 2, 2, 2}
	rdBounds   = []float64{0.1, 0.2}
	nan        = math.NaN()
)

var promCases = []promCase{
	// testhistogram3, quantiles 0 to 1
	{"h3 positive q0", h3pBounds, h3pBuckets, 0, 0, nil},
	{"h3 negative q0", h3nBounds, h3nBuckets, 0, -0.25, nil},
	{"h3 positive q.25", h3pBounds, h3pBuckets, 0.25, 0.055, nil},
	{"h3 negative q.25", h3nBounds, h3nBuckets, 0.25, -0.225, nil},
	{"h3 positive q.5", h3pBounds, h3pBuckets, 0.5, 0.125, nil},
	{"h3 negative q.5", h3nBounds, h3nBuckets, 0.5, -0.2, nil},
	{"h3 positive q.75", h3pBounds, h3pBuckets, 0.75, 0.45, nil},
	{"h3 negative q.75", h3nBounds, h3nBuckets, 0.75, -0.15, nil},
	{"h3 positive q1", h3pBounds, h3pBuckets, 1, 1, nil},
	{"h3 negative q1", h3nBounds, h3nBuckets, 1, -0.1, nil},
	// testhistogram: out of range, lowest and highest buckets, and inside
	{"q below 0", posBounds, posBuckets, -0.1, nan, ErrQuantileRange},
	{"q above 1", negBounds, negBuckets, 1.01, nan, ErrQuantileRange},
	{"q NaN", posBounds, posBuckets, nan, nan, ErrQuantileRange},
	{"positive q0", posBounds, posBuckets, 0, 0, nil},
	{"negative q0", negBounds, negBuckets, 0, -0.2, nil},
	{"positive q1", posBounds, posBuckets, 1, 1, nil},
	{"negative q1", negBounds, negBuckets, 1, 0.3, nil},
	{"positive q.2", posBounds, posBuckets, 0.2, 0.048, nil},
	{"negative q.2", negBounds, negBuckets, 0.2, -0.2, nil},
	{"positive q.5", posBounds, posBuckets, 0.5, 0.15, nil},
	{"negative q.5", negBounds, negBuckets, 0.5, -0.15, nil},
	{"positive q.8", posBounds, posBuckets, 0.8, 0.72, nil},
	{"negative q.8", negBounds, negBuckets, 0.8, 0.3, nil},
	// testhistogram2: results in the middle of a bucket
	{"h2 q1/6", h2Bounds, h2Buckets, 1. / 6., 1, nil},
	{"h2 q.5", h2Bounds, h2Buckets, 0.5, 3, nil},
	{"h2 q5/6", h2Bounds, h2Buckets, 5. / 6., 5, nil},
	// request_duration_seconds summed by le, by instance, by job, and per series
	{"sum q.3", rdBounds, []float64{10, 19, 25}, 0.3, 0.075, nil},
	{"sum q.5", rdBounds, []float64{10, 19, 25}, 0.5, 0.1277777777777778, nil},
	{"ins1 q.3", rdBounds, []float64{4, 7, 10}, 0.3, 0.075, nil},
	{"ins2 q.3", rdBounds, []float64{6, 12, 15}, 0.3, 0.075, nil},
	{"ins1 q.5", rdBounds, []float64{4, 7, 10}, 0.5, 0.1333333333, nil},
	{"ins2 q.5", rdBounds, []float64{6, 12, 15}, 0.5, 0.125, nil},
	{"job1 q.3", rdBounds, []float64{3, 8, 10}, 0.3, 0.1, nil},
	{"job2 q.3", rdBounds, []float64{7, 11, 15}, 0.3, 0.0642857142857143, nil},
	{"job1 q.5", rdBounds, []float64{3, 8, 10}, 0.5, 0.14, nil},
	{"job2 q.5", rdBounds, []float64{7, 11, 15}, 0.5, 0.1125, nil},
	{"job1 ins1 q.3", rdBounds, []float64{1, 3, 4}, 0.3, 0.11, nil},
	{"job1 ins2 q.3", rdBounds, []float64{2, 5, 6}, 0.3, 0.09, nil},
	{"job2 ins1 q.3", rdBounds, []float64{3, 4, 6}, 0.3, 0.06, nil},
	{"job2 ins2 q.3", rdBounds, []float64{4, 7, 9}, 0.3, 0.0675, nil},
	{"job1 ins1 q.5", rdBounds, []float64{1, 3, 4}, 0.5, 0.15, nil},
	{"job1 ins2 q.5", rdBounds, []float64{2, 5, 6}, 0.5, 0.13333333333333333, nil},
	{"job2 ins1 q.5", rdBounds, []float64{3, 4, 6}, 0.5, 0.1, nil},
	{"job2 ins2 q.5", rdBounds, []float64{4, 7, 9}, 0.5, 0.11666666666666667, nil},
	// non-monotonic cumulative counts: PromQL's envelope
	{"nonmonotonic q.01", []float64{0.1, 1, 10, 100, 1000}, []float64{2, 1, 5, 4, 9, 8}, 0.01, 0.0045, nil},
	{"nonmonotonic q.5", []float64{0.1, 1, 10, 100, 1000}, []float64{2, 1, 5, 4, 9, 8}, 0.5, 8.5, nil},
	{"nonmonotonic q.99", []float64{0.1, 1, 10, 100, 1000}, []float64{2, 1, 5, 4, 9, 8}, 0.99, 979.75, nil},
	// one bound written three ways (0.2, 2e-1, 2.0e-1) merges into one bucket
	{"mixed q.5", []float64{0.1, 0.2, 0.2, 0.2}, []float64{1, 1, 1, 1, 4}, 0.5, 0.15, nil},
	{"mixed q.75", []float64{0.1, 0.2, 0.2, 0.2}, []float64{1, 1, 1, 1, 4}, 0.75, 0.2, nil},
	{"mixed q1", []float64{0.1, 0.2, 0.2, 0.2}, []float64{1, 1, 1, 1, 4}, 1, 0.2, nil},
	{"mixed ins2", nil, []float64{0}, 0.5, nan, ErrNoFiniteBuckets},
	// no observations
	{"empty", []float64{0.1, 0.2}, []float64{0, 0, 0}, 0.2, nan, ErrNoSamples},
	{"const", []float64{0, 1, 2}, []float64{0, 0, 0, 0}, 1, nan, ErrNoSamples},
	// the case where this package returns an error for PromQL's 0/0
	{"q0 empty lowest", []float64{1, 2}, []float64{0, 3, 3}, 0, nan, ErrQuantileUndefined},
}

// TestPromQLQuantile checks Histogram.Quantile against the expectations of
// Prometheus' own test file. Each case is evaluated as the test evaluates
// it: on the counts at the evaluation time (every count times 10, at 50
// minutes) and on per-second rates (every count over 300 s), which give
// the same quantile; the results must equal the test's values to the
// digits it writes them with, and be equal to each other.
func TestPromQLQuantile(t *testing.T) {
	for _, c := range promCases {
		t.Run(c.name, func(t *testing.T) {
			for _, scale := range []float64{10, 1.0 / 300} {
				buckets := make([]float64, len(c.buckets))
				for j, b := range c.buckets {
					buckets[j] = b * scale
				}
				h := Histogram{Name: "h", Bounds: c.bounds, Buckets: buckets, Count: buckets[len(buckets)-1]}
				v, lowerBound, err := h.Quantile(c.q)
				if c.err != nil {
					assert.ErrorIs(t, err, c.err)
					return
				}
				require.NoError(t, err)
				// The rank falls in the +Inf bucket in these four cases
				// only (ranks 12 > 11, 3 > 2, 2.4 > 2 and 4 > 3 in the
				// highest finite bucket): that bound is then a lower bound.
				capped := c.name == "positive q1" || c.name == "negative q1" || c.name == "negative q.8" || c.name == "mixed q1"
				assert.Equal(t, capped, lowerBound)
				assert.InEpsilon(t, c.want+1, v+1, 1e-10, "scale %v", scale)
			}
		})
	}
}

func TestMonotonic(t *testing.T) {
	assert.True(t, Histogram{Bounds: []float64{1, 2}, Buckets: []float64{1, 1, 2}}.Monotonic())
	assert.False(t, Histogram{Bounds: []float64{1, 2}, Buckets: []float64{2, 1, 2}}.Monotonic())
	// float noise below a relative 1e-12 is not a decrease
	assert.True(t, Histogram{Bounds: []float64{1, 2}, Buckets: []float64{1, 1 - 1e-15, 2}}.Monotonic())
	// the caller's slices are not modified
	b := []float64{1, 3, 2, 4}
	Histogram{Bounds: []float64{2, 1, 3}, Buckets: b}.Quantile(0.5)
	assert.Equal(t, []float64{1, 3, 2, 4}, b)
}

// The precision correction and the envelope as PromQL's
// ensureMonotonicAndIgnoreSmallDeltas does them, on vectors derived by
// hand from its rules: a count within float noise of the last count
// accepted (|a − b|/(|a| + |b|) < 1e-12) is set to it, in either
// direction; a lower count is raised to it; neither moves the last count
// accepted; the flag is raised by the second rule only.
func TestPromQLPrecisionCorrection(t *testing.T) {
	for _, c := range []struct {
		name      string
		buckets   []float64 // at le=1, 2, 3 and +Inf
		q         float64
		want      float64
		monotonic bool
	}{
		// Very large counts: 1e13 and 1e13 + 15 differ by 15/(2e13 + 15)
		// = 7.5e-13 of their sum, noise for PromQL (15/1e13 = 1.5e-12 of
		// one of them is not). Every count becomes 1e13; q = 1 has rank
		// 1e13, reached in the lowest bucket: 0 + (1 − 0)·(1e13/1e13) = 1.
		{"large counts", []float64{1e13, 1e13 + 15, 1e13 + 15, 1e13 + 15}, 1, 1, true},
		// A decrease, then noise around the last count accepted: le=2's 5
		// is raised to 10 (flagged); le=3's 10.000000000001 differs from 10
		// by 1e-12/20.000000000001 < 1e-12, so it is set to 10, as is
		// +Inf. N = 10; q = 1 has rank 10, reached at le=1: value 1.
		// Comparing le=3 with le=2's dropped 5 instead would keep
		// 10.000000000001 and put rank N in (2, 3]: 3.
		{"noise after a decrease", []float64{10, 5, 10.000000000001, 10.000000000001}, 1, 1, false},
		// A decrease within noise is corrected silently: le=2's 1e13 is
		// 15/(2e13 + 15) below le=1's 1e13 + 15, so it is set to it and
		// nothing is flagged. N = 1e13 + 15; q = 1 is reached at le=1: 1.
		{"decrease within noise", []float64{1e13 + 15, 1e13, 1e13 + 15, 1e13 + 15}, 1, 1, true},
		// Counts 0.5e12 and 0.5e12 + 1 differ by 1/(1e12 + 1) < 1e-12 of
		// their sum: noise. N = 0.5e12; q = 0.5: rank 0.25e12
		// in the lowest bucket, 0 + 1·(0.25e12/0.5e12) = 0.5.
		{"half of large counts", []float64{0.5e12, 0.5e12 + 1, 0.5e12 + 1, 0.5e12 + 1}, 0.5, 0.5, true},
		// Counts 1 and 2: no noise. A plain decrease at le=2 (3 → 1) is
		// raised to 3 and flagged; N = 4; q = 0.5: rank 2 in (0, 1]:
		// 0 + 1·(2/3).
		{"plain decrease", []float64{3, 1, 3, 4}, 0.5, 2.0 / 3, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			h := Histogram{Name: "h", Bounds: []float64{1, 2, 3}, Buckets: c.buckets, Count: c.buckets[3]}
			v, _, err := h.Quantile(c.q)
			require.NoError(t, err)
			assert.InDelta(t, c.want, v, 1e-12)
			assert.Equal(t, c.monotonic, h.Monotonic())
		})
	}
	// PromQL's tolerance is strict and relative to the sum; 0 compares
	// only with subnormal noise.
	assert.True(t, almostEqual(1e13, 1e13+15, 1e-12))
	assert.True(t, almostEqual(1e12, 1e12+2, 1e-12))  // 2/(2e12 + 2) < 1e-12
	assert.False(t, almostEqual(1e12, 1e12+4, 1e-12)) // 4/(2e12 + 4) ≈ 2e-12
	assert.False(t, almostEqual(0, 1e-300, 1e-12))
	assert.True(t, almostEqual(0, 0, 1e-12))
}
