package drive

import (
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"sync"
	"syscall"
	"time"
)

// DefaultTLSHandshake bounds a TLS handshake: on a loopback or a LAN it
// takes milliseconds, across the internet a few round trips, so 5 s is
// generous for both, where Go's transport waits 10 s. A plan's Stall, when
// shorter, bounds it too (see Plan.TLSHandshake).
const DefaultTLSHandshake = 5 * time.Second

// TLSHandshake returns how long a request of the plan waits for the
// server's side of a TLS handshake: DefaultTLSHandshake, or the plan's
// Stall when shorter (no byte from the server for that long is a stall).
// It applies to the plan's own client, not to a Client the plan gives.
func (p Plan) TLSHandshake() time.Duration {
	if p.Stall > 0 && p.Stall < DefaultTLSHandshake {
		return p.Stall
	}
	return DefaultTLSHandshake
}

// A HandshakeError is a request to an https:// URL whose TLS handshake
// failed in the way a server that speaks plain HTTP makes it fail: Reason
// says so, and Try is the request's URL with http://. It wraps the
// transport's error, and a timeout is still a timeout. Every request
// through a plan's client (NewClient) that fails so returns one, inside
// the *url.Error of net/http.
type HandshakeError struct {
	Reason string
	Try    string
	err    error
}

// Error returns the reason and the URL to try.
func (e *HandshakeError) Error() string { return e.Reason + "; try " + e.Try }

// Unwrap returns the transport's own error.
func (e *HandshakeError) Unwrap() error { return e.err }

// Timeout says whether the handshake timed out, as the transport's error
// does (net/url's Error asks the error it holds, not the chain).
func (e *HandshakeError) Timeout() bool {
	var t interface{ Timeout() bool }
	return errors.As(e.err, &t) && t.Timeout()
}

// tlsTransport explains a failed TLS handshake. A server that speaks plain
// HTTP, addressed as https://, either answers the client's hello with an
// HTTP error (Go's TLS then finds that the first record does not look like
// a TLS handshake), or waits for a request line that never comes, until
// the handshake times out or the server closes the connection; the
// transport's own words ("net/http: TLS handshake timeout") do not say why.
type tlsTransport struct {
	base  http.RoundTripper
	limit time.Duration // the handshake's limit, when the plan's client set it; 0 otherwise
}

func (t tlsTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.URL.Scheme != "https" {
		return t.base.RoundTrip(req)
	}
	var hs handshake
	ctx := httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
		TLSHandshakeStart: hs.start,
		TLSHandshakeDone:  hs.done,
	})
	resp, err := t.base.RoundTrip(req.WithContext(ctx))
	if err != nil {
		err = hs.explain(err, req.URL, t.limit)
	}
	return resp, err
}

// handshake is what a request's trace saw of its TLS handshake.
type handshake struct {
	mu      sync.Mutex
	started bool
	ok      bool // it completed
}

func (h *handshake) start() {
	h.mu.Lock()
	h.started = true
	h.mu.Unlock()
}

func (h *handshake) done(_ tls.ConnectionState, err error) {
	h.mu.Lock()
	h.ok = err == nil
	h.mu.Unlock()
}

// explain returns err said again when the request failed in its TLS
// handshake as against a plain HTTP server, and err as it is otherwise.
// limit is the handshake's limit, 0 when unknown.
func (h *handshake) explain(err error, u *url.URL, limit time.Duration) error {
	h.mu.Lock()
	started, ok := h.started, h.ok
	h.mu.Unlock()
	plain := *u
	plain.Scheme = "http"
	say := func(reason string) error { return &HandshakeError{Reason: reason, Try: plain.String(), err: err} }
	var header tls.RecordHeaderError
	var timeout interface{ Timeout() bool }
	var stall stalled
	switch {
	case errors.As(err, &header) && string(header.RecordHeader[:]) == "HTTP/":
		return say("the server answered the TLS handshake in plain HTTP: it speaks HTTP, not HTTPS")
	case errors.As(err, &header):
		return say(fmt.Sprintf("the server's first reply is not TLS (%v): it seems to speak plain HTTP, not HTTPS", err))
	case !started || ok:
		return err
	case errors.As(err, &timeout) && timeout.Timeout():
		in := ""
		if !errors.As(err, &stall) && limit > 0 {
			in = fmt.Sprintf(" in %v", limit) // the stall's own words say how long
		}
		return say(fmt.Sprintf("the TLS handshake got no answer%s (%v): the server seems to speak plain HTTP (it waits for a request line), not HTTPS", in, err))
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.ECONNRESET):
		return say(fmt.Sprintf("the server closed the connection during the TLS handshake (%v): it may speak plain HTTP, not HTTPS", err))
	}
	return err // a certificate refused, an interrupt: not a matter of the scheme
}
