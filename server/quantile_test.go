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
