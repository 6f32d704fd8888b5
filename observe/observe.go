package observe

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

var errLongEvent = errors.New("observe: a streamed event longer than 16 MiB")

// A Result is one observed request: its llmmetrics record and what the
// record does not hold.
type Result struct {
	// Record is the request as llmmetrics reads it. Its Sent is when the
	// request had been written to the connection (httptrace's
	// WroteRequest), from the Observer's epoch; its Chunks are the arrivals
	// of the text-bearing events, stamped as their bytes arrived; its token
	// counts come from the server's usage only.
	Record llmmetrics.Record
	API    API

	// The observer always fills Record.Client: the client's own wait
	// before the request was written (a connection from the pool, a dial,
	// TLS; never inside TTFT), the first answer (non-reasoning) chunk, and
	// the reasoning and cached prompt tokens where usage gave them.

	// Started is when the call began (wall clock); ConnWait is the part of
	// Record.Client.Wait spent obtaining a connection.
	Started  time.Time
	ConnWait time.Duration
	// Unwritten says the call failed before any of the request was
	// written to a connection (a dial, a TLS handshake, a context ended
	// first): the server never saw it. Over HTTP/2 the request's headers
	// are known written only once their frame is, so a failure in that
	// instant leaves it true.
	Unwritten bool
	// Duration is the time from the send (Record.Sent) to the end of the
	// response: its last byte, the failure, or the caller's close. It
	// is what gen_ai.client.operation.duration records of a request that
	// failed, which has no last chunk to end it.
	Duration time.Duration

	// UsageKnown is false when the server reported no output token count:
	// n is then unknown (never a chunk count), Record.CompletionTokens is 0
	// and, when text arrived, Record.NoUsage is set.
	UsageKnown bool

	HTTPStatus int
	Finish     string // the finish reason the server gave
	// End says how a response read to its end ended (see End).
	End End
	// Streamed is false for a reply that came as one JSON body (a
	// non-streaming call, or a server that ignored "stream"): its text
	// arrived at once, so its one chunk is the body's end and its TTFT is
	// its E2E, not a time to first token of a stream.
	Streamed bool

	// What the semantic conventions' gen_ai and server attributes need:
	// the model the request asked for and the model the response named,
	// the operation (chat, text_completion, generate_content), the
	// provider (Transport.Provider, or the wire API's: openai, ollama,
	// tgi), and the server's address and port from the URL.
	RequestModel, ResponseModel string
	Operation, Provider         string
	ServerAddress               string
	ServerPort                  int
	// ResponseID is the id the response gave itself ("chatcmpl-…", the
	// Responses API's response.id), "" where it gave none (Ollama, TGI).
	ResponseID string
	// RequestStream says whether the request asked for a stream (its
	// body's "stream": true; Ollama's default; TGI's /generate_stream),
	// where its body was read (StreamKnown). Record.MaxTokens is its
	// output limit where it gave one.
	RequestStream, StreamKnown bool

	// ErrorType and ErrorCode are the server's own type and code of the
	// error that failed the request (in its body or inside its stream),
	// where it gave them: "invalid_request_error", "BadRequestError",
	// "overloaded", "404". Record.Message holds its message.
	ErrorType, ErrorCode string

	// CachedTokens is how many of the prompt's tokens the server took
	// from its prefix cache, where it said (usage's
	// prompt_tokens_details.cached_tokens or input_tokens_details, or
	// llama.cpp's timings.cache_n); CacheKnown is false where it did not.
	CachedTokens int
	CacheKnown   bool

	// Timings is the server's own timing object where the stream carried
	// one (vLLM's per-request metrics, llama.cpp's timings, Ollama's
	// durations, Groq's x_groq.usage), with its source; see WriteTimings.
	Timings       json.RawMessage
	TimingsSource string

	// Text is the answer's text, its content deltas (chat) or text
	// (completions) joined in order, where the Observer's KeepText asked
	// for it; reasoning and tool calls are not in it.
	Text string
}

// End is how a response that was read to its end ended.
type End uint8

const (
	// EndNone: the response was not read to its end (it failed, or the
	// caller closed it early).
	EndNone End = iota
	// EndFinish: the server said the reply was complete — a finish
	// reason, response.completed, Ollama's done, TGI's generated_text.
	EndFinish
	// EndDone: [DONE] came, but no finish reason before it.
	EndDone
	// EndClose: the server closed the stream cleanly (the HTTP body
	// ended as framed) with neither a finish nor [DONE]. It is recorded
	// ok: a truncation is a read error (an unexpected EOF), which fails
	// the request.
	EndClose
)

var endNames = [...]string{"none", "finish", "done", "close"}

// String returns the end's name: none, finish, done or close.
func (e End) String() string {
	if int(e) < len(endNames) {
		return endNames[e]
	}
	return fmt.Sprintf("End(%d)", uint8(e))
}

// An Observer sends streaming requests and records what it sees. Its
// Do may be called from several goroutines at once; its fields must not
// change once the first call has begun.
type Observer struct {
	// Client sends the requests; nil means http.DefaultClient.
	Client *http.Client
	// Epoch is the run's start: Record.Sent is measured from it, on the
	// monotonic clock. The zero Epoch means the first call's start, set
	// once by that call.
	Epoch time.Time
	// Now returns the time; nil means time.Now. Tests replace it.
	Now func() time.Time
	// KeepText keeps the answer's text in Result.Text (chat and
	// completions), for a caller that sends it back, as a multi-turn
	// session does. Off, the stream's text is never copied.
	KeepText bool

	once sync.Once // sets a zero Epoch
}

func (o *Observer) now() time.Time {
	if o.Now != nil {
		return o.Now()
	}
	return time.Now()
}

// Do sends req, reads its response to the end and returns what it
// observed, with the record named id. The response is framed by its
// content (SSE, NDJSON, or one JSON body for a non-streaming call), with
// CR, LF or CRLF line ends, gzip or deflate as the server encoded it.
// Failures of the request are part of the Result, not errors: an HTTP
// status other than 200, an error reported in the stream, or a stream cut
// off before its end is StatusError with the server's message; a deadline
// is StatusTimeout and a cancelled context StatusCancelled. Do returns an
// error only for a request it cannot send at all (nil, or not absolute).
func (o *Observer) Do(req *http.Request, api API, id string) (*Result, error) {
	if req == nil || req.URL == nil || !req.URL.IsAbs() {
		return nil, errors.New("observe: the request needs an absolute URL")
	}
	o.once.Do(func() {
		if o.Epoch.IsZero() {
			o.Epoch = o.now()
		}
	})
	client := o.Client
	if client == nil {
		client = http.DefaultClient
	}
	res := newResult(api, id, o.now())
	res.describe(req, api, "", requestFactsOf(req, api))
	st := &sendTrace{now: o.now}
	ctx := httptrace.WithClientTrace(req.Context(), st.hooks())
	resp, err := client.Do(req.WithContext(ctx))
	wrote := st.settle(res, o.Epoch)
	if err != nil {
		res.failed(ctx, err)
		res.Duration = o.now().Sub(wrote)
		return res, nil
	}
	defer resp.Body.Close()
	res.HTTPStatus = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		res.httpFailed(resp.StatusCode, b)
		res.Duration = o.now().Sub(wrote)
		return res, nil
	}
	s := newStream(api, wrote)
	if o.KeepText {
		s.kept = &strings.Builder{}
	}
	p := &pusher{emit: s.event}
	body, enc := decoded(resp)
	rerr := read(body, p, o.now)
	if rerr != nil && enc != "" && !isTransportError(rerr) {
		rerr = fmt.Errorf("observe: decoding the %s body: %w", enc, rerr)
	}
	res.finish(s, p, rerr, ctx)
	res.Duration = o.now().Sub(wrote)
	return res, nil
}

// newResult returns the result of a call that began at started.
func newResult(api API, id string, started time.Time) *Result {
	return &Result{API: api, Started: started, Record: llmmetrics.Record{ID: id, Client: &llmmetrics.ClientSide{}}}
}

// sendTrace notes, through httptrace, when a call obtained its connection
// and when its request was written (the last write, when the transport
// re-sent it). The hooks may run on the transport's goroutines.
type sendTrace struct {
	now            func() time.Time
	mu             sync.Mutex
	wrote, gotConn time.Time
	// began is set once the request's headers are written: over HTTP/1
	// to the connection's buffer, before they are flushed (all but
	// headers beyond its size), over HTTP/2 as their frame. A request
	// without it never reached the server whole.
	began atomic.Bool
}

func (st *sendTrace) hooks() *httptrace.ClientTrace {
	return &httptrace.ClientTrace{
		GotConn: func(httptrace.GotConnInfo) {
			st.mu.Lock()
			st.gotConn = st.now()
			st.mu.Unlock()
		},
		WroteHeaders: func() { st.began.Store(true) },
		WroteRequest: func(httptrace.WroteRequestInfo) {
			st.began.Store(true)
			st.mu.Lock()
			st.wrote = st.now()
			st.mu.Unlock()
		},
	}
}

// settle fills the send time and the client's wait once the round trip has
// returned, and returns the send time: now, for a request never written
// (the failure was at the send).
func (st *sendTrace) settle(r *Result, epoch time.Time) time.Time {
	st.mu.Lock()
	defer st.mu.Unlock()
	r.Unwritten = !st.began.Load()
	if st.wrote.IsZero() {
		st.wrote = st.now()
	}
	r.Record.Sent = st.wrote.Sub(epoch)
	r.Record.Client.Wait = st.wrote.Sub(r.Started)
	if !st.gotConn.IsZero() {
		r.ConnWait = st.gotConn.Sub(r.Started)
	}
	return st.wrote
}

// failed records a request that got no response.
func (r *Result) failed(ctx context.Context, err error) {
	r.Record.Status, r.Record.Message = outcome(ctx, err)
}

// outcome classifies a transport or read error.
func outcome(ctx context.Context, err error) (llmmetrics.Status, string) {
	switch {
	case errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded):
		return llmmetrics.StatusTimeout, err.Error()
	case errors.Is(err, context.Canceled) || errors.Is(ctx.Err(), context.Canceled):
		return llmmetrics.StatusCancelled, err.Error()
	}
	var te interface{ Timeout() bool }
	if errors.As(err, &te) && te.Timeout() {
		return llmmetrics.StatusTimeout, err.Error()
	}
	return llmmetrics.StatusError, err.Error()
}

// finish assembles the record from the stream, which p framed.
func (r *Result) finish(s *stream, p *pusher, readErr error, ctx context.Context) {
	rec := &r.Record
	rec.Chunks = s.chunks
	if len(s.chunks) == 0 {
		rec.Chunks = nil
	}
	if rec.Client == nil {
		rec.Client = &llmmetrics.ClientSide{}
	}
	c := rec.Client
	c.FirstAnswer, c.HasAnswer = s.firstAnswer, s.hasAnswer
	c.ReasoningTokens, c.HasReasoning = int(min(s.reasoning, llmmetrics.MaxCount)), s.hasReasoning
	if s.usage && s.reasoning > s.completion {
		// A count of reasoning tokens beyond the output tokens contradicts
		// them (a server counting them apart): not kept, so that the
		// record stays valid and a report never refuses it.
		c.ReasoningTokens, c.HasReasoning = 0, false
	}
	r.Finish = s.finish
	r.Streamed = p.lines.streamed()
	c.OneBody = !r.Streamed && len(s.chunks) > 0 // its text at once: no TTFT, whatever its count
	if s.model != "" {
		r.ResponseModel = s.model
	}
	r.ResponseID = s.id
	if s.kept != nil {
		r.Text = s.kept.String()
	}
	if s.timings != nil {
		r.Timings, r.TimingsSource = json.RawMessage(s.timings), s.timingsSource
	}
	rec.PromptTokens = int(min(s.prompt, llmmetrics.MaxCount))
	r.CachedTokens, r.CacheKnown = int(min(s.cached, llmmetrics.MaxCount)), s.hasCached
	c.CachedPromptTokens, c.HasCached = r.CachedTokens, r.CacheKnown // what WriteJSONL writes
	switch {
	case readErr != nil:
		rec.Status, rec.Message = outcome(ctx, readErr)
		if rec.Status == llmmetrics.StatusError && errors.Is(readErr, io.ErrUnexpectedEOF) {
			rec.Message = fmt.Sprintf("the stream was cut off before its end: %v (text-bearing events before the cut: %d)", readErr, len(s.chunks))
		}
		if rec.Status == llmmetrics.StatusError && r.HTTPStatus > 0 { // the head said how it began, as an error in the stream says
			rec.Message = fmt.Sprintf("HTTP %d, %s", r.HTTPStatus, rec.Message)
		}
	case s.errMsg != "":
		rec.Status, rec.Message = llmmetrics.StatusError, streamError(r.HTTPStatus, s.errType, s.errMsg)
		r.ErrorType, r.ErrorCode = s.errType, s.errCode
	case s.finished:
		r.End = EndFinish
	case s.done:
		r.End = EndDone
	case s.events == 0:
		rec.Status, rec.Message = llmmetrics.StatusError, "HTTP 200 with no SSE event and no JSON value in its body"
	default:
		r.End = EndClose
	}
	r.UsageKnown = s.usage
	if !s.usage {
		// n is unknown; with text seen, the record keeps what needs no n.
		rec.NoUsage = len(s.chunks) > 0 && rec.Status == llmmetrics.StatusOK
		return
	}
	rec.CompletionTokens = int(min(s.completion, llmmetrics.MaxCount))
	if rec.Status == llmmetrics.StatusOK && rec.CompletionTokens > 0 && len(s.chunks) == 0 {
		// Tokens were generated but none was shown (hidden reasoning, say):
		// there is no first token to time, and a record without chunk
		// arrivals would read as a TTFT of 0.
		rec.Status = llmmetrics.StatusError
		rec.Message = fmt.Sprintf("no text-bearing event, though usage reports %d output tokens (output the stream did not show): no TTFT can be measured", rec.CompletionTokens)
	}
	if s.tokensOK && len(s.chunkTokens) == len(s.chunks) && len(s.chunks) > 0 {
		var sum int64
		for _, t := range s.chunkTokens {
			sum += int64(t)
		}
		if sum == s.completion {
			rec.ChunkTokens = s.chunkTokens
		}
	}
}

// streamError is the message of an error the server reported inside a
// stream it began with HTTP status code (0 when unknown): the status, that
// the error came in the stream, the server's error type where it gave one,
// and its message, e.g. "HTTP 200, error in stream: server_error: out of
// memory". A report tallies it under its status.
func streamError(code int, typ, msg string) string {
	head := "error in stream: "
	if code > 0 {
		head = fmt.Sprintf("HTTP %d, %s", code, head)
	}
	if typ != "" {
		head += typ + ": "
	}
	return head + msg
}

// httpFailed records a response whose status is not 200, with the
// server's message, error type and code from its body (its first line
// where it has no error object).
func (r *Result) httpFailed(code int, body []byte) {
	f := errorOf(body)
	msg := f.msg
	if !json.Valid(body) || msg == "" {
		msg, _, _ = strings.Cut(strings.TrimSpace(string(body)), "\n")
	}
	r.Record.Status, r.Record.Message = llmmetrics.StatusError, fmt.Sprintf("HTTP %d: %s", code, msg)
	r.ErrorType, r.ErrorCode = f.typ, f.code
}
