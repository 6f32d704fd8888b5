package drive

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/llmmetrics/llmmetrics/observe"
)

// Default limits of a request, which a Plan's zero Timeout and Stall take.
const (
	DefaultTimeout = 10 * time.Minute // a whole request, from the call to the stream's end
	DefaultStall   = 2 * time.Minute  // no byte from the server
)

// stalled is the error of a request whose server sent no byte for the
// plan's Stall: it reports itself as a timeout, so the request is recorded
// as one.
type stalled struct{ after time.Duration }

func (e stalled) Error() string {
	return fmt.Sprintf("the server sent no byte for %v (the stall timeout)", e.after)
}

func (stalled) Timeout() bool { return true }

// slowHead is the error of a request whose server began its response head
// but had not finished it the plan's Stall after its last sign of life: a
// timeout, named apart from a server that sent nothing.
type slowHead struct{ after time.Duration }

func (e slowHead) Error() string {
	return fmt.Sprintf("the server sent its response head too slowly: it began, and was not complete %v later (the stall timeout)", e.after)
}

func (slowHead) Timeout() bool { return true }

// NewClient returns the client a plan's requests go through, for other
// requests to its server (what the server says of itself at /version,
// say): p.Client, or one that opens a connection for each request (with
// p.KeepAlive, one whose pool keeps enough for the plan, and which sends
// a request again, on a fresh connection, only when its reused connection
// ended before the server could have received it: see keepAliveTransport)
// and waits p.TLSHandshake() for a TLS handshake; wrapped so that a request whose
// server sends nothing for the plan's Stall fails as a timeout, and so
// that a handshake that fails as against a server of plain HTTP returns a
// *HandshakeError that says so. The client is the caller's to change (its
// Timeout, say).
func NewClient(p Plan) *http.Client {
	base := p.Client
	var limit time.Duration
	if base == nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.MaxIdleConnsPerHost = max(p.Concurrency, 100)
		tr.DisableKeepAlives = !p.KeepAlive
		tr.TLSHandshakeTimeout = p.TLSHandshake()
		limit = tr.TLSHandshakeTimeout
		base = &http.Client{Transport: tr}
		if p.KeepAlive {
			base.Transport = newKeepAlive(tr)
		}
	}
	c := *base
	rt := c.Transport
	if rt == nil {
		rt = http.DefaultTransport
	}
	stall := p.Stall
	if stall == 0 {
		stall = DefaultStall
	}
	if stall > 0 {
		rt = stallTransport{base: rt, stall: stall}
	}
	c.Transport = tlsTransport{base: rt, limit: limit}
	return &c
}

// stallTransport fails a request when its server sends no byte for stall:
// while the response's head is awaited, and between reads of its body.
type stallTransport struct {
	base  http.RoundTripper
	stall time.Duration
}

func (t stallTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ctx, cancel := context.WithCancel(req.Context())
	w := &watchdog{stall: t.stall, cancel: cancel}
	w.timer = time.AfterFunc(t.stall, w.fire)
	ctx = httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{GotFirstResponseByte: w.headBegan})
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		w.stop()
		if w.fired() {
			if w.began() {
				return nil, slowHead{t.stall}
			}
			return nil, stalled{t.stall}
		}
		return nil, err
	}
	w.timer.Reset(t.stall)
	resp.Body = &watchedBody{ReadCloser: resp.Body, w: w}
	return resp, nil
}

// watchdog cancels a request's context when its timer fires.
type watchdog struct {
	stall  time.Duration
	cancel context.CancelFunc
	timer  *time.Timer
	mu     sync.Mutex
	hit    bool
	head   bool // the response head's first byte came
}

// headBegan notes the head's first byte, a sign of life: the wait begins
// again.
func (w *watchdog) headBegan() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.head = true
	if !w.hit {
		w.timer.Reset(w.stall)
	}
}

func (w *watchdog) began() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.head
}

func (w *watchdog) fire() {
	w.mu.Lock()
	w.hit = true
	w.mu.Unlock()
	w.cancel()
}

func (w *watchdog) fired() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.hit
}

func (w *watchdog) stop() {
	w.timer.Stop()
	w.cancel()
}

// watchedBody restarts the watchdog at every byte read, and reports a
// stall as stalled.
type watchedBody struct {
	io.ReadCloser
	w *watchdog
}

func (b *watchedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if n > 0 && !b.w.fired() {
		b.w.timer.Reset(b.w.stall)
	}
	if err != nil && err != io.EOF && b.w.fired() {
		err = stalled{b.w.stall}
	}
	return n, err
}

func (b *watchedBody) Close() error {
	b.w.stop()
	return b.ReadCloser.Close()
}

// newRequest builds the request of the plan for one prompt: a streaming
// one, unless the plan's copy for it says unstreamed.
//
// Go's transport re-sends a request whose body it can rewind (GetBody)
// when a kept-alive connection turns out closed, and the re-sent request
// could be a second request the server received but the file holds once;
// so GetBody is nil, except for the plan's own keep-alive client
// (p.Client nil, p.KeepAlive), whose transport takes it off every attempt
// and sends a request again only when it can show the server never had
// its body (see keepAliveTransport). A dropped connection is otherwise a
// failure, with its reason.
func newRequest(ctx context.Context, p Plan, path, prompt string, maxTokens int) (*http.Request, error) {
	b, err := body(p.API, path, p.Model, prompt, maxTokens, p.unstreamed, p.extra(maxTokens))
	if err != nil {
		return nil, err
	}
	u, err := requestURL(p)
	if err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, u, nil)
	if err != nil {
		return nil, err
	}
	req.Body, req.ContentLength = io.NopCloser(bytes.NewReader(b)), int64(len(b))
	if p.Client == nil && p.KeepAlive {
		// For the plan's keep-alive transport alone, which never passes it on.
		req.GetBody = func() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(b)), nil }
	}
	req.Header.Set("Content-Type", "application/json")
	for k, vs := range p.Header {
		req.Header[k] = slices.Clone(vs)
	}
	return req, nil
}

// tgiStream and tgiWhole are TGI's routes of a streamed and of a whole
// answer.
const tgiStream, tgiWhole = "/generate_stream", "/generate"

// requestURL is where a request of the plan goes: its URL, but for TGI's
// unstreamed request, which goes to /generate in place of the URL's
// /generate_stream (a URL without it is refused, before anything is sent:
// see checkReplay).
func requestURL(p Plan) (string, error) {
	if !p.unstreamed || p.API != observe.TGI {
		return p.URL, nil
	}
	u, err := url.Parse(p.URL)
	if err != nil || !strings.HasSuffix(u.Path, tgiStream) {
		return "", fmt.Errorf("drive: a TGI request sent without streaming goes to %s: the URL %q does not end in %s", tgiWhole, p.URL, tgiStream)
	}
	u.Path = strings.TrimSuffix(u.Path, tgiStream) + tgiWhole
	u.RawPath = ""
	return u.String(), nil
}
