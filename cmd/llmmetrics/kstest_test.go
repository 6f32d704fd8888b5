package main

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The Kolmogorov distribution's published quantiles (Smirnov's table, as
// reprinted in Marsaglia, Tsang and Wang 2003): P(K > 1.2238) = 0.10,
// P(K > 1.3581) = 0.05, P(K > 1.6276) = 0.01, P(K > 1.9495) = 0.001; the
// median 0.8276; P(K ≤ 0.5) = 0.0361. Both sides of the switch at 1.18
// agree there.
func TestKolmogorovQ(t *testing.T) {
	for _, c := range []struct{ lambda, q float64 }{
		{1.2238, 0.10}, {1.3581, 0.05}, {1.6276, 0.01}, {1.9495, 0.001}, {0.8276, 0.5}, {0.5, 1 - 0.0361}, {0, 1}, {10, 0},
	} {
		assert.InDelta(t, c.q, kolmogorovQ(c.lambda), 2e-4, "λ %v", c.lambda)
	}
	assert.InDelta(t, kolmogorovQ(1.18-1e-9), kolmogorovQ(1.18), 1e-9)
}

// Two samples that do not overlap are as far apart as can be: D 1, and
// with n = m = 4, n_e = 2, λ = (√2 + 0.12 + 0.11/√2)·1 = 1.6120, so
// p = 2(e^(−2·1.6120²) − e^(−8·1.6120²) + …) = 2(0.005532 − 0.0000000009)
// = 0.01106. Two equal samples: D 0, p 1. x = {1, 2, 3, 4} and
// y = {1, 2, 3, 9} differ only above 4: D 0.25, λ = 1.6120/4 = 0.4030,
// p = 1 − P(K ≤ 0.403) = 1 − 0.00312 = 0.99688 (from the theta series'
// first term, √(2π)/0.403·e^(−π²/(8·0.1624)) = 6.220·0.000502).
func TestTwoSampleKS(t *testing.T) {
	got := twoSampleKS([]int{1, 2, 3, 4}, []int{5, 6, 7, 8})
	assert.Equal(t, 1.0, got.D)
	assert.InDelta(t, 0.01106, got.P, 1e-4)
	got = twoSampleKS([]int{3, 1, 2}, []int{1, 2, 3})
	assert.Equal(t, ksTest{D: 0, P: 1}, got)
	got = twoSampleKS([]int{1, 2, 3, 4}, []int{1, 2, 3, 9})
	assert.InDelta(t, 0.25, got.D, 1e-12)
	assert.InDelta(t, 0.99688, got.P, 2e-5)
}
