package observe

import (
	"context"
	"net/http"
	"slices"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// want is what a recording shows of one exchange, from the recording
// itself (counted in its events; see ../shared/realdata/README.md §
// streams): the text-bearing events, n from usage (-1: no usage in the
// stream), the outcome, and the split between reasoning and answer.
type want struct {
	chunks     int
	n          int
	prompt     int
	status     llmmetrics.Status
	msg        string // a part of the error message
	reasoning  int    // text-bearing reasoning events before the first answer
	answer     bool   // an answer (non-reasoning) event came
	reasonToks int    // reasoning tokens from usage, -1 when not given
	finish     string
	timings    string
	cacheKnown bool // the server said how many prompt tokens came from its cache:
	cached     int  // usage's cached_tokens, llama.cpp's timings.cache_n
}

var recordings = []struct {
	file string
	want []want
}{
	// Role-only first chunk, 48 one-token content chunks, no usage: n unknown.
	{"envoyproxy__ai-gateway__chat-streaming.yaml", []want{{chunks: 48, n: -1, answer: true, reasonToks: -1, finish: "stop"}}},
	// 100 tokens of hidden reasoning and no text at all: no TTFT exists.
	{"envoyproxy__ai-gateway__chat-streaming-detailed-usage.yaml", []want{{chunks: 0, n: 100, prompt: 12, status: llmmetrics.StatusError,
		msg: "no text-bearing event, though usage reports 100 output tokens", reasonToks: 100, finish: "length", cacheKnown: true}}},
	{"envoyproxy__ai-gateway__completion-streaming-usage.yaml", []want{{chunks: 25, n: 25, prompt: 31, answer: true, reasonToks: -1, finish: "length"}}},
	{"tmc__langchaingo__openai-chat-stream-usage.httprr", []want{{chunks: 13, n: 13, prompt: 14, answer: true, reasonToks: 0, finish: "stop", cacheKnown: true}}},
	// A comment line and three empty role chunks, then 3 tokens in one
	// chunk; the second exchange is a 429.
	{"tmc__langchaingo__openrouter-stream.httprr", []want{
		{chunks: 1, n: 3, prompt: 586, answer: true, reasonToks: 0, finish: "stop", cacheKnown: true},
		{n: -1, status: llmmetrics.StatusError, msg: "HTTP 429: Rate limit exceeded", reasonToks: -1},
	}},
	// NDJSON: 21 content lines, eval_count 22 on the done line.
	{"tmc__langchaingo__ollama-api-chat-stream.httprr", []want{{chunks: 21, n: 22, prompt: 16, answer: true, reasonToks: -1, finish: "stop", timings: "ollama"}}},
	{"tmc__langchaingo__ollama-api-generate-stream.httprr", []want{{chunks: 21, n: 22, prompt: 16, answer: true, reasonToks: -1, finish: "stop", timings: "ollama"}}},
	// A tool call: the first chunk names it, 11 argument fragments follow.
	{"microsoft__semantic-kernel__openai-tool-call-stream.txt", []want{{chunks: 12, n: -1, answer: true, reasonToks: -1, finish: "tool_calls"}}},
	// Azure's filter chunks (before the role chunk, and after the finish) carry no text.
	{"microsoft__semantic-kernel__azure-openai-async-filter-stream.txt", []want{{chunks: 1, n: -1, answer: true, reasonToks: -1, finish: "stop"}}},
	// TGI: "data:" without a space and no [DONE].
	{"microsoft__semantic-kernel__tgi-chat-stream.txt", []want{{chunks: 100, n: -1, answer: true, reasonToks: -1, finish: "length"}}},
	{"microsoft__semantic-kernel__tgi-generate-stream.txt", []want{{chunks: 150, n: 150, answer: true, reasonToks: -1, finish: "length"}}},
	// vLLM 0.24: 13 content chunks for 14 tokens (EOS on the empty final chunk).
	{"pydantic__pydantic-ai__vllm-crusoe-stream.yaml", []want{{chunks: 13, n: 14, prompt: 46, answer: true, reasonToks: -1, finish: "stop", cacheKnown: true}}},
	// Responses API: 5 argument deltas, then 7 text deltas; usage in response.completed.
	{"pydantic__pydantic-ai__openai-responses-stream.yaml", []want{
		{chunks: 5, n: 16, prompt: 255, answer: true, reasonToks: 0, finish: "completed", cacheKnown: true},
		{chunks: 7, n: 9, prompt: 278, answer: true, reasonToks: 0, finish: "completed", cacheKnown: true},
	}},
	// Groq: 93 reasoning deltas then an error event after HTTP 200; then a
	// tool call after reasoning; then reasoning and 11 content chunks.
	{"pydantic__pydantic-ai__groq-midstream-error.yaml", []want{
		{chunks: 93, n: -1, status: llmmetrics.StatusError, msg: "Tool call validation failed", reasoning: 93, reasonToks: -1},
		{chunks: 23, n: 49, prompt: 304, reasoning: 22, answer: true, reasonToks: 23, finish: "tool_calls", timings: "groq"},
		{chunks: 48, n: 58, prompt: 339, reasoning: 37, answer: true, reasonToks: 38, finish: "stop", timings: "groq"},
	}},
	// DeepSeek: 198 reasoning_content chunks, then 11 content chunks; usage on the finish chunk.
	{"pydantic__pydantic-ai__deepseek-reasoning-stream.yaml", []want{{chunks: 209, n: 212, prompt: 6, reasoning: 198, answer: true, reasonToks: 198, finish: "stop", cacheKnown: true}}},
	// llama.cpp: 45 reasoning chunks and 2 content chunks for 57 tokens, timings on the usage chunk.
	{"charmbracelet__fantasy__llamacpp-simple-streaming.yaml", []want{{chunks: 47, n: 57, prompt: 84, reasoning: 45, answer: true, reasonToks: -1, finish: "stop", timings: "llama.cpp", cacheKnown: true, cached: 83}}},
	// 15 reasoning chunks and 8 tool-call chunks; then 14 content chunks.
	{"charmbracelet__fantasy__llamacpp-tool-streaming.yaml", []want{
		{chunks: 23, n: 41, prompt: 139, reasoning: 15, answer: true, reasonToks: -1, finish: "tool_calls", timings: "llama.cpp", cacheKnown: true, cached: 138},
		{chunks: 14, n: 18, prompt: 196, answer: true, reasonToks: -1, finish: "stop", timings: "llama.cpp", cacheKnown: true, cached: 160},
	}},
}

// TestRecordedStreams replays every recorded stream from an httptest
// server, byte for byte, one event per write with a 2 ms gap, and checks
// the record against what the recording shows.
func TestRecordedStreams(t *testing.T) {
	for _, rc := range recordings {
		t.Run(rc.file, func(t *testing.T) {
			exs := recorded(t, rc.file)
			require.Len(t, exs, len(rc.want))
			for i, ex := range exs {
				w := rc.want[i]
				srv := replay(t, ex, 2*time.Millisecond)
				api, ok := APIOf(ex.path)
				require.True(t, ok, ex.path)
				req, err := http.NewRequestWithContext(context.Background(), http.MethodPost, srv.URL+ex.path, nil)
				require.NoError(t, err)
				res, err := (&Observer{}).Do(req, api, "r")
				srv.Close()
				require.NoError(t, err)
				rec := res.Record
				assert.Equal(t, w.status, rec.Status, "exchange %d: %s", i, rec.Message)
				assert.Contains(t, rec.Message, w.msg, "exchange %d", i)
				assert.Len(t, rec.Chunks, w.chunks, "exchange %d text-bearing events", i)
				assert.Equal(t, w.n >= 0, res.UsageKnown, "exchange %d: usage known", i)
				if w.n >= 0 {
					assert.Equal(t, w.n, rec.CompletionTokens, "exchange %d: n", i)
				}
				assert.Equal(t, w.prompt, rec.PromptTokens, "exchange %d: prompt tokens", i)
				assert.Equal(t, w.answer, res.Record.Client.HasAnswer, "exchange %d: answer", i)
				if w.answer {
					assert.Equal(t, rec.Chunks[w.reasoning], res.Record.Client.FirstAnswer, "exchange %d: first answer after %d reasoning events", i, w.reasoning)
				}
				assert.Equal(t, w.reasonToks >= 0, res.Record.Client.HasReasoning, "exchange %d", i)
				if w.reasonToks >= 0 {
					assert.Equal(t, w.reasonToks, res.Record.Client.ReasoningTokens, "exchange %d: reasoning tokens", i)
				}
				assert.Equal(t, w.finish, res.Finish, "exchange %d", i)
				assert.Equal(t, w.timings, res.TimingsSource, "exchange %d", i)
				assert.Equal(t, w.cacheKnown, res.CacheKnown, "exchange %d: cache known", i)
				assert.Equal(t, w.cached, res.CachedTokens, "exchange %d: cached prompt tokens", i)
				// Every event came in its own write, 2 ms apart: arrivals
				// never go back, and come after the send. (On a loaded
				// machine two writes can reach one read and share a stamp,
				// so equal stamps are allowed; TestStampAtRead checks the
				// gaps themselves.)
				assert.True(t, slices.IsSorted(rec.Chunks), "exchange %d", i)
				if len(rec.Chunks) > 0 {
					assert.Positive(t, rec.Chunks[0])
				}
				if rec.Status == llmmetrics.StatusOK && res.UsageKnown {
					assert.NoError(t, rec.Validate(), "exchange %d", i)
				}
			}
		})
	}
}
