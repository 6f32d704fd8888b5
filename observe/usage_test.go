package observe

import (
	"context"
	"net/http"
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
