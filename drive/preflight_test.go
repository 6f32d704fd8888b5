package drive

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kept collects what a plan gives its OnResult.
func kept(p *Plan) *[]*observe.Result {
	var got []*observe.Result
	p.OnResult = func(res *observe.Result) { got = append(got, res) }
	return &got
}

// A run cancelled before its test request was sent (its context ended
// before the call) sends nothing and keeps nothing: a request the server
// never saw is no request, not a cancelled one.
func TestTestRequestCancelledBeforeSend(t *testing.T) {
	f := newFake(t, constant(0), 0)
	p := plan(f.URL)
	got := kept(&p)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := TestRequest(ctx, p)
	var ns *NotSentError
	require.ErrorAs(t, err, &ns)
	assert.Equal(t, "test-1", ns.ID)
	assert.ErrorIs(t, err, context.Canceled)
	assert.Nil(t, res)
	assert.Empty(t, *got, "nothing to record")
	assert.Zero(t, f.served.Load(), "the server saw no request")

	// The sizing requests too.
	_, pre, _, err := SyntheticPrompts(ctx, p, 16, 2)
	require.ErrorAs(t, err, &ns)
	assert.Equal(t, "preflight-1", ns.ID)
	assert.Empty(t, pre)
	assert.Empty(t, *got)
	assert.Zero(t, f.served.Load())
}

// A run cancelled while its test request is still in its TLS handshake
// (the listener took the connection and says nothing) keeps nothing
// either: none of the request was written.
func TestTestRequestCancelledInHandshake(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		cancel() // the dial is done, the handshake waits for an answer that never comes
		<-ctx.Done()
	}()
	p := Plan{URL: "https://" + ln.Addr().String() + "/v1/chat/completions", API: observe.Chat, Model: "m", Prompts: []string{"hi"}}
	got := kept(&p)
	res, err := TestRequest(ctx, p)
	var ns *NotSentError
	require.ErrorAs(t, err, &ns, "%v", err)
	assert.Nil(t, res)
	assert.Empty(t, *got)
}

// A test request that reached the server and was then cancelled was a
// request: it is kept, cancelled and marked preflight.
func TestTestRequestCancelledAtServer(t *testing.T) {
	arrived, release := make(chan struct{}), make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(arrived)
		<-release
	}))
	defer srv.Close()
	defer close(release)
	p := plan(srv.URL)
	got := kept(&p)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		<-arrived
		cancel()
	}()
	res, err := TestRequest(ctx, p)
	var re *RequestError
	require.ErrorAs(t, err, &re)
	assert.False(t, errors.As(err, new(*NotSentError)))
	require.NotNil(t, res)
	assert.Equal(t, llmmetrics.StatusCancelled, res.Record.Status)
	assert.True(t, res.Record.Preflight)
	assert.False(t, res.Unwritten)
	assert.Equal(t, []*observe.Result{res}, *got)
}
