package live

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// tcpServer accepts connections on a loopback port and hands each to
// serve; it returns the base URL. It stops when the test ends.
func tcpServer(t *testing.T, serve func(net.Conn)) string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return "http://" + l.Addr().String()
}

// readRequest reads what the client sent of a request (its head and the
// short body of these tests).
func readRequest(c net.Conn) error {
	_, err := c.Read(make([]byte, 64<<10))
	return err
}

// reset closes a connection with a TCP reset rather than a close.
func reset(c net.Conn) {
	c.(*net.TCPConn).SetLinger(0)
	c.Close()
}

const event = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"

// cutAfterEvent serves one event of a stream, then ends the connection
// with end.
func cutAfterEvent(end func(net.Conn)) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, event)
		w.(http.Flusher).Flush()
		c, _, err := w.(http.Hijacker).Hijack()
		if err == nil {
			end(c)
		}
	}
}

// Failures that got no status code, made by net/http against loopback
// servers: each has its stable error.type, in ErrorTypeOf and in what
// the recorder exports.
func TestTransportErrorTypes(t *testing.T) {
	refused := func() string { // a port nothing listens on any more
		l, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		l.Close()
		return "http://" + l.Addr().String()
	}
	// A server that answers one request on a kept-alive connection and
	// closes it when the next comes, as llama.cpp's server does after a
	// few: Go does not send a POST again.
	keptAlive := func() string {
		return tcpServer(t, func(c net.Conn) {
			defer c.Close()
			if readRequest(c) != nil {
				return
			}
			fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(event), event)
			readRequest(c)
		})
	}
	tlsServer := httptest.NewUnstartedServer(http.NotFoundHandler()) // a certificate the client does not trust
	tlsServer.Config.ErrorLog = log.New(io.Discard, "", 0)           // the handshake errors are the test's
	tlsServer.StartTLS()
	defer tlsServer.Close()
	plain := httptest.NewServer(http.NotFoundHandler())
	defer plain.Close()
	noDNS := &http.Transport{DialContext: (&net.Dialer{Resolver: &net.Resolver{PreferGo: true,
		Dial: func(context.Context, string, string) (net.Conn, error) {
			return nil, errors.New("no DNS server in this test")
		},
	}}).DialContext}

	cases := []struct {
		name, url string
		base      http.RoundTripper
		calls     int // the last fails; those before are ok
		want      string
	}{
		{"refused port", refused(), nil, 1, "connection_refused"},
		{"reset before the response", tcpServer(t, func(c net.Conn) { readRequest(c); reset(c) }), nil, 1, "connection_reset"},
		{"closed before the response", tcpServer(t, func(c net.Conn) { readRequest(c); c.Close() }), nil, 1, "connection_closed"},
		{"kept-alive connection closed", keptAlive(), &http.Transport{}, 2, "connection_closed"},
		{"closed mid-response", serve(t, cutAfterEvent(func(c net.Conn) { c.Close() })), nil, 1, "unexpected_eof"},
		{"reset mid-response", serve(t, cutAfterEvent(reset)), nil, 1, "connection_reset"},
		{"untrusted certificate", tlsServer.URL, nil, 1, "tls_error"},
		{"https to a plain server", strings.Replace(plain.URL, "http:", "https:", 1), nil, 1, "tls_error"},
		{"name not resolved", "http://nosuch.invalid:8080", noDNS, 1, "dns_error"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rec, err := NewRecorder(Options{})
			require.NoError(t, err)
			tr := rec.Transport(c.base)
			var results []*observe.Result
			record := tr.OnResultContext
			tr.OnResultContext = func(ctx context.Context, r *observe.Result) {
				record(ctx, r)
				results = append(results, r)
			}
			client := &http.Client{Transport: tr}
			for range c.calls {
				resp, err := client.Post(c.url+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"m","stream":true}`))
				if err == nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
			}
			require.Len(t, results, c.calls)
			for _, r := range results[:c.calls-1] {
				assert.Equal(t, "", ErrorTypeOf(r), "the call before: %s", r.Record.Message)
			}
			last := results[c.calls-1]
			assert.Equal(t, c.want, ErrorTypeOf(last), "message %q", last.Record.Message)
			all := Merge(rec.Snapshots(false)...)
			failed := all.fails[c.want]
			assert.True(t, failed != nil && failed.n == 1, "the recorder's failures of error.type %s: %v", c.want, all.fails)
		})
	}
}

// Messages that name no transport failure stay Other; the server's words
// inside a stream are not read as Go's.
func TestTransportErrorTypeOther(t *testing.T) {
	for _, msg := range []string{"", "boom", "HTTP 200 with no SSE event and no JSON value in its body", "the model is overloaded"} {
		assert.Equal(t, Other, transportErrorType(msg), msg)
	}
}

// serve starts an HTTP server of h for the test and returns its URL.
func serve(t *testing.T, h http.Handler) string {
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv.URL
}
