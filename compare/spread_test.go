package compare

import (
	"math"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestMedianMAD(t *testing.T) {
	// reliability.md §A5: S1 = 1..10 has median 5.5, MAD 2.5, scaled 3.7065;
	// S2 = {15,20,35,40,50} has median 35, MAD 15, scaled 22.239.
	s1, err := MedianMAD([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10})
	require.NoError(t, err)
	assert.Equal(t, 5.5, s1.Median)
	assert.Equal(t, 2.5, s1.MAD)
	assert.InDelta(t, 3.706506, s1.ScaledMAD, 1e-6)
	s2, err := MedianMAD([]time.Duration{15 * time.Millisecond, 20 * time.Millisecond, 35 * time.Millisecond, 40 * time.Millisecond, 50 * time.Millisecond})
	require.NoError(t, err)
	assert.Equal(t, 35*time.Millisecond, s2.Median)
	assert.Equal(t, 15*time.Millisecond, s2.MAD)
	assert.Equal(t, time.Duration(22_239_033), s2.ScaledMAD) // 15 ms × 1.4826022185… = 22.2390333 ms
	// R's mad(c(1:8,100), constant=1) = 2; Prometheus mad_over_time of
	// [4,6,2,1,999,1,2] = 1.
	s3, _ := MedianMAD([]float64{1, 2, 3, 4, 5, 6, 7, 8, 100})
	assert.Equal(t, 2.0, s3.MAD)
	s4, _ := MedianMAD([]float64{4, 6, 2, 1, 999, 1, 2})
	assert.Equal(t, 1.0, s4.MAD)

	_, err = MedianMAD([]float64{})
	assert.ErrorIs(t, err, llmmetrics.ErrNoSamples)
	_, err = MedianMAD([]float64{1, math.NaN()})
	assert.ErrorIs(t, err, llmmetrics.ErrNonFinite)
	one, err := MedianMAD([]float64{3})
	require.NoError(t, err)
	assert.Equal(t, Spread[float64]{N: 1, Median: 3}, one)
}
