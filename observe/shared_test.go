package observe

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One Observer with the zero Epoch, shared by four goroutines, is safe:
// the first call sets the epoch once and every call measures from it.
// Under go test -race, an epoch set lazily without synchronisation is a
// data race on the Epoch field.
func TestObserverShared(t *testing.T) {
	body := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"},\"finish_reason\":\"stop\"}],\"usage\":{\"prompt_tokens\":1,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"
	srv := replay(t, exchange{path: "/v1/chat/completions", status: 200, contentType: "text/event-stream", body: []byte(body)}, 0)
	defer srv.Close()

	o := &Observer{}
	const workers, calls = 4, 3
	start := make(chan struct{})
	results := make([][]*Result, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for i := range calls {
				req, err := http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", nil)
				if err != nil {
					errs[w] = err
					return
				}
				res, err := o.Do(req, Chat, fmt.Sprintf("%d-%d", w, i))
				if err != nil {
					errs[w] = err
					return
				}
				results[w] = append(results[w], res)
			}
		}()
	}
	before := time.Now()
	close(start)
	wg.Wait()
	after := time.Now()

	require.False(t, o.Epoch.IsZero(), "the first call set the epoch")
	assert.False(t, o.Epoch.Before(before) || o.Epoch.After(after), "the epoch is a call's start")
	for w := range workers {
		require.NoError(t, errs[w])
		require.Len(t, results[w], calls)
		for _, res := range results[w] {
			assert.NoError(t, res.Record.Validate(), res.Record.ID)
			assert.GreaterOrEqual(t, res.Record.Sent, time.Duration(0), "%s is sent after the epoch", res.Record.ID)
			assert.LessOrEqual(t, res.Record.Sent, after.Sub(o.Epoch), res.Record.ID)
		}
	}
}
