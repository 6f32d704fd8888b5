// Averaging: request-weighted TPOT against gap-weighted ITL (seed 000 of the specification, §2.2
// and "Try it yourself" 2). The program builds two small runs and shows how
// far the two means of the same run can sit apart.
//
//	go run ./examples/averaging
package main

import (
	"fmt"
	"io"
	"os"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// stream returns a request with n tokens, one per chunk, the first at
// 100 ms and then one every gap.
func stream(id string, n int, gap time.Duration) llmmetrics.Record {
	chunks := make([]time.Duration, n)
	for k := range chunks {
		chunks[k] = 100*time.Millisecond + time.Duration(k)*gap
	}
	return llmmetrics.Record{ID: id, Chunks: chunks, CompletionTokens: n}
}

func run(w io.Writer) error {
	// Cell 1: request A has 100 tokens at 10 ms a gap; B has 2 tokens
	// 50 ms apart.
	two := []llmmetrics.Record{stream("A", 100, 10*time.Millisecond), stream("B", 2, 50*time.Millisecond)}
	s, err := llmmetrics.Summarize(two, llmmetrics.Options{})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "A and B: mean TPOT (request-weighted) %v; mean ITL (gap-weighted) %v over %d gaps\n",
		s.TPOT.Mean, s.ITL.Mean, s.ITL.N)

	// Cell 2: 80 short requests (4 tokens, 10 ms gaps) and 20 long ones
	// (200 tokens, 30 ms gaps). Count where the gaps come from.
	var mix []llmmetrics.Record
	for i := range 80 {
		mix = append(mix, stream(fmt.Sprint("short-", i), 4, 10*time.Millisecond))
	}
	for i := range 20 {
		mix = append(mix, stream(fmt.Sprint("long-", i), 200, 30*time.Millisecond))
	}
	s, err = llmmetrics.Summarize(mix, llmmetrics.Options{})
	if err != nil {
		return err
	}
	longGaps := 20 * (200 - 1)
	fmt.Fprintf(w, "80×4 + 20×200 tokens: %d gaps, %d from the long requests (%.1f%%)\n",
		s.ITL.N, longGaps, 100*float64(longGaps)/float64(s.ITL.N))
	fmt.Fprintf(w, "mean TPOT (request-weighted) %v; mean ITL (gap-weighted) %v\n",
		s.TPOT.Mean, s.TPOT.GapWeightedMean.Round(time.Microsecond))
	return nil
}
