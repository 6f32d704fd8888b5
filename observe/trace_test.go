package observe

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type traceKey struct{}

// recordingTracer adds a header to the request sent, puts a value in the
// context and keeps each ended Result, noting whether OnResult had seen
// it yet.
type recordingTracer struct {
	mu      sync.Mutex
	started int
	ended   []*Result
	before  []bool // the end came before OnResult's
	seen    *map[*Result]bool
}

func (tr *recordingTracer) Start(ctx context.Context, h http.Header, _ *Result) (context.Context, func(*Result)) {
	tr.mu.Lock()
	tr.started++
	tr.mu.Unlock()
	h.Set("Traceparent", "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01")
	return context.WithValue(ctx, traceKey{}, "span"), func(r *Result) {
		tr.mu.Lock()
		defer tr.mu.Unlock()
		tr.ended = append(tr.ended, r)
		tr.before = append(tr.before, !(*tr.seen)[r])
	}
}

// The Tracer's header reaches the server and not the caller's request;
// its context reaches OnStart, OnResultContext and the request sent; its
// end receives each Result once, before OnResult; a Transport with a
// Tracer alone still observes.
func TestTransportTracer(t *testing.T) {
	var gotHeader []string
	var mu sync.Mutex
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		gotHeader = append(gotHeader, r.Header.Get("Traceparent"))
		mu.Unlock()
		if strings.HasSuffix(r.URL.Path, "/models") {
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"id":"chatcmpl-7","model":"m","choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()

	seen := map[*Result]bool{}
	tr := &recordingTracer{seen: &seen}
	var startCtx, endCtx any
	tp := &Transport{
		Tracer:  tr,
		OnStart: func(ctx context.Context) { startCtx = ctx.Value(traceKey{}) },
		OnResultContext: func(ctx context.Context, r *Result) {
			endCtx = ctx.Value(traceKey{})
			tr.mu.Lock()
			seen[r] = true
			tr.mu.Unlock()
		},
	}
	client := &http.Client{Transport: tp}
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true,"max_tokens":16}`))
	req.Header.Set("X-Caller", "kept")
	resp, err := client.Do(req)
	require.NoError(t, err)
	io.ReadAll(resp.Body)
	resp.Body.Close()

	assert.Empty(t, req.Header.Get("Traceparent"), "the caller's request is untouched")
	assert.Equal(t, "kept", req.Header.Get("X-Caller"))
	require.Equal(t, []string{"00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}, gotHeader, "the server sees the trace")
	assert.Equal(t, "span", startCtx)
	assert.Equal(t, "span", endCtx)
	require.Len(t, tr.ended, 1)
	assert.True(t, tr.before[0], "the span ends before OnResultContext")
	r := tr.ended[0]
	assert.Equal(t, "ok", r.Record.Status.String())
	assert.Equal(t, "chatcmpl-7", r.ResponseID)
	assert.Equal(t, 16, r.Record.MaxTokens)
	assert.True(t, r.RequestStream && r.StreamKnown)

	// An unknown endpoint passes through untraced.
	resp, err = (&http.Client{Transport: &Transport{Tracer: tr}}).Get(srv.URL + "/v1/models")
	require.NoError(t, err)
	resp.Body.Close()
	assert.Equal(t, 1, tr.started)
	assert.Equal(t, "", gotHeader[1])

	// A Tracer alone observes: its end still comes.
	resp, err = (&http.Client{Transport: &Transport{Tracer: tr}}).Post(srv.URL+"/v1/chat/completions", "application/json", nil)
	require.NoError(t, err)
	io.ReadAll(resp.Body)
	resp.Body.Close()
	assert.Equal(t, 2, tr.started)
	assert.Len(t, tr.ended, 2)
	assert.False(t, tr.ended[1].StreamKnown, "no body: the request's stream is unknown")
}

// A call that fails before any response ends its trace too, once.
func TestTransportTracerFailure(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	seen := map[*Result]bool{}
	tr := &recordingTracer{seen: &seen}
	_, err := (&http.Client{Transport: &Transport{Tracer: tr}}).Post(url+"/v1/chat/completions", "application/json", strings.NewReader(`{}`))
	require.Error(t, err)
	require.Len(t, tr.ended, 1)
	assert.Equal(t, "error", tr.ended[0].Record.Status.String())
}

// What a request's body says of itself, for each wire API.
func TestFactsOf(t *testing.T) {
	for _, c := range []struct {
		api                 API
		body                string
		model               string
		max                 int
		stream, streamKnown bool
	}{
		{Chat, `{"model":"m","stream":true,"max_tokens":32}`, "m", 32, true, true},
		{Chat, `{"model":"m","max_completion_tokens":8,"max_tokens":32}`, "m", 8, false, true},
		{Chat, `{"model":"m","stream":false,"max_tokens":null}`, "m", 0, false, true},
		{Completions, `{"prompt":"x","max_tokens":5,"stream":true}`, "", 5, true, true},
		{Responses, `{"model":"m","max_output_tokens":64,"stream":true}`, "m", 64, true, true},
		{Ollama, `{"model":"q","options":{"num_predict":12}}`, "q", 12, true, true},
		{Ollama, `{"model":"q","stream":false}`, "q", 0, false, true},
		{TGI, `{"inputs":"x","parameters":{"max_new_tokens":20}}`, "", 20, true, true},
		{Chat, `not json`, "", 0, false, false},
	} {
		f := factsOf(c.api, []byte(c.body))
		assert.Equal(t, requestFacts{c.model, c.max, c.stream, c.streamKnown}, f, "%v %s", c.api, c.body)
	}
	assert.Equal(t, requestFacts{}, factsOf(Chat, nil), "a body not read says nothing")
	assert.Equal(t, requestFacts{stream: true, streamKnown: true}, factsOf(TGI, nil), "/generate_stream streams")
}

// The response's id: a chat chunk's first "id", the Responses API's
// response.id.
func TestResponseID(t *testing.T) {
	for _, c := range []struct {
		path, body, id string
	}{
		{"/v1/chat/completions", `data: {"id":"chatcmpl-1","choices":[{"delta":{"content":"a"}}]}` + "\n\n" + `data: {"id":"chatcmpl-2","choices":[{"delta":{},"finish_reason":"stop"}]}` + "\n\ndata: [DONE]\n\n", "chatcmpl-1"},
		{"/v1/responses", "event: response.created\ndata: {\"type\":\"response.created\",\"response\":{\"id\":\"resp_9\",\"model\":\"m\"}}\n\n" +
			"event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"a\"}\n\n" +
			"event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"id\":\"resp_9\",\"model\":\"m\",\"usage\":{\"input_tokens\":1,\"output_tokens\":1}}}\n\n", "resp_9"},
		{"/api/chat", `{"model":"q","message":{"content":"a"},"done":true,"eval_count":1}` + "\n", ""},
	} {
		srv := replay(t, exchange{path: c.path, status: 200, contentType: "text/event-stream", body: []byte(c.body)}, 0)
		api, _ := APIOf(c.path)
		req, _ := http.NewRequest(http.MethodPost, srv.URL+c.path, nil)
		res, err := (&Observer{}).Do(req, api, "x")
		require.NoError(t, err)
		assert.Equal(t, "ok", res.Record.Status.String(), c.path)
		assert.Equal(t, c.id, res.ResponseID, c.path)
		srv.Close()
	}
}

// The header a Tracer writes to is the Transport's own: setting or adding
// to it leaves the caller's request as it was.
func TestOwnHeader(t *testing.T) {
	vals := make([]string, 1, 4)
	vals[0] = "a"
	caller := http.Header{"X-List": vals}
	own := ownHeader(caller)
	own.Add("X-List", "b")
	own.Set("Traceparent", "t")
	assert.Equal(t, []string{"a", "b"}, own["X-List"])
	assert.Equal(t, http.Header{"X-List": {"a"}}, caller)
	assert.Equal(t, "a", vals[:2][0])
	assert.Equal(t, "", vals[:2][1], "the caller's array is not written")
	assert.NotNil(t, ownHeader(nil))
}
