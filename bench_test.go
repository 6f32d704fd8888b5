package llmmetrics_test

import (
	"bytes"
	"fmt"
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

// BenchmarkRead reads the project's own formats from memory: JSONL with 128
// chunk arrivals a request, and CSV rows. bench/compare_formats.sh times the
// whole command on files beside the numpy pipelines.
func BenchmarkRead(b *testing.B) {
	for _, c := range []struct {
		format string
		n, k   int
		write  func(*bytes.Buffer, []llmmetrics.Record) error
	}{
		{"jsonl", 20_000, 128, func(w *bytes.Buffer, r []llmmetrics.Record) error { return llmmetrics.WriteJSONL(w, r) }},
		{"csv", 500_000, 4, func(w *bytes.Buffer, r []llmmetrics.Record) error { return llmmetrics.WriteCSV(w, r) }},
	} {
		var in bytes.Buffer
		if err := c.write(&in, synth.Run(c.n, c.k)); err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/records=%d", c.format, c.n), func(b *testing.B) {
			b.SetBytes(int64(in.Len()))
			b.ReportAllocs()
			for b.Loop() {
				run, _, err := llmmetrics.Read(bytes.NewReader(in.Bytes()))
				if err != nil || len(run.Records) != c.n {
					b.Fatalf("%v, %d records", err, len(run.Records))
				}
			}
		})
	}
}
