package server

import (
	"errors"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func rec(id string, prompt int, ttft time.Duration) *llmmetrics.Record {
	return &llmmetrics.Record{ID: id, PromptTokens: prompt, FirstText: ttft, LastText: ttft + time.Second, CompletionTokens: 10}
}

func dur(ms float64) *time.Duration {
	d := time.Duration(ms * 1e6)
	return &d
}

// vLLM's per-request metrics: queue 5 ms, scheduled → first token 40 ms:
// the server's TTFT is 45 ms; a client TTFT of 60 ms leaves 15 ms of
// client overhead. The residual is unknown: vLLM does not report its TTFT
// apart from queue and prefill.
func TestDecomposeVLLM(t *testing.T) {
	tm, err := ParseVLLMMetrics([]byte(`{"queue_time_ms": 5, "time_to_first_token_ms": 40, "generation_time_ms": 200, "mean_itl_ms": null}`))
	require.NoError(t, err)
	assert.True(t, tm.Derived)
	d, err := Decompose(rec("a", 100, 60*time.Millisecond), tm)
	require.NoError(t, err)
	assert.Equal(t, dur(5), d.Queue)
	assert.Equal(t, dur(40), d.Prefill)
	assert.Equal(t, dur(15), d.ClientOverhead)
	assert.Nil(t, d.Residual)
}

// Timings reported apart: server TTFT 50, queue 10, prefill 35 → residual
// 5 ms; with a prefill of 45 ms the residual would be −5: clamped to 0 and
// flagged.
func TestDecomposeResidual(t *testing.T) {
	tm := Timings{Source: "reported", Queue: dur(10), Prefill: dur(35), ServerTTFT: dur(50)}
	d, err := Decompose(rec("a", 100, 70*time.Millisecond), tm)
	require.NoError(t, err)
	assert.Equal(t, dur(5), d.Residual)
	assert.Equal(t, dur(20), d.ClientOverhead)
	assert.False(t, d.Clamped)
	tm.Prefill = dur(45)
	d, err = Decompose(rec("a", 100, 70*time.Millisecond), tm)
	require.NoError(t, err)
	assert.Equal(t, dur(0), d.Residual)
	assert.True(t, d.Clamped)

	_, err = Decompose(&llmmetrics.Record{ID: "f", Status: llmmetrics.StatusError}, tm)
	assert.True(t, errors.Is(err, llmmetrics.ErrNoText))
}

// llama.cpp and Ollama report a prefill and a generation time only: the
// rest stays unknown, never zero.
func TestDecomposeOthers(t *testing.T) {
	tm, err := ParseLlamaCppTimings([]byte(`{"cache_n": 83, "prompt_n": 1, "prompt_ms": 30.5, "predicted_n": 57, "predicted_ms": 484.01}`))
	require.NoError(t, err)
	d, err := Decompose(rec("a", 1, 50*time.Millisecond), tm)
	require.NoError(t, err)
	assert.Equal(t, dur(30.5), d.Prefill)
	assert.Nil(t, d.Queue)
	assert.Nil(t, d.ClientOverhead)

	tm, err = ParseOllamaMetrics([]byte(`{"done": true, "total_duration": 900000000, "prompt_eval_count": 16, "prompt_eval_duration": 12000000, "eval_count": 22}`))
	require.NoError(t, err)
	assert.Equal(t, dur(12), tm.Prefill)
	assert.Nil(t, tm.Decode, "an absent eval_duration is unknown, not 0")

	id, tm, err := ParseTimingsLine([]byte(`{"id": "r9", "source": "reported", "timings": {"queue_ms": 1, "prefill_ms": 2, "server_ttft_ms": 4}}`))
	require.NoError(t, err)
	assert.Equal(t, "r9", id)
	assert.Equal(t, dur(4), tm.ServerTTFT)
	_, _, err = ParseTimingsLine([]byte(`{"id": "r9", "source": "tgi", "timings": {}}`))
	assert.Error(t, err)
}

// Buckets by prompt length: (−∞, 128], (128, 512], (512, ∞).
func TestSummarizeDecompositions(t *testing.T) {
	tm := Timings{Source: "reported", Queue: dur(10), Prefill: dur(35), ServerTTFT: dur(50)}
	var ds []Decomposition
	for i, p := range []int{100, 120, 300, 1000} {
		d, err := Decompose(rec(string(rune('a'+i)), p, time.Duration(60+i)*time.Millisecond), tm)
		require.NoError(t, err)
		ds = append(ds, d)
	}
	ds[3].Queue = nil // unknown for one request
	bs := SummarizeDecompositions(ds, []int{512, 128})
	require.Len(t, bs, 3)
	assert.Equal(t, 2, bs[0].Requests)
	assert.Equal(t, 128, bs[0].MaxTokens)
	ttft := bs[0].Components[0]
	assert.Equal(t, "client_ttft", ttft.Name)
	assert.Equal(t, 61*time.Millisecond, ttft.Stats.Max)
	assert.Equal(t, 1, bs[2].Components[1].Unknown)
	assert.Nil(t, bs[2].Components[1].Stats)
	assert.Len(t, NewCacheSalt(), 32)
}
