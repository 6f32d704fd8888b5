//go:build ignore

// gen_sample writes testdata/sample_run.jsonl, the synthetic run that the
// README's first command reports on:
//
//	go run testdata/gen_sample.go > testdata/sample_run.jsonl
//
// The run is made up, not measured: 240 requests with Poisson arrivals at
// about 8 requests/s, prompts of 64–2048 tokens, outputs of 0–400 tokens, a
// TTFT that grows with the prompt and with queueing, ~22 ms decode gaps
// with rare stalls, one request in five streamed two or three tokens per
// chunk, and a few errors, timeouts, cancellations and zero-token replies.
// It is deterministic (a fixed PCG seed).
package main

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

func main() {
	rng := rand.New(rand.NewPCG(2026, 11))
	var recs []llmmetrics.Record
	var sent time.Duration
	for i := range 240 {
		sent += time.Duration(rng.ExpFloat64() / 8 * float64(time.Second))
		r := llmmetrics.Record{
			ID:           fmt.Sprintf("req-%03d", i),
			Sent:         sent.Round(time.Microsecond),
			PromptTokens: 64 + rng.IntN(1985),
			MaxTokens:    400,
		}
		switch u := rng.Float64(); {
		case u < 0.0125:
			r.Status, r.Message = llmmetrics.StatusError, "HTTP 500: internal server error"
			recs = append(recs, r)
			continue
		case u < 0.0208:
			r.Status, r.Message = llmmetrics.StatusTimeout, "no response within 30s"
			recs = append(recs, r)
			continue
		case u < 0.025:
			r.Status, r.Message = llmmetrics.StatusCancelled, "client cancelled"
			recs = append(recs, r)
			continue
		case u < 0.0333:
			recs = append(recs, r) // ok, but zero tokens
			continue
		}
		n := 1 + int(math.Min(399, rng.ExpFloat64()*120))
		if rng.Float64() < 0.04 {
			n = 1
		}
		r.CompletionTokens = n
		queue := time.Duration(rng.ExpFloat64() * 30 * float64(time.Millisecond))
		ttft := 35*time.Millisecond + time.Duration(r.PromptTokens)*40*time.Microsecond + queue
		perChunk := 1
		if rng.Float64() < 0.2 {
			perChunk = 2 + rng.IntN(2)
		}
		t := ttft
		left := n
		for left > 0 {
			k := min(perChunk, left)
			r.Chunks = append(r.Chunks, t.Round(time.Microsecond))
			r.ChunkTokens = append(r.ChunkTokens, int32(k))
			left -= k
			gap := time.Duration(float64(k) * (20 + 4*rng.Float64()) * float64(time.Millisecond))
			if rng.Float64() < 0.003 {
				gap += time.Duration(150+rng.IntN(250)) * time.Millisecond // a stall
			}
			t += gap
		}
		recs = append(recs, r)
	}
	if err := llmmetrics.WriteJSONL(os.Stdout, recs); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}
