package bounded_test

import (
	"fmt"
	"io"
	"os"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
)

// The latencies of a run's file, read once a pass in a budget of 64 KiB.
func ExampleReadJSONL() {
	open := func() (io.ReadCloser, error) { return os.Open("../testdata/sample_run.jsonl") }
	l, err := bounded.ReadJSONL(open, bounded.Options{Method: llmmetrics.NearestRank, Budget: 64 << 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, d := range []struct {
		name string
		d    *llmmetrics.Distribution
	}{{"ttft", l.TTFT}, {"e2e", l.E2E}, {"itl", l.ITL}} {
		p50, _ := d.d.At(llmmetrics.MustPercentile(50))
		p99, _ := d.d.At(llmmetrics.MustPercentile(99))
		fmt.Printf("%s: n=%d mean=%v p50=%v p99=%v\n", d.name, d.d.N, d.d.Mean, p50, p99)
	}
	fmt.Println("passes:", l.Passes)
	// Output:
	// ttft: n=234 mean=102.610256ms p50=100.36ms p99=224.903ms
	// e2e: n=234 mean=2.447484778s p50=1.629931s p99=9.401702s
	// itl: n=21408 mean=25.630635ms p50=22.203ms p99=69.944ms
	// passes: 3
}
