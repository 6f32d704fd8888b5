package main

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/stat"
)

// A ksTest is the two-sample Kolmogorov–Smirnov test of two samples of
// lengths: D, the largest distance between their empirical CDFs (gonum's
// stat.KolmogorovSmirnov), and P, the chance of a D as large between two
// samples of one distribution, from the asymptotic Kolmogorov
// distribution (kolmogorovQ).
type ksTest struct {
	D float64 `json:"d"`
	P float64 `json:"p"`
}

// twoSampleKS tests the samples x and y, neither empty. It does not
// modify them.
func twoSampleKS(x, y []int) ksTest {
	fx, fy := sortedFloats(x), sortedFloats(y)
	d := stat.KolmogorovSmirnov(fx, nil, fy, nil)
	n, m := float64(len(x)), float64(len(y))
	ne := math.Sqrt(n * m / (n + m))
	// Stephens' (1970) correction for small samples, as Numerical
	// Recipes (3rd ed., §14.3.3) gives it.
	return ksTest{D: d, P: kolmogorovQ((ne + 0.12 + 0.11/ne) * d)}
}

func sortedFloats(xs []int) []float64 {
	out := make([]float64, len(xs))
	for i, x := range xs {
		out[i] = float64(x)
	}
	slices.Sort(out)
	return out
}

// kolmogorovQ is the Kolmogorov distribution's survival function,
// Q(λ) = P(K > λ) = 2 Σ_{j≥1} (−1)^{j−1} exp(−2j²λ²), the asymptotic
// chance that √n·D exceeds λ (Kolmogorov 1933; Numerical Recipes, 3rd
// ed., §6.14). That series converges slowly for small λ, where the
// theta-function form P(K ≤ λ) = (√(2π)/λ) Σ_{j≥1} exp(−(2j−1)²π²/(8λ²))
// is used instead (Marsaglia, Tsang and Wang 2003 give both).
func kolmogorovQ(lambda float64) float64 {
	switch {
	case lambda <= 0:
		return 1
	case lambda < 1.18:
		sum := 0.0
		for j := 1; j <= 20; j++ {
			k := float64(2*j - 1)
			sum += math.Exp(-k * k * math.Pi * math.Pi / (8 * lambda * lambda))
		}
		return 1 - math.Sqrt(2*math.Pi)/lambda*sum
	}
	sum, sign := 0.0, 1.0
	for j := 1; j <= 100; j++ {
		term := math.Exp(-2 * float64(j*j) * lambda * lambda)
		sum += sign * term
		if term < 1e-16 {
			break
		}
		sign = -sign
	}
	return min(1, max(0, 2*sum))
}
