package observe

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/llmmetrics/llmmetrics"
)

// Transport is an http.RoundTripper that observes every streaming call
// passing through it and hands each finished Result to OnResult, leaving
// the caller's stream untouched: the caller reads the same bytes, as they
// arrive. A Go service measures its real traffic by giving its client
// (openai-go, go-openai, langchaingo and the like all accept a custom
// *http.Client) a Transport.
//
// A call is observed when its URL path names a known endpoint (see APIOf)
// and its response streams (Content-Type text/event-stream or NDJSON) or
// fails; other calls pass through unobserved. The Result is handed over
// once, when the caller has read the body to its end or closed it (a body
// closed before the stream's end is StatusCancelled), or when the call
// failed.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// OnResult receives each finished Result. It is called from the
	// goroutine that read or closed the body, so it should be quick; it
	// must be safe for concurrent use.
	OnResult func(*Result)
	// Epoch is the zero of Record.Sent; the zero Epoch means the time of
	// the first call.
	Epoch time.Time
	// ID names a request's record; nil means a sequence number ("1", "2",
	// …) in the order the calls began.
	ID func(*http.Request) string
	// Now returns the time; nil means time.Now.
	Now func() time.Time

	once sync.Once
	seq  atomic.Int64
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// RoundTrip sends req through Base, observing it when it is a streaming
// call to a known endpoint.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	api, known := APIOf(req.URL.Path)
	if !known || t.OnResult == nil {
		return base.RoundTrip(req)
	}
	t.once.Do(func() {
		if t.Epoch.IsZero() {
			t.Epoch = t.now()
		}
	})
	id := strconv.FormatInt(t.seq.Add(1), 10)
	if t.ID != nil {
		id = t.ID(req)
	}
	res := newResult(api, id, t.now())
	st := &sendTrace{now: t.now}
	ctx := req.Context()
	resp, err := base.RoundTrip(req.WithContext(httptrace.WithClientTrace(ctx, st.hooks())))
	wrote := st.settle(res, t.Epoch)
	if err != nil {
		res.failed(ctx, err)
		t.OnResult(res)
		return resp, err
	}
	res.HTTPStatus = resp.StatusCode
	ct := resp.Header.Get("Content-Type")
	streaming := strings.Contains(ct, "event-stream") || strings.Contains(ct, "ndjson")
	switch {
	case resp.StatusCode != http.StatusOK:
		resp.Body = &failedBody{ReadCloser: resp.Body, res: res, code: resp.StatusCode, done: t.OnResult}
	case streaming:
		ob := &observedBody{ReadCloser: resp.Body, res: res, s: newStream(api, wrote), now: t.now, ctx: ctx, done: t.OnResult}
		ob.p = pusher{lines: lines{ndjson: api == Ollama || strings.Contains(ct, "ndjson")}, emit: ob.s.event}
		resp.Body = ob
	}
	return resp, nil
}

// observedBody passes a streaming body to its reader and frames the bytes
// as they go by.
type observedBody struct {
	io.ReadCloser
	res  *Result
	s    *stream
	p    pusher
	now  func() time.Time
	ctx  context.Context
	done func(*Result)
	once sync.Once
}

func (b *observedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		b.p.push(p[:n], b.now())
	}
	if err != nil {
		readErr := err
		if err == io.EOF {
			readErr = nil
		}
		b.finish(readErr)
	}
	return n, err
}

// Close closes the body; a stream closed before its end is cancelled by
// its caller.
func (b *observedBody) Close() error {
	b.finish(errClosedEarly)
	return b.ReadCloser.Close()
}

var errClosedEarly = errors.New("observe: the caller closed the stream before its end")

func (b *observedBody) finish(readErr error) {
	b.once.Do(func() {
		b.p.end(b.now())
		if readErr == nil && b.p.err != nil {
			readErr = b.p.err
		}
		ctx := b.ctx
		if readErr == errClosedEarly {
			ctx = cancelledContext{ctx}
			if b.s.finished || b.s.done {
				readErr = nil // closed after the end: nothing was lost
			}
		}
		b.res.finish(b.s, readErr, ctx)
		b.done(b.res)
	})
}

// cancelledContext reports Canceled, so that a stream its caller closed
// early counts as cancelled.
type cancelledContext struct{ context.Context }

func (cancelledContext) Err() error { return context.Canceled }

// failedBody passes an error response's body to its reader, keeping its
// first 64 KiB for the error message.
type failedBody struct {
	io.ReadCloser
	res  *Result
	code int
	kept []byte
	done func(*Result)
	once sync.Once
}

func (b *failedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := 64<<10 - len(b.kept); room > 0 {
		b.kept = append(b.kept, p[:min(n, room)]...)
	}
	if err != nil {
		b.finish()
	}
	return n, err
}

func (b *failedBody) Close() error {
	b.finish()
	return b.ReadCloser.Close()
}

func (b *failedBody) finish() {
	b.once.Do(func() {
		b.res.Record.Status = llmmetrics.StatusError
		b.res.Record.Message = httpErrorMessage(b.code, b.kept)
		b.done(b.res)
	})
}
