package genhealth

import (
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
)

// Hand-made records, by hand (times in ms): a stream of 4 chunks at one
// time, 10 10 10 10, with n = 4 (gaps 0 0 0); one of 4 chunks 5 25 25 45
// with n = 4 (gaps 20 0 20); one of 2 chunks 0 30 with n = 6 (gap 30, not
// one token a chunk). Left out: a warm-up, a preflight and a failed
// request with chunks, an ok one of a single chunk. So 3 streams, 1 of one
// timestamp, 2 of one token a chunk; 7 gaps, 4 of them 0 (57.1%); sorted
// 0 0 0 0 20 20 30, the median rank ⌈3.5⌉ = 4: 0.
func TestGapsOf(t *testing.T) {
	ms := func(xs ...int) []time.Duration {
		out := make([]time.Duration, len(xs))
		for i, x := range xs {
			out[i] = time.Duration(x) * time.Millisecond
		}
		return out
	}
	recs := []llmmetrics.Record{
		{ID: "a", Chunks: ms(10, 10, 10, 10), CompletionTokens: 4},
		{ID: "b", Chunks: ms(5, 25, 25, 45), CompletionTokens: 4},
		{ID: "c", Chunks: ms(0, 30), CompletionTokens: 6},
		{ID: "w", Warmup: true, Chunks: ms(1, 1), CompletionTokens: 2},
		{ID: "p", Preflight: true, Chunks: ms(1, 1), CompletionTokens: 2},
		{ID: "f", Status: llmmetrics.StatusError, Chunks: ms(1, 1), CompletionTokens: 2},
		{ID: "s", Chunks: ms(7), CompletionTokens: 1},
	}
	g := GapsOf(recs)
	assert.Equal(t, Gaps{Streams: 3, OneStamp: 1, OneToken: 2, Gaps: 7, Zero: 4, Median: 0}, g)
	assert.InDelta(t, 4.0/7, g.ZeroShare(), 1e-12)
	assert.InDelta(t, 1.0/3, g.OneStampShare(), 1e-12)
	assert.Equal(t, ms(10, 10, 10, 10), recs[0].Chunks, "the records are not modified")

	// Without the stream of one timestamp: gaps 20 0 20 30, median rank
	// 2 of 0 20 20 30: 20 ms.
	g = GapsOf(recs[1:])
	assert.Equal(t, Gaps{Streams: 2, OneToken: 1, Gaps: 4, Zero: 1, Median: 20 * time.Millisecond}, g)

	var none Gaps
	assert.Zero(t, none.ZeroShare())
	assert.Zero(t, none.OneStampShare())
}
