package drive

import (
	"context"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// rawServer listens on the loopback and gives each connection to serve.
func rawServer(t *testing.T, serve func(net.Conn)) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { defer c.Close(); serve(c) }()
		}
	}()
	return ln.Addr().String()
}

// An https:// URL to a server that speaks plain HTTP fails its test
// request with a message that says so and gives the http:// URL, whichever
// way the server takes the TLS hello: an HTTP error at once, silence (a
// request line awaited) until the handshake's limit, or a closed
// connection. Go's own plain server does one or the other by the bytes of
// the hello. A real TLS server's failure is left as it is. The silent
// server's limit is the plan's Stall, 200 ms here, so that no verdict
// waits on the clock: only the message is checked.
func TestHTTPSToPlainHTTP(t *testing.T) {
	goPlain := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(goPlain.Close)
	tlsSrv := httptest.NewUnstartedServer(http.NotFoundHandler())
	tlsSrv.Config.ErrorLog = log.New(io.Discard, "", 0) // the client's refusal is expected
	tlsSrv.StartTLS()                                   // a certificate this client does not trust
	t.Cleanup(tlsSrv.Close)
	silent := rawServer(t, func(c net.Conn) { io.Copy(io.Discard, c) })
	answers := rawServer(t, func(c net.Conn) {
		c.Read(make([]byte, 1024))
		io.WriteString(c, "HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	})
	closes := rawServer(t, func(c net.Conn) { c.Read(make([]byte, 1024)) })
	for _, c := range []struct {
		name, host string
		status     llmmetrics.Status
		want       string // "" for a message that does not speak of the scheme
		silent     bool   // the server never answers: only then may the stall end it
	}{
		{"Go's plain server", strings.TrimPrefix(goPlain.URL, "http://"), 0, "plain HTTP", false},
		// The handshake's limit and the stall, both 200 ms, race: either says it.
		{"silence", silent, llmmetrics.StatusTimeout, "the TLS handshake got no answer", true},
		{"an HTTP answer", answers, llmmetrics.StatusError, "the server answered the TLS handshake in plain HTTP: it speaks HTTP, not HTTPS; try http://" + answers + "/v1/chat/completions", false},
		{"a closed connection", closes, llmmetrics.StatusError, "the server closed the connection during the TLS handshake", false},
		{"a TLS server", strings.TrimPrefix(tlsSrv.URL, "https://"), llmmetrics.StatusError, "", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			// A server that answers gets a stall far beyond any machine's
			// delay, so that the verdict never depends on its speed; the
			// silent one is ended by a short stall.
			stall := time.Minute
			if c.silent {
				stall = 200 * time.Millisecond
			}
			p := Plan{URL: "https://" + c.host + "/v1/chat/completions", API: observe.Chat, Model: "m", Prompts: []string{"hi"}, Stall: stall}
			res, err := TestRequest(context.Background(), p)
			require.Error(t, err)
			if c.status != 0 {
				assert.Equal(t, c.status, res.Record.Status)
			}
			if c.want == "" {
				assert.NotContains(t, err.Error(), "plain HTTP")
				assert.Contains(t, err.Error(), "certificate")
				return
			}
			assert.Contains(t, err.Error(), c.want)
			assert.Contains(t, err.Error(), "not HTTPS; try http://"+c.host+"/v1/chat/completions")
		})
	}
}

// A plan's own client waits DefaultTLSHandshake (5 s, where Go's
// transport waits 10 s) for a TLS handshake, or the plan's Stall when
// shorter.
func TestTLSHandshakeLimit(t *testing.T) {
	for _, c := range []struct {
		stall, want time.Duration
	}{
		{0, 5 * time.Second},           // the default stall, 2 min, is longer
		{-1, 5 * time.Second},          // no stall limit
		{time.Minute, 5 * time.Second}, // longer
		{time.Second, time.Second},     // shorter
		{200 * time.Millisecond, 200 * time.Millisecond},
	} {
		p := Plan{Stall: c.stall}
		assert.Equal(t, c.want, p.TLSHandshake(), c.stall)
		rt := NewClient(p).Transport.(tlsTransport).base
		if st, ok := rt.(stallTransport); ok {
			rt = st.base
		}
		assert.Equal(t, c.want, rt.(*http.Transport).TLSHandshakeTimeout, c.stall)
	}
}
