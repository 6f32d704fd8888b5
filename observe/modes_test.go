package observe

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An upstream mode is what a fake server sends: a status, headers, and a
// body in pieces, each flushed on its own; cut hangs up after the pieces,
// short of the Content-Length it announced.
type mode struct {
	name    string
	path    string
	status  int
	header  map[string]string
	pieces  []string
	encode  string // gzip or deflate: the pieces are encoded, each flushed
	cut     bool
	request string // the request body; the default asks for model "asked"

	want modeWant
}

// modeWant is what the observation must hold.
type modeWant struct {
	status                 llmmetrics.Status
	message                string // a substring of Record.Message
	errType, errCode       string
	chunks, n              int
	usage, streamed        bool
	end                    End
	responseModel, finish  string
	noUsage, zeroTokenText bool
}

// A Responses API request not streamed, and the type of its reply.
var (
	responsesUnstreamed = `{"model":"asked","stream":false,"input":"hi"}`
	jsonType            = map[string]string{"Content-Type": "application/json"}
)

var chunk = func(text string) string {
	return `data: {"model":"served","choices":[{"index":0,"delta":{"content":"` + text + `"},"finish_reason":null}]}` + "\n\n"
}

const (
	finishChunk = `data: {"model":"served","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}` + "\n\n"
	usageChunk  = `data: {"model":"served","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2}}` + "\n\n"
	doneEvent   = "data: [DONE]\n\n"
)

var modes = []mode{
	{name: "plain stream with usage", pieces: []string{chunk("a"), chunk("b"), finishChunk, usageChunk, doneEvent},
		want: modeWant{chunks: 2, n: 2, usage: true, streamed: true, end: EndFinish, responseModel: "served", finish: "stop"}},
	{name: "reasoning tokens beyond the output tokens", pieces: []string{chunk("a"), chunk("b"), finishChunk,
		`data: {"model":"served","choices":[],"usage":{"prompt_tokens":5,"completion_tokens":2,"completion_tokens_details":{"reasoning_tokens":9}}}` + "\n\n", doneEvent},
		want: modeWant{chunks: 2, n: 2, usage: true, streamed: true, end: EndFinish, responseModel: "served", finish: "stop"}},
	{name: "plain stream without usage", pieces: []string{chunk("a"), chunk("b"), finishChunk, doneEvent},
		want: modeWant{chunks: 2, streamed: true, end: EndFinish, responseModel: "served", finish: "stop", noUsage: true}},
	{name: "llama.cpp error line then [DONE]", pieces: []string{chunk("a"),
		`error: {"code":500,"message":"the context is full","type":"server_error"}` + "\n\n", doneEvent},
		want: modeWant{status: llmmetrics.StatusError, message: "the context is full", errType: "server_error", errCode: "500", chunks: 1, streamed: true, responseModel: "served"}},
	{name: "OpenAI, vLLM, SGLang error object", pieces: []string{chunk("a"),
		`data: {"error":{"message":"out of KV cache","type":"BadRequestError","param":null,"code":400}}` + "\n\n"},
		want: modeWant{status: llmmetrics.StatusError, message: "out of KV cache", errType: "BadRequestError", errCode: "400", chunks: 1, streamed: true, responseModel: "served"}},
	{name: "vLLM older error object", pieces: []string{`data: {"object":"error","message":"engine dead","type":"InternalServerError","code":500}` + "\n\n"},
		want: modeWant{status: llmmetrics.StatusError, message: "engine dead", errType: "InternalServerError", errCode: "500", streamed: true}},
	// An event that is not JSON loses what it carried: the request fails,
	// with the event's text, where it read as ok with a token missing.
	{name: "malformed event", pieces: []string{chunk("a"), "data: {not json\n\n", chunk("b"), finishChunk, usageChunk, doneEvent},
		want: modeWant{status: llmmetrics.StatusError, message: "malformed stream event (not a JSON object): {not json", chunks: 1, streamed: true, responseModel: "served"}},
	{name: "event: error", pieces: []string{"event: error\ndata: {\"message\":\"overloaded\",\"type\":\"overloaded_error\"}\n\n"},
		want: modeWant{status: llmmetrics.StatusError, message: "overloaded", errType: "overloaded_error", streamed: true}},
	{name: "TGI error", path: "/generate_stream", pieces: []string{
		`data:{"token":{"id":1,"text":"a","special":false}}` + "\n\n",
		`data:{"error":"Request failed during generation: CUDA out of memory","error_type":"generation"}` + "\n\n"},
		want: modeWant{status: llmmetrics.StatusError, message: "CUDA out of memory", errType: "generation", chunks: 1, streamed: true}},
	{name: "Ollama error line", path: "/api/chat", header: map[string]string{"Content-Type": "application/x-ndjson"}, pieces: []string{
		`{"model":"llama3","message":{"role":"assistant","content":"a"},"done":false}` + "\n",
		`{"error":"model runner has unexpectedly stopped"}` + "\n"},
		want: modeWant{status: llmmetrics.StatusError, message: "unexpectedly stopped", chunks: 1, streamed: true, responseModel: "llama3"}},
	{name: "non-streaming JSON body, indented", header: map[string]string{"Content-Type": "application/json"}, pieces: []string{
		"{\n  \"model\": \"served\",\n  \"choices\": [\n    {\"index\": 0, \"message\": {\"role\": \"assistant\", \"content\": \"hi there\"},\n",
		"     \"finish_reason\": \"stop\"}\n  ],\n  \"usage\": {\"prompt_tokens\": 5, \"completion_tokens\": 3}\n}\n"},
		want: modeWant{chunks: 1, n: 3, usage: true, streamed: false, end: EndFinish, responseModel: "served", finish: "stop"}},
	{name: "a server that ignored stream, as text/event-stream", pieces: []string{
		`{"model":"served","choices":[{"message":{"content":"hi"},"finish_reason":"length"}],"usage":{"completion_tokens":1}}`},
		want: modeWant{chunks: 1, n: 1, usage: true, streamed: false, end: EndFinish, responseModel: "served", finish: "length"}},
	// The Responses API not streamed: one body, shaped as OpenAI's API
	// reference gives it; its status ends it as the stream's last event
	// would (response.completed, response.incomplete, response.failed).
	{name: "Responses body", path: "/v1/responses", request: responsesUnstreamed, header: jsonType, pieces: []string{
		`{"id":"resp_1","object":"response","created_at":1741476542,"status":"completed","model":"served",` +
			`"output":[{"type":"message","id":"msg_1","status":"completed","role":"assistant","content":[{"type":"output_text","text":"Hello there","annotations":[]}]}],` +
			`"usage":{"input_tokens":12,"input_tokens_details":{"cached_tokens":0},"output_tokens":3,"output_tokens_details":{"reasoning_tokens":0},"total_tokens":15}}`},
		want: modeWant{chunks: 1, n: 3, usage: true, end: EndFinish, responseModel: "served", finish: "completed"}},
	{name: "Responses body of a reasoning item and a function call", path: "/v1/responses", request: responsesUnstreamed, header: jsonType, pieces: []string{
		`{"id":"resp_2","object":"response","status":"completed","model":"served","output":[` +
			`{"type":"reasoning","id":"rs_1","summary":[{"type":"summary_text","text":"The user wants the weather."}]},` +
			`{"type":"function_call","id":"fc_1","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}","status":"completed"}],` +
			`"usage":{"input_tokens":40,"output_tokens":25,"output_tokens_details":{"reasoning_tokens":16},"total_tokens":65}}`},
		want: modeWant{chunks: 1, n: 25, usage: true, end: EndFinish, responseModel: "served", finish: "completed"}},
	{name: "Responses body incomplete", path: "/v1/responses", request: responsesUnstreamed, header: jsonType, pieces: []string{
		`{"id":"resp_3","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"model":"served",` +
			`"output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Once upon a"}]}],` +
			`"usage":{"input_tokens":12,"output_tokens":16,"total_tokens":28}}`},
		want: modeWant{chunks: 1, n: 16, usage: true, end: EndFinish, responseModel: "served", finish: "incomplete"}},
	{name: "Responses body failed", path: "/v1/responses", request: responsesUnstreamed, header: jsonType, pieces: []string{
		`{"id":"resp_4","object":"response","status":"failed","model":"served",` +
			`"error":{"code":"server_error","message":"The model failed to generate a response."},"output":[],"usage":null}`},
		want: modeWant{status: llmmetrics.StatusError, message: "The model failed to generate a response.", errCode: "server_error", responseModel: ""}},
	{name: "CR line ends", pieces: []string{strings.ReplaceAll(chunk("a")+chunk("b")+finishChunk+usageChunk+doneEvent, "\n", "\r")},
		want: modeWant{chunks: 2, n: 2, usage: true, streamed: true, end: EndFinish, responseModel: "served", finish: "stop"}},
	{name: "CRLF line ends, split between CR and LF", pieces: func() []string {
		s := strings.ReplaceAll(chunk("a")+chunk("b")+finishChunk+usageChunk+doneEvent, "\n", "\r\n")
		i := strings.Index(s, "\r\n") + 1
		return []string{s[:i], s[i:]}
	}(),
		want: modeWant{chunks: 2, n: 2, usage: true, streamed: true, end: EndFinish, responseModel: "served", finish: "stop"}},
	{name: "single newlines between events", pieces: []string{strings.ReplaceAll(chunk("a")+chunk("b")+finishChunk+usageChunk+doneEvent, "\n\n", "\n")},
		// Framed by content: a data line that starts an object after one
		// that held a whole object is a new event.
		want: modeWant{chunks: 2, n: 2, usage: true, streamed: true, end: EndFinish, responseModel: "served", finish: "stop"}},
	{name: "gzip the caller asked for", encode: "gzip", header: map[string]string{"Content-Type": "text/event-stream"},
		pieces: []string{chunk("a"), chunk("b"), finishChunk, usageChunk, doneEvent},
		want:   modeWant{chunks: 2, n: 2, usage: true, streamed: true, end: EndFinish, responseModel: "served", finish: "stop"}},
	{name: "deflate the caller asked for", encode: "deflate", header: map[string]string{"Content-Type": "text/event-stream"},
		pieces: []string{chunk("a"), chunk("b"), finishChunk, usageChunk, doneEvent},
		want:   modeWant{chunks: 2, n: 2, usage: true, streamed: true, end: EndFinish, responseModel: "served", finish: "stop"}},
	{name: "[DONE] without a finish reason", pieces: []string{chunk("a"), usageChunk, doneEvent},
		want: modeWant{chunks: 1, n: 2, usage: true, streamed: true, end: EndDone, responseModel: "served"}},
	{name: "clean close without finish or [DONE]", pieces: []string{chunk("a"), chunk("b")},
		want: modeWant{chunks: 2, streamed: true, end: EndClose, responseModel: "served", noUsage: true}},
	{name: "truncated: the connection drops mid-stream", pieces: []string{chunk("a"), chunk("b")[:20]}, cut: true,
		want: modeWant{status: llmmetrics.StatusError, message: "cut off", chunks: 1, streamed: true, responseModel: "served"}},
	{name: "HTTP 429 with an error object", status: http.StatusTooManyRequests, pieces: []string{
		`{"error":{"message":"rate limited","type":"rate_limit_exceeded","code":"429"}}`},
		want: modeWant{status: llmmetrics.StatusError, message: "HTTP 429: rate limited", errType: "rate_limit_exceeded", errCode: "429"}},
	{name: "HTTP 404 from llama.cpp for an unknown model", status: http.StatusNotFound, pieces: []string{
		`{"error":{"code":404,"message":"model not found","type":"not_found_error"}}`},
		want: modeWant{status: llmmetrics.StatusError, message: "HTTP 404: model not found", errType: "not_found_error", errCode: "404"}},
	{name: "HTTP 200 with an empty body",
		want: modeWant{status: llmmetrics.StatusError, message: "no SSE event and no JSON value"}},
}

// upstream serves a mode.
func upstream(t *testing.T, m mode) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		h := w.Header()
		h.Set("Content-Type", "text/event-stream")
		for k, v := range m.header {
			h.Set(k, v)
		}
		if m.encode != "" {
			h.Set("Content-Encoding", m.encode)
		}
		if m.cut {
			h.Set("Content-Length", "100000")
		}
		status := m.status
		if status == 0 {
			status = http.StatusOK
		}
		w.WriteHeader(status)
		var out io.Writer = w
		var flush func()
		switch m.encode {
		case "gzip":
			z := gzip.NewWriter(w)
			out, flush = z, func() { z.Flush() }
			defer z.Close()
		case "deflate":
			z := zlib.NewWriter(w)
			out, flush = z, func() { z.Flush() }
			defer z.Close()
		}
		for _, p := range m.pieces {
			io.WriteString(out, p)
			if flush != nil {
				flush()
			}
			w.(http.Flusher).Flush()
		}
		if m.cut {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
		}
	}))
}

func (m mode) requestBody() string {
	if m.request != "" {
		return m.request
	}
	return `{"model":"asked","stream":true,"messages":[{"role":"user","content":"hi"}]}`
}

func (m mode) apiPath() string {
	if m.path != "" {
		return m.path
	}
	return "/v1/chat/completions"
}

// check compares a result with the mode's expectations.
func (m mode) check(t *testing.T, r *Result, srv *httptest.Server) {
	t.Helper()
	w := m.want
	rec := r.Record
	assert.Equal(t, w.status, rec.Status, rec.Message)
	if w.message != "" {
		assert.Contains(t, rec.Message, w.message)
	}
	assert.Equal(t, w.errType, r.ErrorType)
	assert.Equal(t, w.errCode, r.ErrorCode)
	assert.Len(t, rec.Chunks, w.chunks)
	assert.Equal(t, w.n, rec.CompletionTokens)
	assert.Equal(t, w.usage, r.UsageKnown)
	assert.Equal(t, w.noUsage, rec.NoUsage)
	if rec.Status == llmmetrics.StatusOK {
		assert.Equal(t, w.streamed, r.Streamed)
		assert.Equal(t, w.end, r.End)
		assert.Equal(t, w.finish, r.Finish)
	}
	assert.Equal(t, w.responseModel, r.ResponseModel)
	if n := len(rec.Chunks); n > 0 {
		assert.GreaterOrEqual(t, r.Duration, rec.Chunks[n-1], "the response ends after its last chunk")
	}
	status := m.status
	if status == 0 {
		status = http.StatusOK
	}
	assert.Equal(t, status, r.HTTPStatus)
	// The attributes every result carries.
	assert.Equal(t, "asked", r.RequestModel)
	assert.Equal(t, "127.0.0.1", r.ServerAddress)
	_, port, _ := strings.Cut(strings.TrimPrefix(srv.URL, "http://"), ":")
	assert.Equal(t, port, strconv.Itoa(r.ServerPort))
	// A record the observer calls ok validates, and llmmetrics reads its
	// TTFT whenever text came.
	if rec.Status == llmmetrics.StatusOK {
		require.NoError(t, rec.Validate())
		if w.chunks > 0 {
			_, err := rec.TTFT()
			require.NoError(t, err)
		}
	}
}

// Every mode, read by the Observer and through the Transport (reading all
// at once and a few bytes at a time), gives the expected result; the
// Transport's caller gets the body as the server sent it.
func TestUpstreamModes(t *testing.T) {
	for _, m := range modes {
		t.Run(m.name, func(t *testing.T) {
			srv := upstream(t, m)
			defer srv.Close()
			api, _ := APIOf(m.apiPath())

			req, _ := http.NewRequest(http.MethodPost, srv.URL+m.apiPath(), strings.NewReader(m.requestBody()))
			if m.encode != "" {
				req.Header.Set("Accept-Encoding", m.encode)
			}
			direct, err := (&Observer{}).Do(req, api, "d")
			require.NoError(t, err)
			m.check(t, direct, srv)

			for _, size := range []int{1 << 16, 5} {
				var got []*Result
				var mu sync.Mutex
				client := &http.Client{Transport: &Transport{OnResult: func(r *Result) { mu.Lock(); got = append(got, r); mu.Unlock() }}}
				req, _ := http.NewRequest(http.MethodPost, srv.URL+m.apiPath(), strings.NewReader(m.requestBody()))
				if m.encode != "" {
					req.Header.Set("Accept-Encoding", m.encode)
				}
				resp, err := client.Do(req)
				require.NoError(t, err)
				var body bytes.Buffer
				buf := make([]byte, size)
				for {
					n, err := resp.Body.Read(buf)
					body.Write(buf[:n])
					if err != nil {
						break
					}
				}
				resp.Body.Close()
				require.Len(t, got, 1)
				m.check(t, got[0], srv)
				if m.encode == "" && !m.cut {
					assert.Equal(t, strings.Join(m.pieces, ""), body.String(), "the caller's body is untouched")
				}
				if m.encode == "gzip" {
					zr, err := gzip.NewReader(&body)
					require.NoError(t, err)
					plain, _ := io.ReadAll(zr)
					assert.Equal(t, strings.Join(m.pieces, ""), string(plain), "the caller gets its gzip body as sent")
				}
			}
		})
	}
}

// With IncludeUsage, a streaming chat request without include_usage asks
// for it; one that says either way, and a non-streaming one, are sent as
// they were.
func TestIncludeUsage(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		seen = append(seen, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chunk("a")+finishChunk+doneEvent)
	}))
	defer srv.Close()
	client := &http.Client{Transport: &Transport{IncludeUsage: true, OnResult: func(*Result) {}}}
	for _, body := range []string{
		`{"model":"m","stream":true}`,
		`{"model":"m","stream":true,"stream_options":{"include_usage":false}}`,
		`{"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true}}`,
		`{"model":"m","stream":false}`,
	} {
		resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(body))
		require.NoError(t, err)
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	require.Len(t, seen, 4)
	assert.JSONEq(t, `{"model":"m","stream":true,"stream_options":{"include_usage":true}}`, seen[0])
	assert.Equal(t, `{"model":"m","stream":true,"stream_options":{"include_usage":false}}`, seen[1])
	assert.JSONEq(t, `{"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true,"include_usage":true}}`, seen[2])
	assert.Equal(t, `{"model":"m","stream":false}`, seen[3])

	// Without the option the body is sent byte for byte.
	seen = nil
	client = &http.Client{Transport: &Transport{OnResult: func(*Result) {}}}
	resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m", "stream":true}`))
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Equal(t, []string{`{"model":"m", "stream":true}`}, seen)
}

// errorOf reads each server's error shape.
func TestErrorOf(t *testing.T) {
	for _, c := range []struct {
		in             string
		msg, typ, code string
	}{
		{`{"error":{"message":"m","type":"t","code":400}}`, "m", "t", "400"},
		{`{"code":500,"message":"m","type":"server_error"}`, "m", "server_error", "500"},
		{`{"object":"error","message":"m","type":"t","code":500}`, "m", "t", "500"},
		{`{"error":"m","error_type":"validation"}`, "m", "validation", ""},
		{`{"error":"m"}`, "m", "", ""},
		{`{"detail":"Not Found"}`, "Not Found", "", ""},
		{`{"type":"error","code":"server_error","message":"m"}`, "m", "", "server_error"},
		{`"plain"`, "plain", "", ""},
		{`oops`, "oops", "", ""},
	} {
		f := errorOf([]byte(c.in))
		assert.Equal(t, serverError{c.msg, c.typ, c.code}, f, c.in)
	}
}
