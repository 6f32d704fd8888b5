package drive

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The body of a request sent without streaming leaves out "stream" and
// stream_options, but for Ollama's, which says false; the rest is the
// streamed body's.
func TestBodyUnstreamed(t *testing.T) {
	for _, c := range []struct {
		api      observe.API
		path     string
		streamed string // the keys of the streamed body that the unstreamed one does not have as they are
		want     map[string]any
	}{
		{observe.Chat, "/v1/chat/completions", "stream stream_options", nil},
		{observe.Completions, "/v1/completions", "stream stream_options", nil},
		{observe.Responses, "/v1/responses", "stream", nil},
		{observe.Ollama, "/api/generate", "", map[string]any{"stream": false}},
		{observe.TGI, "/generate_stream", "", nil},
	} {
		on, err := body(c.api, c.path, "m", "hello", 3, false, nil)
		require.NoError(t, err)
		off, err := body(c.api, c.path, "m", "hello", 3, true, nil)
		require.NoError(t, err)
		var a, b map[string]any
		require.NoError(t, json.Unmarshal(on, &a))
		require.NoError(t, json.Unmarshal(off, &b))
		assert.NotEqual(t, true, b["stream"], "%v: %s", c.api, off)
		assert.NotContains(t, b, "stream_options", c.api)
		for k := range c.want {
			assert.Equal(t, c.want[k], b[k], "%v: %s", c.api, k)
		}
		for k, v := range a {
			if _, changed := c.want[k]; changed || k == "stream" || k == "stream_options" {
				continue
			}
			assert.Equal(t, v, b[k], "%v: %s as the streamed body's", c.api, k)
		}
		if c.api != observe.Ollama && c.api != observe.TGI {
			assert.Equal(t, true, a["stream"], c.api)
		}
	}
}

// wholeServer answers every request with one JSON body of three tokens,
// the shape of its API's non-streaming reply (chosen by path), with
// usage; it keeps each request's path and body.
type wholeServer struct {
	*httptest.Server
	mu     sync.Mutex
	paths  []string
	bodies []map[string]any
}

func newWholeServer(t *testing.T) *wholeServer {
	s := &wholeServer{}
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &m)
		s.mu.Lock()
		s.paths, s.bodies = append(s.paths, r.URL.Path), append(s.bodies, m)
		s.mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/api/generate":
			io.WriteString(w, `{"model":"m","response":"a b c","done":true,"done_reason":"length","prompt_eval_count":5,"eval_count":3}`)
		case "/v1/responses":
			io.WriteString(w, `{"id":"resp_1","object":"response","status":"completed","model":"m","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"a b c"}]}],"usage":{"input_tokens":5,"output_tokens":3,"total_tokens":8}}`)
		case "/tgi/generate":
			io.WriteString(w, `{"generated_text":"a b c","details":{"finish_reason":"length","generated_tokens":3}}`)
		default:
			io.WriteString(w, `{"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"a b c"},"finish_reason":"length"}],"usage":{"prompt_tokens":5,"completion_tokens":3}}`)
		}
	}))
	t.Cleanup(s.Close)
	return s
}

// A replayed request marked Unstreamed is sent without streaming (TGI's
// to /generate in place of /generate_stream), and its reply, one JSON
// body, is recorded as an answer that came at once: one chunk, the usage
// of the body, Streamed false.
func TestRunUnstreamed(t *testing.T) {
	srv := newWholeServer(t)
	for _, c := range []struct {
		api        observe.API
		path, sent string
	}{
		{observe.Chat, "/v1/chat/completions", "/v1/chat/completions"},
		{observe.Responses, "/v1/responses", "/v1/responses"},
		{observe.Ollama, "/api/generate", "/api/generate"},
		{observe.TGI, "/tgi/generate_stream", "/tgi/generate"},
	} {
		p := Plan{URL: srv.URL + c.path, API: c.api, Model: "m", Prompts: []string{"hello"}, Requests: 1, Rate: 1,
			Replay: []Request{{HasSchedule: true, MaxTokens: 3, Unstreamed: true, Source: "run.jsonl:2"}}}
		out, err := Run(context.Background(), p)
		require.NoError(t, err, c.api)
		require.Len(t, out.Results, 1)
		res := out.Results[0]
		rec := res.Record
		require.Equal(t, llmmetrics.StatusOK, rec.Status, "%v: %s", c.api, rec.Message)
		assert.False(t, res.Streamed, c.api)
		assert.Equal(t, 3, rec.CompletionTokens, c.api)
		assert.False(t, rec.NoUsage, c.api)
		assert.Equal(t, llmmetrics.CountKnown, rec.CountState(), c.api)
		assert.True(t, len(rec.Chunks) == 1 || len(rec.Chunks) == 0 && rec.FirstText == rec.LastText, "%v: its text at once", c.api)
		srv.mu.Lock()
		assert.Equal(t, c.sent, srv.paths[len(srv.paths)-1], c.api)
		assert.NotEqual(t, true, srv.bodies[len(srv.bodies)-1]["stream"], c.api)
		srv.mu.Unlock()
	}
}

// A replay with a request to send without streaming refuses, before
// anything is sent, a TGI URL that does not end in /generate_stream.
func TestRunUnstreamedRefused(t *testing.T) {
	srv := newWholeServer(t)
	for _, c := range []struct {
		api  observe.API
		path string
		want string
	}{
		{observe.TGI, "/custom", `goes to /generate: the URL "` + srv.URL + `/custom" does not end in /generate_stream (replay request 2, run.jsonl:3, was not streamed)`},
	} {
		p := Plan{URL: srv.URL + c.path, API: c.api, Model: "m", Prompts: []string{"hello"}, Requests: 2, Rate: 1,
			Replay: []Request{{HasSchedule: true, MaxTokens: 3, Source: "run.jsonl:2"}, {HasSchedule: true, MaxTokens: 3, Unstreamed: true, Source: "run.jsonl:3"}}}
		_, err := Run(context.Background(), p)
		require.Error(t, err, c.api)
		assert.Contains(t, err.Error(), c.want, c.api)
	}
	assert.Empty(t, srv.paths, "nothing sent")
}

// A plan file says "stream": false of a request sent without streaming,
// and nothing of a streamed one; it reads back the same, "stream": true
// as streamed, and an unknown key stays an error.
func TestPlanUnstreamed(t *testing.T) {
	reqs := []Request{
		{Scheduled: 0, HasSchedule: true, PromptTokens: 10, MaxTokens: 3, Source: "run.jsonl:2"},
		{Scheduled: 5, HasSchedule: true, PromptTokens: 12, MaxTokens: 4, Unstreamed: true, Source: "run.jsonl:3"},
	}
	var b strings.Builder
	require.NoError(t, WritePlan(&b, &PlanHeader{}, reqs))
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	require.Len(t, lines, 3)
	assert.NotContains(t, lines[1], `"stream"`)
	assert.Contains(t, lines[2], `"stream":false`)
	_, back, err := ReadPlan(strings.NewReader(b.String()))
	require.NoError(t, err)
	assert.Equal(t, reqs, back)

	in := `{"llmmetrics_plan":{}}` + "\n" + `{"id":"1","max_tokens":3,"stream":true}` + "\n"
	_, back, err = ReadPlan(strings.NewReader(in))
	require.NoError(t, err)
	assert.False(t, back[0].Unstreamed)
	_, _, err = ReadPlan(strings.NewReader(`{"llmmetrics_plan":{}}` + "\n" + `{"id":"1","streamed":false}` + "\n"))
	assert.ErrorContains(t, err, `plan line 2: json: unknown field "streamed"`)
}
