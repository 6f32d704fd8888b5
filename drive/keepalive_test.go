package drive

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// closing is how a fake upstream closes its kept-alive connections.
type closing int

const (
	// afterStream closes each connection right after its streamed
	// response, as llama.cpp's server does.
	afterStream closing = iota
	// onNext closes each connection after its streamed response as the
	// next request's first bytes arrive on it, without reading them: the
	// race of afterStream at its worst, where the request is written
	// before the server's close reaches the client.
	onNext
	// idle closes a connection idle for 5 ms, and answers a request that
	// came in time, with 100 Continue where it asks for it.
	idle
	// keep never closes a connection.
	keep
)

// upstream is a fake server of chat streams on a raw listener, which
// counts the requests it read whole (head and body) and answered.
type upstream struct {
	ln       net.Listener
	how      closing
	received atomic.Int64
	conns    atomic.Int64 // connections accepted
	dropped  atomic.Int64 // connections closed with a request's bytes unread
	mu       sync.Mutex
	closedAt []time.Time // when each of those was closed
	open     []net.Conn
	wg       sync.WaitGroup
}

func newUpstream(t *testing.T, how closing) *upstream {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	u := &upstream{ln: ln, how: how}
	u.wg.Add(1)
	go func() {
		defer u.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u.conns.Add(1)
			u.mu.Lock()
			u.open = append(u.open, c)
			u.mu.Unlock()
			u.wg.Add(1)
			go func() {
				defer u.wg.Done()
				u.serve(c)
			}()
		}
	}()
	t.Cleanup(func() {
		ln.Close()
		u.mu.Lock()
		for _, c := range u.open {
			c.Close()
		}
		u.mu.Unlock()
		u.wg.Wait()
	})
	return u
}

func (u *upstream) URL() string { return "http://" + u.ln.Addr().String() }

func (u *upstream) drop(c net.Conn) {
	u.mu.Lock()
	u.closedAt = append(u.closedAt, time.Now())
	u.mu.Unlock()
	u.dropped.Add(1)
	c.Close()
}

func (u *upstream) serve(c net.Conn) {
	defer c.Close()
	br := bufio.NewReader(c)
	for served := 0; ; served++ {
		if served > 0 {
			switch u.how {
			case afterStream:
				return
			case onNext:
				if _, err := br.Peek(1); err == nil {
					u.drop(c)
				}
				return
			case idle:
				c.SetReadDeadline(time.Now().Add(5 * time.Millisecond))
				if _, err := br.Peek(1); err != nil {
					return
				}
				c.SetReadDeadline(time.Time{})
			}
		}
		req, err := http.ReadRequest(br)
		if err != nil {
			return
		}
		if strings.EqualFold(req.Header.Get("Expect"), "100-continue") {
			io.WriteString(c, "HTTP/1.1 100 Continue\r\n\r\n")
		}
		if _, err := io.Copy(io.Discard, req.Body); err != nil {
			return
		}
		u.received.Add(1)
		var b strings.Builder
		b.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\nKeep-Alive: timeout=5, max=100\r\n\r\n")
		for _, ev := range []string{
			`data: {"choices":[{"delta":{"content":"a"},"finish_reason":"length"}]}` + "\n\n",
			`data: {"choices":[],"usage":{"prompt_tokens":3,"completion_tokens":1}}` + "\n\n",
			"data: [DONE]\n\n",
		} {
			fmt.Fprintf(&b, "%x\r\n%s\r\n", len(ev), ev)
		}
		b.WriteString("0\r\n\r\n")
		if _, err := io.WriteString(c, b.String()); err != nil {
			return
		}
	}
}

// With KeepAlive, servers that close kept-alive connections (after each
// stream, as llama.cpp's does; as the next request arrives; when idle)
// answer every request, and receive exactly the requests of the run: a
// request whose reused connection ended before its body was asked for is
// sent again on a fresh connection, and no other is.
func TestKeepAliveClosingServers(t *testing.T) {
	for _, tc := range []struct {
		name string
		how  closing
		rate float64
	}{
		{"after each stream", afterStream, 0},
		{"as the next request arrives", onNext, 0},
		{"when idle", idle, 100},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := newUpstream(t, tc.how)
			p := plan(u.URL())
			p.Requests, p.Concurrency, p.Rate, p.KeepAlive = 40, 2, tc.rate, true
			out, err := Run(context.Background(), p)
			require.NoError(t, err)
			everyOnce(t, out, 40)
			for _, r := range out.Results {
				assert.Equal(t, llmmetrics.StatusOK, r.Record.Status, r.Record.Message)
			}
			assert.Equal(t, int64(40), u.received.Load(), "the server received what the file holds")
			t.Logf("connections %d, dropped with a request unread %d", u.conns.Load(), u.dropped.Load())
		})
	}
}

// Keep-alive reuses connections: against a server that keeps them, 20
// requests one at a time go over one connection (the server answers the
// reused ones' Expect with 100 Continue), and none is re-sent.
func TestKeepAliveReuses(t *testing.T) {
	u := newUpstream(t, keep)
	p := plan(u.URL())
	p.Requests, p.Concurrency, p.KeepAlive = 20, 1, true
	out, err := Run(context.Background(), p)
	require.NoError(t, err)
	everyOnce(t, out, 20)
	for _, r := range out.Results {
		assert.Equal(t, llmmetrics.StatusOK, r.Record.Status, r.Record.Message)
	}
	assert.Equal(t, int64(20), u.received.Load())
	assert.Equal(t, int64(1), u.conns.Load())
}

// A re-sent request is measured from the send that reached the server:
// its Sent is after the server closed the connection the first attempt
// went out on (which it did only once that attempt's head had arrived).
func TestKeepAliveResentMeasuredFromResend(t *testing.T) {
	u := newUpstream(t, onNext)
	p := plan(u.URL())
	p.KeepAlive = true
	obs := &observe.Observer{Client: NewClient(p)}
	var got []*observe.Result
	for i := range 2 {
		req, err := newRequest(context.Background(), p, "/v1/chat/completions", "hello", 4)
		require.NoError(t, err)
		res, err := obs.Do(req, observe.Chat, fmt.Sprint(i+1))
		require.NoError(t, err)
		require.Equal(t, llmmetrics.StatusOK, res.Record.Status, res.Record.Message)
		got = append(got, res)
	}
	require.Equal(t, int64(1), u.dropped.Load(), "the second request's first attempt went out on the kept connection")
	assert.Equal(t, int64(2), u.received.Load())
	sent := obs.Epoch.Add(got[1].Record.Sent)
	assert.True(t, sent.After(u.closedAt[0]), "sent %v, the first attempt's connection closed %v", sent, u.closedAt[0])
	assert.Greater(t, got[1].Record.Client.Wait, time.Duration(0))
}

// Over HTTP/2 the keep-alive transport adds nothing: the requests share
// one connection and none asks for 100 Continue.
func TestKeepAliveHTTP2(t *testing.T) {
	var expects, h2 atomic.Int64
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Expect") != "" {
			expects.Add(1)
		}
		if r.ProtoMajor == 2 {
			h2.Add(1)
		}
		io.Copy(io.Discard, r.Body)
		stream(w)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	tr := srv.Client().Transport.(*http.Transport).Clone()
	p := plan(srv.URL)
	p.KeepAlive = true
	obs := &observe.Observer{Client: &http.Client{Transport: newKeepAlive(tr)}}
	for i := range 5 {
		req, err := newRequest(context.Background(), p, "/v1/chat/completions", "hello", 4)
		require.NoError(t, err)
		res, err := obs.Do(req, observe.Chat, fmt.Sprint(i+1))
		require.NoError(t, err)
		assert.Equal(t, llmmetrics.StatusOK, res.Record.Status, res.Record.Message)
	}
	assert.Equal(t, int64(5), h2.Load())
	assert.Zero(t, expects.Load())
}
