package compare

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/llmmetrics/llmmetrics"
)

// Samples of 1 … 10 ms. Quantiles 1 − 2^(−k/5): k = 0 gives the minimum;
// k = 1, 0.1294…, rank ⌈1.29⌉ = 2; k = 5, 0.5, rank 5; k = 16, 0.8912…,
// rank ⌈8.91⌉ = 9; k = 17 would be 0.9036 ≥ 1 − 1/10, so the spectrum ends
// with the maximum at 1: 17 + 1 points.
func TestSpectrum(t *testing.T) {
	var xs []time.Duration
	for i := 10; i >= 1; i-- {
		xs = append(xs, time.Duration(i)*time.Millisecond)
	}
	sp, err := Spectrum(xs)
	require.NoError(t, err)
	require.Len(t, sp, 18)
	ms := time.Millisecond
	assert.Equal(t, SpectrumPoint{0, ms, 1}, sp[0])
	assert.Equal(t, 2*ms, sp[1].Value)
	assert.Equal(t, SpectrumPoint{0.5, 5 * ms, 5}, sp[5])
	assert.Equal(t, 9*ms, sp[16].Value)
	assert.Equal(t, SpectrumPoint{1, 10 * ms, 10}, sp[17])
	assert.Equal(t, 10*ms, xs[0], "xs is not modified")

	// Ties: the count is of every sample at or below the value.
	sp, _ = Spectrum([]time.Duration{5, 5, 5, 7})
	assert.Equal(t, SpectrumPoint{0, 5, 3}, sp[0])
	assert.Equal(t, SpectrumPoint{1, 7, 4}, sp[len(sp)-1])

	_, err = Spectrum(nil)
	assert.ErrorIs(t, err, llmmetrics.ErrNoSamples)

	var b strings.Builder
	require.NoError(t, WriteSpectrum(&b, xs))
	lines := strings.Split(b.String(), "\n")
	assert.Equal(t, "       Value     Percentile TotalCount 1/(1-Percentile)", lines[0])
	assert.Equal(t, "       5.000 0.500000000000          5           2.00", lines[7])
	assert.Equal(t, "      10.000 1.000000000000         10            inf", lines[19])
	assert.Contains(t, b.String(), "#[Max     =       10.000, Total count    =           10]")
}
