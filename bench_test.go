package llmmetrics_test

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/internal/synth"
)

// BenchmarkSummarize summarizes a run with every metric, the default
// percentiles and an SLO. The target size, 1,000,000 records of 128
// chunks, runs unless -short is given:
//
//	go test -run XXX -bench Summarize -benchmem
//
// bench/compare.sh runs it beside numpy.percentile on the same pooled
// arrays.
func BenchmarkSummarize(b *testing.B) {
	sizes := []int{1_000, 100_000}
	if !testing.Short() {
		sizes = append(sizes, 1_000_000)
	}
	for _, n := range sizes {
		recs := synth.Run(n, 128)
		slo := llmmetrics.SLO{TTFT: 200 * time.Millisecond, TPOT: 30 * time.Millisecond}
		b.Run(fmt.Sprintf("records=%d/chunks=128", n), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := llmmetrics.Summarize(recs, llmmetrics.Options{SLO: &slo}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
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
				if _, err := llmmetrics.Percentiles(xs, llmmetrics.NearestRank, llmmetrics.DefaultPercentiles...); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
