// Streams: per-user pace against aggregate throughput (seed 002 of the specification, "Throughput
// is a different number"). 64 concurrent streams at a TPOT of 25 ms each give
// one user 40 tokens/s and the server 2,560 tokens/s.
//
//	go run ./examples/streams
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

func run(w io.Writer) error {
	// Cell 1: 64 requests sent together at 0; each gets 1,000 tokens, one
	// every 25 ms from 25 ms to 25 s.
	const streams, tokens = 64, 1000
	tick := 25 * time.Millisecond
	recs := make([]llmmetrics.Record, streams)
	for i := range recs {
		chunks := make([]time.Duration, tokens)
		for k := range chunks {
			chunks[k] = time.Duration(k+1) * tick
		}
		recs[i] = llmmetrics.Record{ID: fmt.Sprint("stream-", i), Chunks: chunks, CompletionTokens: tokens}
	}

	// Cell 2: one user's view.
	tpot, err := recs[0].TPOT()
	if err != nil {
		return err
	}
	tps, err := recs[0].UserTPS()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "per user: TPOT %v, %.0f tokens/s\n", tpot, tps)

	// Cell 3: the server's view over the run's window.
	s, err := llmmetrics.Summarize(recs, llmmetrics.Options{})
	if err != nil {
		return err
	}
	t := s.Throughput
	fmt.Fprintf(w, "aggregate: %d tokens over %v = %.0f output tokens/s\n", t.OutputTokens, t.Window.Length, t.OutputTokensPerSecond)
	return nil
}
