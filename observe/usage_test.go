package observe

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// vLLM's continuous_usage_stats puts cumulative usage on every chunk: the
// growth of completion_tokens gives each text-bearing chunk's tokens, so
// the token-or-chunk verdict rests on the server's word. Here the second
// chunk carried two tokens (completion 1, 3, 4).
func TestContinuousUsage(t *testing.T) {
	body := `data: {"choices":[{"delta":{"role":"assistant","content":""}}],"usage":{"prompt_tokens":5,"completion_tokens":0}}

data: {"choices":[{"delta":{"content":"a"}}],"usage":{"prompt_tokens":5,"completion_tokens":1}}

data: {"choices":[{"delta":{"content":"bc"}}],"usage":{"prompt_tokens":5,"completion_tokens":3}}

data: {"choices":[{"delta":{"content":"d"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":4}}

data: {"choices":[],"usage":{"prompt_tokens":5,"completion_tokens":4}}

data: [DONE]

`
	srv := replay(t, exchange{path: "/v1/chat/completions", status: 200, contentType: "text/event-stream", body: []byte(body)}, time.Millisecond)
	defer srv.Close()
	req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+"/v1/chat/completions", nil)
	res, err := (&Observer{}).Do(req, Chat, "v")
	require.NoError(t, err)
	assert.Equal(t, []int32{1, 2, 1}, res.Record.ChunkTokens)
	b, err := res.Record.GapBasis()
	require.NoError(t, err)
	assert.Equal(t, "chunk", b.String(), "a chunk carried two tokens")
	require.NoError(t, res.Record.Validate())

	// Usage on the final chunk only: no per-chunk counts.
	srv2 := replay(t, recorded(t, "pydantic__pydantic-ai__vllm-crusoe-stream.yaml")[0], 0)
	defer srv2.Close()
	req, _ = http.NewRequest(http.MethodPost, srv2.URL+"/v1/chat/completions", nil)
	res, err = (&Observer{}).Do(req, Chat, "w")
	require.NoError(t, err)
	assert.Nil(t, res.Record.ChunkTokens)
}

// vLLM started with --enable-per-request-metrics puts a top-level metrics
// object on the final usage chunk (../shared/reference/ecosystem.md §2.2);
// the observer keeps it as the request's server timings, and WriteTimings
// passes it on as source vllm for the server module's decomposition.
func TestVLLMPerRequestMetrics(t *testing.T) {
	body := `data: {"choices":[{"delta":{"content":"a"}}]}

data: {"choices":[{"delta":{"content":"b"},"finish_reason":"length"}]}

data: {"choices":[],"usage":{"prompt_tokens":512,"completion_tokens":2,"prompt_tokens_details":{"cached_tokens":496}},"metrics":{"queue_time_ms":1.5,"time_to_first_token_ms":40.25,"generation_time_ms":9,"mean_itl_ms":9,"tokens_per_second":40.8}}

data: [DONE]

`
	srv := replay(t, exchange{path: "/v1/chat/completions", status: 200, contentType: "text/event-stream", body: []byte(body)}, time.Millisecond)
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", nil)
	res, err := (&Observer{}).Do(req, Chat, "v1")
	require.NoError(t, err)
	assert.Equal(t, "vllm", res.TimingsSource)
	assert.True(t, res.CacheKnown)
	assert.Equal(t, 496, res.CachedTokens)
	// The record carries it, and WriteJSONL writes it.
	assert.True(t, res.Record.Client.HasCached)
	assert.Equal(t, 496, res.Record.Client.CachedPromptTokens)
	var jl strings.Builder
	require.NoError(t, WriteJSONL(&jl, []*Result{res}))
	assert.Contains(t, jl.String(), `"cached_prompt_tokens":496`)
	var b strings.Builder
	n, err := WriteTimings(&b, []*Result{res})
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.JSONEq(t, `{"id":"v1","source":"vllm","timings":{"queue_time_ms":1.5,"time_to_first_token_ms":40.25,"generation_time_ms":9,"mean_itl_ms":9,"tokens_per_second":40.8}}`, b.String())

	// metrics: null (n > 1, say) is no timings.
	body2 := strings.Replace(body, `"metrics":{"queue_time_ms":1.5,"time_to_first_token_ms":40.25,"generation_time_ms":9,"mean_itl_ms":9,"tokens_per_second":40.8}`, `"metrics":null`, 1)
	srv2 := replay(t, exchange{path: "/v1/chat/completions", status: 200, contentType: "text/event-stream", body: []byte(body2)}, 0)
	defer srv2.Close()
	req, _ = http.NewRequest(http.MethodPost, srv2.URL+"/v1/chat/completions", nil)
	res, err = (&Observer{}).Do(req, Chat, "v2")
	require.NoError(t, err)
	assert.Empty(t, res.TimingsSource)
	assert.Nil(t, res.Timings)
}
