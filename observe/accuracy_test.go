package observe

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scripted body delivers its pieces (a piece over several reads when the
// reader's buffer is small), and sets the fake clock to a piece's arrival
// as it hands its bytes over: a stamp is right only if it is the time of
// the read that delivered the event's last byte.
type scriptedBody struct {
	pieces []string
	at     []time.Duration
	clock  *fakeClock
	i      int
}

func (b *scriptedBody) Read(p []byte) (int, error) {
	if b.i == len(b.pieces) {
		return 0, io.EOF
	}
	b.clock.t = b.clock.zero.Add(b.at[b.i]) // every byte of piece i arrives at at[i]
	n := copy(p, b.pieces[b.i])
	b.pieces[b.i] = b.pieces[b.i][n:]
	if b.pieces[b.i] == "" {
		b.i++
	}
	return n, nil
}

func (b *scriptedBody) Close() error { return nil }

type fakeClock struct{ zero, t time.Time }

func (c *fakeClock) now() time.Time { return c.t }

// scripted answers every request with the body, through no network.
type scripted struct{ body *scriptedBody }

func (s scripted) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}}, Body: s.body, Request: req}, nil
}

// stampScript is a stream whose events end in different reads: the role
// chunk and half of t0 at 0; the rest of t0 and all of t1 at 10 ms; t2 at
// 25 ms, split over two reads (its last byte at 31 ms); the finish, usage
// and [DONE] at 40 ms.
func stampScript(clock *fakeClock) *scriptedBody {
	role := `data: {"choices":[{"delta":{"role":"assistant","content":""}}]}` + "\n\n"
	t0 := `data: {"choices":[{"delta":{"content":"t0"}}]}` + "\n\n"
	t1 := `data: {"choices":[{"delta":{"content":"t1"}}]}` + "\n\n"
	t2 := `data: {"choices":[{"delta":{"content":"t2"}}]}` + "\n\n"
	end := `data: {"choices":[{"delta":{},"finish_reason":"length"}],"usage":{"completion_tokens":3}}` + "\n\ndata: [DONE]\n\n"
	return &scriptedBody{
		pieces: []string{role + t0[:20], t0[20:] + t1, t2[:30], t2[30:], end},
		at:     []time.Duration{0, 10 * time.Millisecond, 25 * time.Millisecond, 31 * time.Millisecond, 40 * time.Millisecond},
		clock:  clock,
	}
}

// TestStampAtRead: each event is stamped with the time of the read that
// delivered its last byte — not when it was decoded, not at another
// read — through the Observer and through the Transport, read whole and
// in small pieces. The clock is fake: no verdict depends on the machine's
// speed.
func TestStampAtRead(t *testing.T) {
	want := []time.Duration{10 * time.Millisecond, 10 * time.Millisecond, 31 * time.Millisecond}
	zero := time.Unix(1000, 0)

	clock := &fakeClock{zero: zero, t: zero}
	o := &Observer{Client: &http.Client{Transport: scripted{stampScript(clock)}}, Now: clock.now, Epoch: zero}
	req, _ := http.NewRequest(http.MethodPost, "http://upstream/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
	res, err := o.Do(req, Chat, "a")
	require.NoError(t, err)
	assert.Equal(t, want, res.Record.Chunks, "the Observer")
	assert.Equal(t, 40*time.Millisecond, res.Duration)

	for _, size := range []int{1 << 16, 3} {
		clock := &fakeClock{zero: zero, t: zero}
		var got *Result
		tr := &Transport{Base: scripted{stampScript(clock)}, Now: clock.now, Epoch: zero, OnResult: func(r *Result) { got = r }}
		req, _ := http.NewRequest(http.MethodPost, "http://upstream/v1/chat/completions", strings.NewReader(`{"model":"m"}`))
		resp, err := tr.RoundTrip(req)
		require.NoError(t, err)
		buf := make([]byte, size)
		for {
			if _, err := resp.Body.Read(buf); err != nil {
				break
			}
		}
		resp.Body.Close()
		require.NotNil(t, got)
		assert.Equal(t, want, got.Record.Chunks, "the Transport, read %d bytes at a time", size)
		assert.Equal(t, 3, got.Record.CompletionTokens)
	}
}
