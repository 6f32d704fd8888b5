package observe

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
)

// Transport is an http.RoundTripper that observes every call to a known
// endpoint passing through it and hands each finished Result to OnResult,
// leaving the caller's response untouched: the caller reads the same
// bytes, as they arrive. A Go service measures its real traffic by giving
// its client (openai-go, go-openai, langchaingo and the like all accept a
// custom *http.Client) a Transport.
//
// A call is observed when its URL path names a known endpoint (see APIOf);
// other calls pass through unobserved. Every observed call gives one
// Result: streams (SSE or NDJSON), non-streaming replies (one JSON body),
// HTTP errors with the server's message, and calls that got no response.
// The body is framed by its content, whatever its Content-Type, with CR,
// LF or CRLF line ends; a gzip or deflate body the caller asked for is
// decoded for the observation and passed on still encoded. The Result is
// handed over once, when the caller has read the body to its end or closed
// it (a body closed before the stream's end is StatusCancelled), or when
// the call failed.
//
// The Transport reads a request's JSON body (up to 8 MiB) before sending
// it, for its model (Result.RequestModel) and, with IncludeUsage, to ask
// for usage; the body sent is the same bytes unless IncludeUsage changed
// them. A larger body is sent as it is, unread: its RequestModel is "" and
// IncludeUsage does not apply to it.
//
// An HTTP error's Result carries the server's message, type and code from
// the first 64 KiB of its body, also when the caller closes the body
// unread: Close then reads that much first, waiting at most a second for
// a server that stalls inside its error body.
type Transport struct {
	// Base sends the requests; nil means http.DefaultTransport.
	Base http.RoundTripper
	// OnResult receives each finished Result. It is called from the
	// goroutine that read or closed the body, so it should be quick; it
	// must be safe for concurrent use.
	OnResult func(*Result)
	// OnResultContext, when set, receives each finished Result too, with
	// the request's context (its trace, for exemplars). Either hook may
	// be set, or both.
	OnResultContext func(context.Context, *Result)
	// OnStart, when set, is called as each observed call begins, with its
	// request's context (for a gauge of calls in flight: every OnStart is
	// followed by one finished Result).
	OnStart func(context.Context)
	// Tracer, when set, traces every observed call (see Tracer): its
	// context, with the call's span, goes on the request sent and to
	// OnStart and OnResultContext. A Transport with a Tracer observes its
	// calls even without OnResult.
	Tracer Tracer
	// Epoch is the zero of Record.Sent; the zero Epoch means the time of
	// the first call.
	Epoch time.Time
	// ID names a request's record; nil means a sequence number ("1", "2",
	// …) in the order the calls began.
	ID func(*http.Request) string
	// Now returns the time; nil means time.Now.
	Now func() time.Time
	// Provider is the gen_ai.provider.name of the results; "" means the
	// wire API's (openai, ollama, tgi).
	Provider string
	// IncludeUsage asks the server for the output token count: a
	// streaming chat or completions request ("stream": true) whose body
	// has no stream_options.include_usage gets "include_usage": true
	// added (a request that sets it, to true or false, is left as it is).
	// Without it most servers send no usage to clients that do not ask,
	// and TPOT and the token rates cannot be computed (see
	// llmmetrics.CountState).
	//
	// What the calling client sees changes: the stream carries one more
	// event before [DONE], with "choices": [] and the usage, and servers
	// add "usage": null to every other chunk. The Transport passes these
	// on unchanged. A client that reads choices[0] of every chunk without
	// checking the length fails on the extra event; the official SDKs
	// handle it.
	IncludeUsage bool

	once sync.Once
	seq  atomic.Int64
}

func (t *Transport) now() time.Time {
	if t.Now != nil {
		return t.Now()
	}
	return time.Now()
}

// RoundTrip sends req through Base, observing it when it is a call to a
// known endpoint.
func (t *Transport) RoundTrip(req *http.Request) (*http.Response, error) {
	base := t.Base
	if base == nil {
		base = http.DefaultTransport
	}
	api, known := APIOf(req.URL.Path)
	if !known || t.OnResult == nil && t.OnResultContext == nil && t.Tracer == nil {
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
	body, facts, err := t.readBody(req, api)
	res.describe(req, api, t.Provider, facts)
	header := req.Header
	var endTrace func(*Result)
	if t.Tracer != nil {
		header = ownHeader(req.Header)
		ctx, endTrace = startTrace(t.Tracer, ctx, header, res)
	}
	if t.OnStart != nil {
		t.OnStart(ctx)
	}
	done := func(r *Result) {
		if endTrace != nil {
			endTrace(r)
		}
		if t.OnResult != nil {
			t.OnResult(r)
		}
		if t.OnResultContext != nil {
			t.OnResultContext(ctx, r)
		}
	}
	if err != nil {
		st.settle(res, t.Epoch)
		res.failed(ctx, err)
		done(res)
		return nil, err
	}
	out := req.WithContext(httptrace.WithClientTrace(ctx, st.hooks()))
	out.Header = header
	body.setOn(out)
	resp, err := base.RoundTrip(out)
	wrote := st.settle(res, t.Epoch)
	ended := func(r *Result) {
		r.Duration = t.now().Sub(wrote)
		done(r)
	}
	if err != nil {
		res.failed(ctx, err)
		ended(res)
		return resp, err
	}
	res.HTTPStatus = resp.StatusCode
	if resp.StatusCode != http.StatusOK {
		resp.Body = &failedBody{ReadCloser: resp.Body, res: res, code: resp.StatusCode, done: ended}
		return resp, nil
	}
	ob := &observedBody{ReadCloser: resp.Body, res: res, s: newStream(api, wrote), now: t.now, ctx: ctx, done: ended}
	ob.p.emit = ob.s.event
	if enc := contentEncoding(resp); enc != "" {
		ob.in = newInflater(enc, &ob.p, t.now)
	}
	resp.Body = ob
	return resp, nil
}

// sentBody is the body a call sends: the caller's, unread (none, or one
// too long to read: rest), or the bytes read (b, read true).
type sentBody struct {
	rest io.ReadCloser
	b    []byte
	read bool
}

// readBody reads the body of req for what it says of the call (its
// model, its output limit, whether it streams), asks for usage when the
// Transport should, and returns the body to send. A body too long to read
// is sent as it is.
func (t *Transport) readBody(req *http.Request, api API) (sentBody, requestFacts, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return sentBody{}, factsOf(api, nil), nil
	}
	b, rest, ok, err := peekBody(req.Body)
	if err != nil {
		return sentBody{}, factsOf(api, nil), fmt.Errorf("observe: reading the request body: %w", err)
	}
	if !ok {
		return sentBody{rest: rest}, factsOf(api, nil), nil
	}
	if t.IncludeUsage && (api == Chat || api == Completions) {
		b = withUsage(b)
	}
	return sentBody{b: b, read: true}, factsOf(api, b), nil
}

// setOn sets the body on out, a copy of the caller's request.
func (sb sentBody) setOn(out *http.Request) {
	switch {
	case sb.read:
		b := sb.b
		out.Body = io.NopCloser(bytes.NewReader(b))
		out.ContentLength = int64(len(b))
		out.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	case sb.rest != nil:
		out.Body = sb.rest
	}
}

// observedBody passes a response body to its reader and frames the bytes
// as they go by (decoded first, by in, when they are compressed).
type observedBody struct {
	io.ReadCloser
	res  *Result
	s    *stream
	p    pusher
	in   *inflater
	now  func() time.Time
	last time.Time
	ctx  context.Context
	done func(*Result)
	once sync.Once
}

func (b *observedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 {
		if b.in != nil {
			b.in.write(p[:n])
		} else {
			b.last = b.now()
			b.p.push(p[:n], b.last)
		}
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
		if b.in != nil {
			if err := b.in.close(); err != nil && readErr == nil {
				readErr = err
			}
		} else {
			b.p.end(b.last)
		}
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
		b.res.finish(b.s, &b.p, readErr, ctx)
		b.done(b.res)
	})
}

// cancelledContext reports Canceled, so that a stream its caller closed
// early counts as cancelled.
type cancelledContext struct{ context.Context }

func (cancelledContext) Err() error { return context.Canceled }

// failedBody passes an error response's body to its reader, keeping its
// first 64 KiB for the error message. A caller that closes it unread (many
// check the status and stop there) still gets the server's words in the
// Result: Close reads what it keeps first, for at most drainLimit.
type failedBody struct {
	io.ReadCloser
	res   *Result
	code  int
	kept  []byte
	ended bool // the reader saw its end or an error
	done  func(*Result)
	once  sync.Once
}

// keepLimit is how much of an error body is kept; drainLimit how long
// Close waits for it when the caller read none or part of it.
const (
	keepLimit  = 64 << 10
	drainLimit = time.Second
)

func (b *failedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if room := keepLimit - len(b.kept); room > 0 {
		b.kept = append(b.kept, p[:min(n, room)]...)
	}
	if err != nil {
		b.ended = true
		b.finish()
	}
	return n, err
}

func (b *failedBody) Close() error {
	if !b.ended {
		b.drain()
	}
	b.finish()
	return b.ReadCloser.Close()
}

// drain reads the rest of what the body keeps, giving up after drainLimit
// (a server that stalls its error body) by closing the body under the
// read.
func (b *failedBody) drain() {
	room := keepLimit - len(b.kept)
	if room <= 0 {
		return
	}
	got := make(chan []byte, 1)
	go func() {
		rest, _ := io.ReadAll(io.LimitReader(b.ReadCloser, int64(room)))
		got <- rest
	}()
	t := time.NewTimer(drainLimit)
	defer t.Stop()
	select {
	case rest := <-got:
		b.kept = append(b.kept, rest...)
	case <-t.C:
		b.ReadCloser.Close() // ends the read
		b.kept = append(b.kept, <-got...)
	}
}

func (b *failedBody) finish() {
	b.once.Do(func() {
		b.res.httpFailed(b.code, b.kept)
		b.done(b.res)
	})
}

// An inflater decodes a compressed body for the observation as the
// caller reads it: the bytes go through a pipe to a goroutine that
// decodes them and frames what comes out, stamped as it comes.
type inflater struct {
	pw   *io.PipeWriter
	done chan struct{}
	err  error
}

func newInflater(enc string, p *pusher, now func() time.Time) *inflater {
	pr, pw := io.Pipe()
	in := &inflater{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(in.done)
		err := read(&lazyDecoder{enc: enc, r: pr}, p, now)
		if err != nil {
			in.err = fmt.Errorf("observe: decoding the %s body: %w", enc, err)
		}
		io.Copy(io.Discard, pr) // whatever follows, so that writes never block
	}()
	return in
}

// write hands the decoder bytes as they arrived; it returns once they
// have been taken.
func (in *inflater) write(b []byte) { in.pw.Write(b) }

// close ends the body and waits for the decoder; it returns its error.
func (in *inflater) close() error {
	in.pw.Close()
	<-in.done
	return in.err
}
