// Package synth makes synthetic runs for benchmarks: the same records for
// the Go benchmarks and for the numpy comparison in bench/.
package synth

import (
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// Run returns n ok records of k text chunks each, one token per chunk: TTFT
// uniform in [50, 250) ms and gaps uniform in [15, 35) ms, from a fixed
// seed. All chunk arrivals share one backing array, as a reader would lay
// them out.
func Run(n, k int) []llmmetrics.Record {
	rng := rand.New(rand.NewPCG(7, 7))
	recs := make([]llmmetrics.Record, n)
	arena := make([]time.Duration, n*k)
	for i := range recs {
		chunks := arena[i*k : (i+1)*k : (i+1)*k]
		at := 50*time.Millisecond + time.Duration(rng.Int64N(int64(200*time.Millisecond)))
		for j := range chunks {
			chunks[j] = at
			at += 15*time.Millisecond + time.Duration(rng.Int64N(int64(20*time.Millisecond)))
		}
		recs[i] = llmmetrics.Record{
			ID:               fmt.Sprint("req-", i),
			Sent:             time.Duration(i) * time.Millisecond,
			Chunks:           chunks,
			PromptTokens:     512,
			CompletionTokens: k,
		}
	}
	return recs
}
