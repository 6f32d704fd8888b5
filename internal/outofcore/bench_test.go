package outofcore_test

import (
	"flag"
	"testing"

	"github.com/llmmetrics/llmmetrics"
)

// benchValues is the size of the benchmark's sample: small by default, so
// that CI's benchmark smoke runs stay short; the target of issue #32,
// 10⁹ pooled gaps in 512 MB, is
//
//	go test -run '^$' -bench Gaps -benchtime 1x ./internal/outofcore -values 1e9
var benchValues = flag.Float64("values", 1e6, "values in BenchmarkQuantilesGaps's sample")

// BenchmarkQuantilesGaps selects p50, p90, p95 and p99 of a sample of
// generated gaps (no file) in a budget of 512 MB, and reports the passes,
// the bytes held and the time per value.
func BenchmarkQuantilesGaps(b *testing.B) {
	n := int(*benchValues)
	units := []uint64{50_000_000, 90_000_000, 95_000_000, 99_000_000}
	for b.Loop() {
		d, st, err := describe(gaps(n), 512<<20, llmmetrics.NearestRank, units)
		if err != nil || d.N != n {
			b.Fatal(d.N, err)
		}
		b.ReportMetric(float64(st.Passes), "passes")
		b.ReportMetric(float64(st.Held), "bytes-held")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/value")
}
