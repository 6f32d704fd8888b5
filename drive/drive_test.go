package drive

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llmmetrics/llmmetrics"
	"github.com/llmmetrics/llmmetrics/observe"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeServer streams chat completions of max_tokens one-token chunks, a
// gap apart after a TTFT that ttft(k) gives for the k-th request, with
// usage; it records the most requests it ever had in flight.
type fakeServer struct {
	*httptest.Server
	inFlight, peak atomic.Int64
	served         atomic.Int64
	mu             sync.Mutex
	bodies         []map[string]any
}

func newFake(t *testing.T, ttft func(k int64) time.Duration, gap time.Duration) *fakeServer {
	f := &fakeServer{}
	f.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		k := f.served.Add(1)
		n := f.inFlight.Add(1)
		defer f.inFlight.Add(-1)
		for p := f.peak.Load(); n > p && !f.peak.CompareAndSwap(p, n); p = f.peak.Load() {
		}
		var body map[string]any
		b, _ := io.ReadAll(r.Body)
		json.Unmarshal(b, &body)
		f.mu.Lock()
		f.bodies = append(f.bodies, body)
		f.mu.Unlock()
		maxTokens := 4
		if m, ok := body["max_tokens"].(float64); ok {
			maxTokens = int(m)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"delta":{"role":"assistant","content":""}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		select {
		case <-time.After(ttft(k)):
		case <-r.Context().Done():
			return
		}
		for i := range maxTokens {
			if i > 0 {
				select {
				case <-time.After(gap):
				case <-r.Context().Done():
					return
				}
			}
			fmt.Fprintf(w, `data: {"choices":[{"delta":{"content":"t%d"}}]}`+"\n\n", i)
			w.(http.Flusher).Flush()
		}
		fmt.Fprintf(w, `data: {"choices":[{"delta":{},"finish_reason":"length"}]}`+"\n\n"+
			`data: {"choices":[],"usage":{"prompt_tokens":7,"completion_tokens":%d}}`+"\n\ndata: [DONE]\n\n", maxTokens)
	}))
	t.Cleanup(f.Close)
	return f
}

// virtualTransport stamps records on a virtual clock that only it moves:
// when the k-th response's head has come (the request's send time already
// stamped), it moves the clock by ttft(k), and the chunks that follow are
// stamped there. With one request at a time every TTFT is exactly ttft(k),
// whatever the machine's speed (and every TPOT 0).
type virtualTransport struct {
	base    http.RoundTripper
	virtual atomic.Int64
	k       atomic.Int64
	ttft    func(k int64) time.Duration
}

func (t *virtualTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	resp, err := t.base.RoundTrip(r)
	if err == nil {
		t.virtual.Add(int64(t.ttft(t.k.Add(1))))
	}
	return resp, err
}

func constant(d time.Duration) func(int64) time.Duration {
	return func(int64) time.Duration { return d }
}

func plan(url string) Plan {
	return Plan{URL: url + "/v1/chat/completions", API: observe.Chat, Model: "m", MaxTokens: 4, Prompts: []string{"hello"}}
}

// everyOnce checks that the outcome holds every request sent exactly once,
// in send order, with ids 1…N.
func everyOnce(t *testing.T, out *Outcome, sent int64) {
	t.Helper()
	require.Len(t, out.Results, int(sent), "every request sent is in the outcome")
	for i, r := range out.Results {
		assert.Equal(t, fmt.Sprint(i+1), r.Record.ID)
	}
}

func TestClosedLoop(t *testing.T) {
	f := newFake(t, constant(20*time.Millisecond), time.Millisecond)
	p := plan(f.URL)
	p.Requests, p.Concurrency = 24, 4
	out, err := Run(context.Background(), p)
	require.NoError(t, err)
	everyOnce(t, out, f.served.Load())
	assert.Len(t, out.Results, 24)
	assert.Equal(t, int64(4), f.peak.Load(), "exactly C in flight")
	run := observe.Run(out.Results)
	s, err := run.Summarize(llmmetrics.Options{})
	require.NoError(t, err)
	assert.Equal(t, 24, s.Requests.OK)
	assert.GreaterOrEqual(t, s.TTFT.Min, 20*time.Millisecond)
	// The body asked for usage and the output length.
	assert.Equal(t, map[string]any{"include_usage": true}, f.bodies[0]["stream_options"])
	assert.Equal(t, 4.0, f.bodies[0]["max_tokens"])
	assert.Equal(t, true, f.bodies[0]["stream"])
}

// An open loop keeps each request's scheduled time; when a cap of one
// request in flight meets a server that takes 50 ms a request, arrivals
// every 10 ms fall further and further behind, and the lateness says so.
func TestOpenLoopLateness(t *testing.T) {
	f := newFake(t, constant(45*time.Millisecond), time.Millisecond)
	p := plan(f.URL)
	p.Requests, p.Rate, p.Burstiness, p.Concurrency = 10, 100, 1000, 1 // nearly regular: 10 ms apart
	out, err := Run(context.Background(), p)
	require.NoError(t, err)
	everyOnce(t, out, f.served.Load())
	var late []time.Duration
	var sched []time.Duration
	for _, r := range out.Results {
		l, ok := r.Record.Client.Lateness(r.Record.Sent)
		require.True(t, ok)
		late = append(late, l)
		sched = append(sched, r.Record.Client.Scheduled)
	}
	assert.True(t, slices.IsSorted(sched))
	// The 10th request was due about 90 ms after the first and began about
	// 9·50 ms after it: some 350 ms late.
	assert.Greater(t, late[9], 250*time.Millisecond)
	// The first was due at once; only the machine's scheduling delays it
	// (a safety net, not a measurement).
	assert.Less(t, late[0], late[9])
	s, err := observe.Run(out.Results).Summarize(llmmetrics.Options{})
	require.NoError(t, err)
	require.NotNil(t, s.Client.Lateness)
	assert.Equal(t, late[9], s.Client.Lateness.Max)
}

func TestWarmupFixedAndAuto(t *testing.T) {
	f := newFake(t, constant(5*time.Millisecond), time.Millisecond)
	p := plan(f.URL)
	p.Requests, p.Concurrency, p.Warmup = 6, 2, Warmup{Requests: 4}
	out, err := Run(context.Background(), p)
	require.NoError(t, err)
	everyOnce(t, out, f.served.Load())
	warm := 0
	for _, r := range out.Results {
		if r.Record.Warmup {
			warm++
		}
	}
	assert.Equal(t, 4, warm)
	s, err := observe.Run(out.Results).Summarize(llmmetrics.Options{})
	require.NoError(t, err)
	assert.Equal(t, llmmetrics.Accounting{Offered: 10, OK: 6, Warmup: 4}, s.Requests)

	// Auto: the first 30 requests are slow and getting faster (a cold
	// server), then steady; the rule needs four steady windows of 10. The
	// records are stamped on a virtual clock (virtualTransport).
	g := newFake(t, constant(0), 0)
	vt := &virtualTransport{base: http.DefaultTransport, ttft: func(k int64) time.Duration {
		if k <= 30 {
			return time.Duration(150-4*k) * time.Millisecond
		}
		return 20 * time.Millisecond
	}}
	base := time.Now()
	p = plan(g.URL)
	p.Requests, p.Concurrency = 5, 1
	p.Warmup = Warmup{Auto: true, MaxRequests: 200, Rule: llmmetrics.LessonsWarmup}
	p.now = func() time.Time { return base.Add(time.Duration(vt.virtual.Load())) }
	p.Client = &http.Client{Transport: vt}
	out, err = Run(context.Background(), p)
	require.NoError(t, err)
	everyOnce(t, out, g.served.Load())
	warm = 0
	for _, r := range out.Results {
		if r.Record.Warmup {
			warm++
		}
	}
	assert.Contains(t, out.Warmup, "warm-up ended after")
	// Windows 1-3 are cold (lower medians 126, 86, 46 ms, then 20); windows 4 to 7 are
	// steady, and the rule fires on the 7th finished window: 70 requests,
	// and the requests already dispatched when it fired (one at a time: at
	// most one more).
	assert.GreaterOrEqual(t, warm, 70)
	assert.LessOrEqual(t, warm, 71)
	assert.Len(t, out.Results, warm+5)
}

// An interrupted run stops sending, gives the requests in flight a grace
// period and records the rest as cancelled; nothing sent is lost.
func TestInterrupt(t *testing.T) {
	f := newFake(t, constant(time.Hour), time.Millisecond)
	p := plan(f.URL)
	p.Duration, p.Concurrency, p.Grace = time.Minute, 3, 100*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	go func() { // interrupt once the three are in flight at the server
		for f.inFlight.Load() < 3 {
			time.Sleep(time.Millisecond)
		}
		cancel()
	}()
	out, err := Run(ctx, p) // the server answers in an hour: the grace period ends the wait
	require.NoError(t, err)
	assert.True(t, out.Interrupted)
	everyOnce(t, out, f.served.Load())
	require.Len(t, out.Results, 3)
	for _, r := range out.Results {
		assert.Equal(t, llmmetrics.StatusCancelled, r.Record.Status, r.Record.Message)
	}
}

func TestTimeout(t *testing.T) {
	f := newFake(t, constant(time.Hour), time.Millisecond)
	p := plan(f.URL)
	p.Requests, p.Concurrency, p.Timeout = 2, 2, 50*time.Millisecond
	out, err := Run(context.Background(), p)
	require.NoError(t, err)
	for _, r := range out.Results {
		assert.Equal(t, llmmetrics.StatusTimeout, r.Record.Status, r.Record.Message)
		assert.Contains(t, r.Record.Message, "past the request timeout of 50ms")
	}
}

func TestPlanErrors(t *testing.T) {
	for _, p := range []Plan{
		{URL: "relative", Prompts: []string{"a"}, Requests: 1, Concurrency: 1},
		{URL: "http://h/v1/chat/completions", Requests: 1, Concurrency: 1},
		{URL: "http://h/v1/chat/completions", Prompts: []string{"a"}, Requests: 1, Duration: time.Second, Concurrency: 1},
		{URL: "http://h/v1/chat/completions", Prompts: []string{"a"}, Requests: 1},
		{URL: "http://h/v1/chat/completions", Prompts: []string{"a"}, Requests: 1, Concurrency: 1, Warmup: Warmup{Auto: true, Requests: 3}},
		{URL: "http://h/v1/chat/completions", Prompts: []string{"a"}, Requests: 1, Rate: math.NaN()},
		{URL: "http://h/v1/chat/completions", Prompts: []string{"a"}, Requests: 1, Rate: math.Inf(1)},
		{URL: "http://h/v1/chat/completions", Prompts: []string{"a"}, Requests: 1, Rate: 1, Burstiness: math.NaN()},
	} {
		_, err := Run(context.Background(), p)
		assert.Error(t, err, "%+v", p)
	}
}

// A request that could not be made was never sent: its record has no
// wait (unknown, not 0), which the client-wait figures leave out.
func TestNeverSentNoWait(t *testing.T) {
	p := Plan{URL: "http://127.0.0.1:1/v1/chat/completions\x7f", API: observe.Chat, Model: "m"}
	obs := &observe.Observer{Client: http.DefaultClient, Epoch: time.Now()}
	res := send(context.Background(), obs, p, "/v1/chat/completions", "hi", 1, "x", false)
	if res.Record.Status != llmmetrics.StatusError || res.Record.Client == nil || !res.Record.Client.NoWait {
		t.Errorf("record %+v, client %+v: want an error with no wait", res.Record, res.Record.Client)
	}
}
