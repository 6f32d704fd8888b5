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

// stream writes a short successful chat stream.
func stream(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "text/event-stream")
	fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"length\"}]}\n\n")
	fmt.Fprint(w, "data: {\"choices\":[],\"usage\":{\"prompt_tokens\":3,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n")
}

// A server that drops every connection on its second request (it reads
// the request, body and all, then closes without answering) receives
// exactly the requests the run records: none is re-sent behind the run's
// back. With KeepAlive each dropped one is a failure with its reason (its
// body was asked for and sent: the server may have acted on it); without
// it (the default) no connection is reused, and none is dropped.
func TestNoHiddenRetry(t *testing.T) {
	var received atomic.Int64
	var mu sync.Mutex
	seen := map[string]bool{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if _, err := io.Copy(io.Discard, r.Body); err != nil {
			return
		}
		received.Add(1)
		mu.Lock()
		reused := seen[r.RemoteAddr]
		seen[r.RemoteAddr] = true
		mu.Unlock()
		if reused {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		stream(w)
	}))
	defer srv.Close()
	p := plan(srv.URL)
	p.Requests, p.Concurrency = 10, 1
	out, err := Run(context.Background(), p)
	require.NoError(t, err)
	require.Len(t, out.Results, 10)
	assert.Equal(t, int64(10), received.Load(), "the server received what the file holds")
	for _, r := range out.Results {
		assert.Equal(t, llmmetrics.StatusOK, r.Record.Status, r.Record.Message)
	}

	received.Store(0)
	p.KeepAlive = true
	out, err = Run(context.Background(), p)
	require.NoError(t, err)
	require.Len(t, out.Results, 10)
	assert.Equal(t, int64(10), received.Load(), "the server received what the file holds")
	ok, failed := 0, 0
	for _, r := range out.Results {
		if r.Record.Status == llmmetrics.StatusOK {
			ok++
		} else {
			failed++
			assert.NotEmpty(t, r.Record.Message)
		}
	}
	// Connections alternate: a new one answers, its reuse is dropped.
	assert.Equal(t, 5, ok)
	assert.Equal(t, 5, failed)
}

// A server that sends the head of a stream and then nothing is cut off by
// the stall timeout and recorded as a timeout that says so; a server that
// never answers at all is cut off the same way.
func TestStall(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("head") == "0" {
			select {
			case <-release:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\"}}]}\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release) // before the server closes
	for _, q := range []string{"?head=1", "?head=0"} {
		p := plan(srv.URL)
		p.URL += q
		p.Requests, p.Concurrency, p.Stall = 2, 2, 100*time.Millisecond
		out, err := Run(context.Background(), p)
		require.NoError(t, err)
		require.Len(t, out.Results, 2)
		for _, r := range out.Results {
			assert.Equal(t, llmmetrics.StatusTimeout, r.Record.Status, q)
			assert.Contains(t, r.Record.Message, "no byte for 100ms", q)
		}
	}
}

// A run of a duration stops sending at its end; the requests still in
// flight get the grace period and are then cancelled and counted, with
// the reason. OnResult sees every request once.
func TestDurationGrace(t *testing.T) {
	f := newFake(t, constant(time.Hour), time.Millisecond)
	p := plan(f.URL)
	p.Duration, p.Concurrency, p.Grace = 50*time.Millisecond, 3, 50*time.Millisecond
	var seen atomic.Int64
	p.OnResult = func(*observe.Result) { seen.Add(1) }
	done := make(chan *Outcome)
	go func() {
		out, err := Run(context.Background(), p)
		assert.NoError(t, err)
		done <- out
	}()
	var out *Outcome
	select {
	case out = <-done:
	case <-time.After(time.Minute): // a safety net: the server answers in an hour
		t.Fatal("the run did not end after its duration and grace")
	}
	assert.False(t, out.Interrupted)
	require.Len(t, out.Results, 3)
	assert.Equal(t, int64(3), seen.Load())
	for _, r := range out.Results {
		assert.Equal(t, llmmetrics.StatusCancelled, r.Record.Status)
		assert.Contains(t, r.Record.Message, "grace period")
	}
}

// Closing Abort after an interrupt ends the grace period at once.
func TestAbortEndsGrace(t *testing.T) {
	f := newFake(t, constant(time.Hour), time.Millisecond)
	p := plan(f.URL)
	p.Requests, p.Concurrency, p.Grace = 10, 2, time.Hour
	abort := make(chan struct{})
	p.Abort = abort
	ctx, cancel := context.WithCancel(context.Background())
	var n atomic.Int64
	p.OnResult = func(*observe.Result) { n.Add(1) }
	// Interrupt once both requests are in flight at the server, then abort.
	go func() {
		for f.inFlight.Load() < 2 {
			time.Sleep(time.Millisecond)
		}
		cancel()
		close(abort)
	}()
	out, err := Run(ctx, p)
	require.NoError(t, err)
	assert.True(t, out.Interrupted)
	require.Len(t, out.Results, 2)
	for _, r := range out.Results {
		assert.Equal(t, llmmetrics.StatusCancelled, r.Record.Status)
		assert.Contains(t, r.Record.Message, "second interrupt")
	}
}

// The test request and the sizing requests stop the run with the
// server's words when they fail, and are kept, on the run's clock.
func TestPreflightFailures(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"the request exceeds the available context size (1024 tokens)"}}`, http.StatusBadRequest)
	}))
	defer srv.Close()
	p := plan(srv.URL)
	p.Epoch = time.Now().Add(-time.Hour)
	_, pre, _, err := SyntheticPrompts(context.Background(), p, 128, 4)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "HTTP 400: the request exceeds the available context size (1024 tokens)")
	require.Len(t, pre, 1, "the first failure stops the sizing")
	assert.Equal(t, "preflight-1", pre[0].Record.ID)
	assert.True(t, pre[0].Record.Warmup)
	assert.Greater(t, pre[0].Record.Sent, 59*time.Minute, "on the run's clock")

	res, err := TestRequest(context.Background(), p)
	require.Error(t, err)
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.Equal(t, 400, re.HTTPStatus)
	assert.Equal(t, "test-1", res.Record.ID)
}

// The sizing requests are under the plan's timeout.
func TestPreflightTimeout(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	go func() { // accepts, reads, never answers
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					if _, err := br.ReadString('\n'); err != nil {
						return
					}
				}
			}()
		}
	}()
	p := plan("http://" + ln.Addr().String())
	p.Timeout, p.Stall = 100*time.Millisecond, -1
	_, _, _, err = SyntheticPrompts(context.Background(), p, 16, 1)
	require.Error(t, err)
	assert.True(t, strings.Contains(err.Error(), "timeout"), err)
}

// An open loop capped at one in flight against a server that holds every
// request: at the end of the duration the loop stops waiting for a slot,
// and the request in flight gets the grace and is cancelled. The run ends
// (it used to wait for the slot, well past its duration).
func TestOpenLoopDuration(t *testing.T) {
	f := newFake(t, constant(time.Hour), time.Millisecond)
	p := plan(f.URL)
	p.Duration, p.Rate, p.Concurrency, p.Grace = 100*time.Millisecond, 100, 1, 50*time.Millisecond
	done := make(chan *Outcome)
	go func() {
		out, err := Run(context.Background(), p)
		assert.NoError(t, err)
		done <- out
	}()
	select {
	case out := <-done:
		require.Len(t, out.Results, 1)
		assert.Equal(t, llmmetrics.StatusCancelled, out.Results[0].Record.Status)
	case <-time.After(time.Minute): // a safety net
		t.Fatal("the run did not end after its duration and grace")
	}
}
