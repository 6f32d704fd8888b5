package observe

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestStampAccuracy serves 50 content chunks 10 ms apart on 127.0.0.1,
// noting when each was flushed, and compares the gaps the observer records
// with the gaps the server wrote.
//
// Tolerance: the two differ only by how long each chunk took to cross the
// loopback and reach the reading goroutine, which on an idle machine is
// tens of microseconds and on a busy 2-core CI machine (the race detector
// and other test binaries running beside it) can reach a few milliseconds
// for one chunk, and on a virtual machine a pause of the whole machine can
// hold one chunk back by most of an interval. So the median difference
// must be under 0.5 ms and nine differences in ten under 5 ms, half the 10
// ms interval: a stamp taken at decode time after buffering, or a chunk
// attributed to the wrong read, would put most gaps off by whole
// intervals, not one or two.
func TestStampAccuracy(t *testing.T) {
	const n, every = 50, 10 * time.Millisecond
	var mu sync.Mutex
	var wrote []time.Time
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, `data: {"choices":[{"delta":{"role":"assistant","content":""}}]}`+"\n\n")
		w.(http.Flusher).Flush()
		next := time.Now()
		for i := range n {
			next = next.Add(every)
			time.Sleep(time.Until(next))
			fmt.Fprintf(w, `data: {"choices":[{"delta":{"content":"t%d"}}]}`+"\n\n", i)
			w.(http.Flusher).Flush()
			mu.Lock()
			wrote = append(wrote, time.Now())
			mu.Unlock()
		}
		fmt.Fprint(w, `data: {"choices":[{"delta":{},"finish_reason":"length"}],"usage":{"completion_tokens":50}}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", nil)
	res, err := (&Observer{}).Do(req, Chat, "a")
	require.NoError(t, err)
	chunks := res.Record.Chunks
	require.Len(t, chunks, n)
	var diffs []time.Duration
	for i := 1; i < n; i++ {
		got := chunks[i] - chunks[i-1]
		want := wrote[i].Sub(wrote[i-1])
		d := got - want
		if d < 0 {
			d = -d
		}
		diffs = append(diffs, d)
	}
	slices.Sort(diffs)
	t.Logf("differences between recorded and written gaps: median %v, 90th percentile %v, max %v",
		diffs[len(diffs)/2], diffs[len(diffs)*9/10], diffs[len(diffs)-1])
	assert.Less(t, diffs[len(diffs)/2], 500*time.Microsecond)
	assert.Less(t, diffs[len(diffs)*9/10], 5*time.Millisecond, "the 90th percentile")
}
