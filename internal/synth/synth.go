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

// Mixed returns n records as a load generator writes them, from a fixed
// seed: about 2% failed (an HTTP 500, 503 or a timeout, with the server's
// words), 1% ok without a token, the rest ok with k text chunks (a fifth
// of them two tokens a chunk), sent about 5 ms apart, as
// ../shared/bench/gen_records.py makes them. The tests that hold a reader
// to a memory budget read them.
func Mixed(n, k int) []llmmetrics.Record {
	recs := make([]llmmetrics.Record, n)
	arena := make([]time.Duration, n*k)
	m := NewMixer()
	for i := range recs {
		recs[i] = m.Next(i, arena[i*k:(i+1)*k:(i+1)*k])
	}
	return recs
}

// A Mixer makes Mixed's records one at a time, for a stream of them
// that is never held whole.
type Mixer struct {
	rng  *rand.Rand
	sent time.Duration
}

// NewMixer returns a Mixer from Mixed's seed.
func NewMixer() *Mixer { return &Mixer{rng: rand.New(rand.NewPCG(29, 29))} }

// Sent returns the send time of the last record made.
func (m *Mixer) Sent() time.Duration { return m.sent }

// Next returns record i of Mixed's, its chunk arrivals written into chunks
// (k of them) when it is an ok record with text.
func (m *Mixer) Next(i int, chunks []time.Duration) llmmetrics.Record {
	rng := m.rng
	m.sent += time.Duration(rng.Int64N(int64(10 * time.Millisecond)))
	r := llmmetrics.Record{ID: fmt.Sprint("r", i), Sent: m.sent, PromptTokens: 64 + rng.IntN(4032)}
	switch u := rng.Float64(); {
	case u < 0.01:
		r.Status, r.Message = llmmetrics.StatusError, fmt.Sprintf("HTTP 500: worker %d died", rng.IntN(4))
	case u < 0.015:
		r.Status, r.Message = llmmetrics.StatusError, "HTTP 503: overloaded"
	case u < 0.02:
		r.Status, r.Message = llmmetrics.StatusTimeout, "no answer within 10m0s"
	case u < 0.03:
		// ok without a token
	default:
		at := 50*time.Millisecond + time.Duration(rng.Int64N(int64(200*time.Millisecond)))
		for j := range chunks {
			chunks[j] = at
			at += 15*time.Millisecond + time.Duration(rng.Int64N(int64(20*time.Millisecond)))
		}
		r.Chunks, r.CompletionTokens = chunks, len(chunks)
		if rng.IntN(5) == 0 {
			r.CompletionTokens = 2 * len(chunks)
		}
	}
	return r
}
