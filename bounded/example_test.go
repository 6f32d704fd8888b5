package bounded_test

import (
	"fmt"
	"io"
	"os"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/bounded"
)

// The summary of a run's file, read once a pass in a budget of 64 KiB.
func ExampleSummarize() {
	open := func() (io.ReadCloser, error) { return os.Open("../testdata/sample_run.jsonl") }
	s, st, err := bounded.Summarize(open, bounded.Options{Budget: 64 << 10})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("ok:", s.Requests.OK, "of", s.Requests.Offered)
	for _, d := range []struct {
		name string
		d    *llmmetrics.Distribution
	}{{"ttft", s.TTFT}, {"e2e", s.E2E}, {"itl", &s.ITL.Distribution}} {
		p99, _ := d.d.At(llmmetrics.MustPercentile(99))
		fmt.Printf("%s: n=%d mean=%v p99=%v\n", d.name, d.d.N, d.d.Mean, p99)
	}
	fmt.Println("the request at ttft's p99:", s.TTFT.Points[3].ID)
	fmt.Printf("%.2f output tokens/s\n", s.Throughput.OutputTokensPerSecond)
	fmt.Println("workload:", s.Absent["workload"])
	fmt.Println("passes:", st.Passes)
	// Output:
	// ok: 234 of 240
	// ttft: n=234 mean=102.610256ms p99=224.903ms
	// e2e: n=234 mean=2.447484778s p99=9.401702s
	// itl: n=21408 mean=25.630635ms p99=69.944ms
	// the request at ttft's p99: req-040
	// 612.19 output tokens/s
	// workload: not computed by the bounded summary (the run was read in passes within a memory budget)
	// passes: 4
}
