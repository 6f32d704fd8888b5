package observe

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Through the Transport, every recorded stream gives the caller exactly the
// recorded bytes and gives the same result as the Observer, however the
// caller reads: all at once, or a few bytes at a time.
func TestTransportMatchesObserver(t *testing.T) {
	for _, rc := range recordings {
		for _, ex := range recorded(t, rc.file) {
			srv := replay(t, ex, time.Millisecond)
			api, _ := APIOf(ex.path)
			req, _ := http.NewRequest(http.MethodPost, srv.URL+ex.path, nil)
			direct, err := (&Observer{}).Do(req, api, "x")
			require.NoError(t, err)

			for _, chunk := range []int{1 << 20, 7} {
				var got []*Result
				var mu sync.Mutex
				client := &http.Client{Transport: &Transport{OnResult: func(r *Result) { mu.Lock(); got = append(got, r); mu.Unlock() }}}
				resp, err := client.Post(srv.URL+ex.path, "application/json", nil)
				require.NoError(t, err)
				var body bytes.Buffer
				buf := make([]byte, chunk)
				for {
					n, err := resp.Body.Read(buf)
					body.Write(buf[:n])
					if err != nil {
						require.Equal(t, io.EOF, err)
						break
					}
				}
				resp.Body.Close()
				require.Len(t, got, 1, "%s: one result per call", rc.file)
				if ex.status == http.StatusOK {
					assert.Equal(t, ex.body, body.Bytes(), "%s: the caller's stream is untouched", rc.file)
				}
				r := got[0]
				assert.Equal(t, direct.Record.Status, r.Record.Status, rc.file)
				assert.Equal(t, direct.Record.Message, r.Record.Message, rc.file)
				assert.Len(t, r.Record.Chunks, len(direct.Record.Chunks), rc.file)
				assert.Equal(t, direct.Record.CompletionTokens, r.Record.CompletionTokens, rc.file)
				assert.Equal(t, direct.UsageKnown, r.UsageKnown, rc.file)
				assert.Equal(t, direct.Record.Client.HasAnswer, r.Record.Client.HasAnswer, rc.file)
				assert.Equal(t, direct.Finish, r.Finish, rc.file)
			}
			srv.Close()
		}
	}
}

// A caller that closes a stream before its end cancelled that request; a
// call to an unknown path passes through unobserved.
func TestTransportEarlyCloseAndPassThrough(t *testing.T) {
	exs := recorded(t, "pydantic__pydantic-ai__deepseek-reasoning-stream.yaml")
	srv := replay(t, exs[0], time.Millisecond)
	defer srv.Close()
	var got []*Result
	client := &http.Client{Transport: &Transport{OnResult: func(r *Result) { got = append(got, r) }}}
	resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", nil)
	require.NoError(t, err)
	buf := make([]byte, 4096)
	_, err = resp.Body.Read(buf)
	require.NoError(t, err)
	resp.Body.Close()
	require.Len(t, got, 1)
	assert.Equal(t, "cancelled", got[0].Record.Status.String())
	assert.Contains(t, got[0].Record.Message, "closed the stream before its end")

	resp, err = client.Post(srv.URL+"/v1/embeddings", "application/json", nil)
	require.NoError(t, err)
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	assert.Len(t, got, 1, "an unknown endpoint is not observed")
}

// A caller that checks the status and closes an error body unread still
// gets the server's words in the Result; one whose server stalls inside
// the error body gets what came before the stall.
func TestErrorBodyClosedUnread(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Query().Get("stall") == "" {
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"message":"Rate limit reached for requests","type":"rate_limit_error","code":"rate_limit_exceeded"}}`)
			return
		}
		w.WriteHeader(http.StatusInternalServerError)
		io.WriteString(w, `overloaded: queue full`+"\n"+`{"detail":`)
		w.(http.Flusher).Flush()
		<-release // a body that never ends
	}))
	defer srv.Close()
	defer close(release)
	var got []*Result
	client := &http.Client{Transport: &Transport{OnResult: func(r *Result) { got = append(got, r) }}}
	for _, q := range []string{"", "?stall=1"} {
		resp, err := client.Post(srv.URL+"/v1/chat/completions"+q, "application/json", strings.NewReader(`{"model":"m","stream":true}`))
		require.NoError(t, err)
		resp.Body.Close() // unread
	}
	require.Len(t, got, 2)
	assert.Equal(t, "HTTP 429: Rate limit reached for requests", got[0].Record.Message)
	assert.Equal(t, "rate_limit_error", got[0].ErrorType)
	// Not JSON: the first line of what the server sent before it stalled.
	assert.Equal(t, "HTTP 500: overloaded: queue full", got[1].Record.Message)
}
