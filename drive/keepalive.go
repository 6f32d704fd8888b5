package drive

import (
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"sync/atomic"
)

// keepAliveTransport sends a plan's requests over kept-alive connections
// without ever sending a request twice to a server that may have received
// it.
//
// A server may close a kept-alive connection whenever it likes:
// llama.cpp's server closes every connection right after its streamed
// response (while its headers said Keep-Alive), other servers at the end
// of their idle timeout. A request written on such a connection as the
// server closes it fails with the server's EOF (or a reset), and nothing
// the client sees then tells whether the server read the request first:
// re-sending it on that evidence could make two requests of one that the
// file holds once. Go's transport therefore re-sends a POST only when not
// a byte of it was written (and it can rewind the body), which catches few
// of these.
//
// So on a reused connection a request asks for the server's go-ahead
// before its body (Expect: 100-continue, RFC 9110 §10.1.1): the head is
// written, and the body, which holds the prompt, only once the server
// answered 100 Continue on that connection. When the connection ends
// before that answer and the body was never read, not a byte of the
// request's content left the client: the server had at most a head
// announcing a body it never asked for and never got, a request it cannot
// have acted on. Only then is the request sent again, once, on a fresh
// connection of its own (as without KeepAlive), and it is measured from
// that send: observe takes Sent from the last write of the request
// (httptrace's WroteRequest), and the failed attempt is part of the
// client's wait, never of TTFT. A failure after any byte of the body was
// read, or on a fresh connection, is the request's failure, never re-sent.
//
// The go-ahead costs a round trip on each reused connection, inside the
// client's wait (Sent is after the body), never inside TTFT. A server
// that ignores Expect gets the body after the transport's
// ExpectContinueTimeout (1 s); one that answers 417 fails the request with
// its words. HTTP/2 connections are left to the transport: it sends no
// Expect there, and its own retries are of streams the server refused by
// the protocol's word.
type keepAliveTransport struct {
	pooled *http.Transport // keeps connections
	fresh  *http.Transport // a connection for each request, for the re-send
}

// newKeepAlive returns the keep-alive transport over tr, whose
// DisableKeepAlives must be false.
func newKeepAlive(tr *http.Transport) keepAliveTransport {
	fresh := tr.Clone()
	fresh.DisableKeepAlives = true
	return keepAliveTransport{pooled: tr, fresh: fresh}
}

func (t keepAliveTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	if req.GetBody == nil || req.Body == nil || req.Body == http.NoBody || req.Header.Get("Expect") != "" {
		return t.pooled.RoundTrip(req)
	}
	ctx := req.Context()
	first, body, err := attempt(req)
	req.Body.Close() // each attempt has a body of its own
	if err != nil {
		return nil, err
	}
	var reused atomic.Bool
	trace := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		// Called as the connection is handed over, before the request's
		// head is written, in this goroutine (for HTTP/1: HTTP/2 calls it
		// itself, and is left alone): the header map is first's own.
		if info.Reused && !isHTTP2(info.Conn) {
			reused.Store(true)
			first.Header.Set("Expect", "100-continue")
		}
	}}
	resp, err := t.pooled.RoundTrip(first.WithContext(httptrace.WithClientTrace(ctx, trace)))
	// On an error of an HTTP/1 connection the transport returns once its
	// writer is done: the count of bytes read from the body is final.
	if err == nil || !reused.Load() || body.read.Load() > 0 || ctx.Err() != nil {
		return resp, err
	}
	second, _, err := attempt(req)
	if err != nil {
		return nil, err
	}
	return t.fresh.RoundTrip(second)
}

// isHTTP2 reports whether c negotiated HTTP/2.
func isHTTP2(c net.Conn) bool {
	tc, ok := c.(interface{ ConnectionState() tls.ConnectionState })
	return ok && tc.ConnectionState().NegotiatedProtocol == "h2"
}

// attempt returns a copy of req for one attempt, with a fresh body that
// counts the bytes read from it, and no GetBody (so that net/http never
// re-sends it by itself).
func attempt(req *http.Request) (*http.Request, *countedBody, error) {
	rc, err := req.GetBody()
	if err != nil {
		return nil, nil, err
	}
	b := &countedBody{ReadCloser: rc}
	r := req.Clone(req.Context())
	r.Body, r.GetBody = b, nil
	return r, b, nil
}

// countedBody counts the bytes read from a request's body.
type countedBody struct {
	io.ReadCloser
	read atomic.Int64
}

func (b *countedBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	b.read.Add(int64(n))
	return n, err
}
