// Opening trace: one request, five tokens (seed 000 of the specification). The program walks
// through the per-request metrics of the trace and the Databricks check.
//
//	go run ./examples/opening_trace
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
	ms := time.Millisecond

	// Step 1: the record. The request is sent at 0 ms; the five tokens
	// arrive in five text-bearing chunks. Times are measured from the send.
	r := llmmetrics.Record{
		ID:               "trace-5",
		Chunks:           []time.Duration{120 * ms, 155 * ms, 192 * ms, 228 * ms, 265 * ms},
		PromptTokens:     512,
		CompletionTokens: 5, // from usage, not from counting chunks
	}
	if err := r.Validate(); err != nil {
		return err
	}

	// Step 2: TTFT, the wait for the first text.
	ttft, err := r.TTFT()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "TTFT = %v\n", ttft)

	// Step 3: the gaps. Five chunks for five tokens, so they are per-token
	// ITLs.
	gaps, err := r.AppendGaps(nil)
	if err != nil {
		return err
	}
	basis, err := r.GapBasis()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "gaps = %v (%s basis: %d chunks, n = %d)\n", gaps, basis, len(r.Chunks), r.CompletionTokens)

	// Step 4: TPOT, the mean gap: (t_last − t_first)/(n − 1).
	tpot, err := r.TPOT()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "TPOT = (%v − %v)/(%d − 1) = %v\n", r.Chunks[4], r.Chunks[0], r.CompletionTokens, tpot)

	// Step 5: E2E, and the identity E2E = TTFT + (n − 1)·TPOT.
	e2e, err := r.E2E()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "E2E = %v = %v + %d × %v\n", e2e, ttft, r.CompletionTokens-1, tpot)

	// Step 6: the pace one user sees.
	tps, err := r.UserTPS()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "user TPS = %d/%v = %.1f tokens/s\n", r.CompletionTokens-1, e2e-ttft, tps)

	// Step 7: the Databricks approximation TTFT + n·TPOT, which counts one
	// gap too many.
	a, err := r.DatabricksE2E()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Databricks: %v + %d × %v = %v, over the exact %v by %v (1/n = %.0f%%)\n",
		ttft, r.CompletionTokens, tpot, a.Approx, a.Exact, a.Error, 100*a.RelativeError)
	return nil
}
